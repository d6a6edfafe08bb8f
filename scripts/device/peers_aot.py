"""Build FlashInfer's kernels for the sm90 bench suite ahead of time, here on the CPU machine (nvcc
needs no GPU), into the unpacked flashinfer package's data/aot/<uri>/<uri>.so, where FlashInfer
loads a module before it would JIT-compile one (jit/core.py: the AOT artifact, then the JIT
build). The device then compiles nothing for these shapes; any other module (another head dim,
dtype, a window, sinks) is still JIT-built there from the sources the payload keeps.

The modules are those FlashInfer's wrappers ask for on an SM90 GPU with the bench's settings
(fmhactl/bench/peers.py): the FA3 batch prefill module for each prefill head dim (`auto` picks FA3
for 64/128/256 there; causal and non-causal share it, the mask mode is a runtime argument), and
the FA2 batch decode module for a decode shape whose GQA group is under 4 (use_tensor_cores off;
a wider group's decode runs FlashInfer's prefill kernels, JIT-built on the device).

Usage (scripts/device/peers_payload.sh runs it): PYTHONPATH=SITE python3 peers_aot.py SITE SUITE.toml
with FLASHINFER_CUDA_ARCH_LIST=9.0a and FLASHINFER_WORKSPACE_BASE set; prints one line a module.
"""

from __future__ import annotations

import shutil
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from fmhactl.config import parse_shape  # noqa: E402

FA3_HEAD_DIMS = (64, 128, 256)  # flashinfer.utils.is_fa3_prefill_head_dim_supported


def specs_for(configs) -> dict:
    """uri -> JitSpec of every module the suite's configs need (bf16/f16, no window/sink/softcap)."""
    import torch
    from flashinfer.jit.attention.modules import gen_batch_decode_module, gen_batch_prefill_module

    dtypes = {"bf16": torch.bfloat16, "f16": torch.float16}
    specs = {}
    for cfg in configs:
        if cfg.features:
            continue
        dt, d = dtypes[cfg.dtype], cfg.head_dim
        if cfg.seq_q == 1 and cfg.heads // cfg.heads_kv < 4:
            spec = gen_batch_decode_module(dt, dt, dt, torch.int32, d, d, 0, False, False)
        elif cfg.seq_q > 1 and d in FA3_HEAD_DIMS:
            spec = gen_batch_prefill_module("fa3", dt, dt, dt, torch.int32, d, d, 0, False, False, False)
        else:
            continue
        specs[spec.name] = spec
    return specs


def main(site: str, suite: str) -> int:
    shapes = tomllib.loads(Path(suite).read_text())["shapes"]
    aot = Path(site) / "flashinfer" / "data" / "aot"
    for uri, spec in specs_for([parse_shape(s) for s in shapes]).items():
        begin = time.time()
        spec.build()
        target = aot / uri / f"{uri}.so"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(spec.jit_library_path, target)
        print(f"{uri}: {target.stat().st_size / 2**20:.1f} MiB, built in {time.time() - begin:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
