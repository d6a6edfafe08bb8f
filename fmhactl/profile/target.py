"""The child that ncu runs: build the job, launch the kernel N times inside its NVTX range.

    python -m fmhactl.profile.target '<json spec>'

spec: {"variant", "config", "seed", "warmup", "launches", "sidecar"}. No reference computation:
only the launches ncu should see (plus torch's input generation, which is outside the range).
The sidecar JSON tells the parent what ran (mode, arch, source hash, GPU) or why nothing did.
Exit codes follow fmhactl's: 0 ok, 2 bad input, 3 missing environment, 1 anything else.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def _write(sidecar: str | None, data: dict) -> None:
    if sidecar:
        Path(sidecar).write_text(json.dumps(data, sort_keys=True))


def run(spec: dict) -> dict:
    # The lent GPU machine has no `nvtx` package: let launch_range fall back to torch's NVTX.
    os.environ.setdefault("FMHACTL_NVTX_FALLBACK", "torch")
    from fmhactl.build.entry import build
    from fmhactl.config import AttnConfig
    from fmhactl.errors import BadInput
    from fmhactl.registry import get_variant
    from fmhactl.runtime import driver
    from fmhactl.runtime.execute import Executor, gpu_info
    from fmhactl.runtime.jobs import make_job
    from fmhactl.runtime.modes import plan
    from fmhactl.runtime.nvtx_ranges import backend, ncu_include

    info = gpu_info()
    if info.get("gpu") is None:
        from fmhactl.runtime.device import no_gpu

        raise no_gpu(str(info.get("reason", "")))
    variant = get_variant(spec["variant"])
    cfg = AttnConfig.from_dict(spec["config"])
    reason = variant.unsupported_reason(cfg)
    if reason:
        raise BadInput(f"{variant.name} cannot run {cfg.key}: {reason}")
    planned = plan(variant, info["cc"])
    if isinstance(planned, str):
        raise BadInput(planned)
    target, mode = planned
    built = build(variant, target)
    seed = int(spec.get("seed", 0))
    job = make_job("profile", variant, built, cfg, seed, mode)
    import torch

    executor = Executor()
    q, k, v = executor.make_inputs(cfg, seed)
    o, lse = executor.poisoned_outputs(cfg)
    torch.cuda.synchronize()
    total = int(spec.get("warmup", 2)) + int(spec.get("launches", 1))
    for _ in range(total):
        executor.launch(job, cfg, q, k, v, o, lse)
    driver.synchronize(torch.cuda.current_stream().cuda_stream)
    which = backend()
    return {"ok": True, "mode": mode, "arch": target.arch, "emulated": target.emulated,
            "source_hash": built.source_hash, "toolchain": built.toolchain, "kernel": job.kernel,
            "cubin": job.cubin, "gpu": info.get("gpu"), "driver": info.get("driver", ""),
            "cc": info.get("cc"), "sms": info.get("sms"), "launches": total,
            "nvtx_backend": which, "nvtx_include": ncu_include(variant.name, cfg.key, which)}


def main(argv: list[str]) -> int:
    from fmhactl.errors import FmhactlError

    if len(argv) != 2:
        print("usage: python -m fmhactl.profile.target '<json spec>'", file=sys.stderr)
        return 2
    spec = json.loads(argv[1])
    sidecar = spec.get("sidecar")
    try:
        result = run(spec)
    except FmhactlError as exc:
        _write(sidecar, {"ok": False, "error": str(exc), "code": int(exc.code)})
        print(f"fmhactl.profile.target: {exc}", file=sys.stderr)
        return int(exc.code)
    except Exception as exc:  # noqa: BLE001 - reported through the sidecar, not a traceback
        _write(sidecar, {"ok": False, "error": f"{type(exc).__name__}: {exc}", "code": 1})
        print(f"fmhactl.profile.target: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    _write(sidecar, result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
