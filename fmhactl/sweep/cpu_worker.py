"""The CPU worker: the kernel worker's JSON-lines protocol for CPU-only jobs.

It lets the one scheduler (local slots or Ray actors) run work on machines with no GPU:
- `build`: compile one (variant, target) through NVRTC into the shared, content-addressed cache;
- `cubin_sha256`: the hash of the cubin a job names (how CI checks cubins shipped to a node);
- `selftest`: a small attention problem done the way the kernels do it (online softmax over key
  blocks, fp32) checked against the fp64 reference. A `fault` planted in the job makes the
  worker die (crash) or stop answering (hang), exactly as the GPU self-test kernels do, so
  crash/hang isolation and lost-worker retries are tested without a GPU.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
import traceback

SELFTEST_MAX_ELEMENTS = 1 << 22  # batch*heads*seq_q*seq_k: keeps a CPU self-test config under a second


def _build(job: dict) -> dict:
    from fmhactl.build.compiler import BuildTarget, CompileError
    from fmhactl.build.entry import build
    from fmhactl.registry import get_variant

    variant = get_variant(job["variant"])
    target = BuildTarget(job["arch"], emulated=bool(job.get("emulated")), strict=bool(job.get("strict")))
    try:
        result = build(variant, target, force=bool(job.get("force")))
    except CompileError as exc:
        return {"status": "ERROR", "error": str(exc)}
    return {"status": "OK", "build": result.to_dict(), "strict": target.strict,
            "cubin_sha256": hashlib.sha256(result.cubin_path.read_bytes()).hexdigest()}


def _selftest(job: dict) -> dict:
    import torch

    from fmhactl.config import AttnConfig
    from fmhactl.verify.reference import attention, visibility_mask

    fault = job.get("fault")
    if fault == "crash":
        os.kill(os.getpid(), signal.SIGSEGV)
    if fault == "hang":
        while True:
            time.sleep(60)
    if job.get("delay_s"):
        time.sleep(float(job["delay_s"]))
    torch.set_num_threads(1)  # one reduction order everywhere: identical results on every slot
    cfg = AttnConfig.from_dict(job["config"])
    gen = torch.Generator().manual_seed(int(job["seed"]))
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[cfg.dtype]

    def draw(seq: int, heads: int):
        return torch.randn(cfg.batch, seq, heads, cfg.head_dim, generator=gen).to(dtype)

    q, k, v = draw(cfg.seq_q, cfg.heads), draw(cfg.seq_k, cfg.heads_kv), draw(cfg.seq_k, cfg.heads_kv)
    ref, _ = attention(q, k, v, causal=cfg.causal, compute_dtype=torch.float64)
    out = _online_softmax(q, k, v, cfg.causal, visibility_mask, block=32).to(torch.float64)
    err = float((out - ref).abs().max().item())
    tol = 1e-5 + 1e-5 * float(ref.abs().max().item())
    digest = hashlib.sha256(out.to(torch.float32).numpy().tobytes()).hexdigest()[:16]
    return {"status": "PASS" if err <= tol else "FAIL",
            "metrics": {"max_abs_err": err, "tolerance": tol, "checksum": digest}}


def _online_softmax(q, k, v, causal: bool, visibility_mask, block: int):
    """FlashAttention's loop in fp32: running max and sum, rescaling O per key block."""
    import math

    import torch

    b, t, h, d = q.shape
    s = k.shape[1]
    group = h // k.shape[2]
    qf = q.float().permute(0, 2, 1, 3)
    kf = k.float().permute(0, 2, 1, 3).repeat_interleave(group, dim=1)
    vf = v.float().permute(0, 2, 1, 3).repeat_interleave(group, dim=1)
    mask = visibility_mask(t, s, causal, q.device)
    row_max = torch.full((b, h, t, 1), float("-inf"))
    row_sum = torch.zeros(b, h, t, 1)
    acc = torch.zeros(b, h, t, d)
    for start in range(0, s, block):
        scores = qf @ kf[:, :, start:start + block].transpose(-1, -2) / math.sqrt(d)
        scores = scores.masked_fill(~mask[:, start:start + block], float("-inf"))
        new_max = torch.maximum(row_max, scores.amax(-1, keepdim=True))
        safe = torch.where(torch.isinf(new_max), torch.zeros_like(new_max), new_max)
        p = torch.exp(scores - safe)
        rescale = torch.exp(row_max - safe)
        row_sum = row_sum * rescale + p.sum(-1, keepdim=True)
        acc = acc * rescale + p @ vf[:, :, start:start + block]
        row_max = new_max
    out = torch.where(row_sum > 0, acc / row_sum.clamp_min(1e-30), torch.zeros_like(acc))
    return out.permute(0, 2, 1, 3)


def _cubin_sha256(job: dict) -> dict:
    """The hash and place of the cubin a job names, as this worker sees it (proves shipping by content)."""
    path = job["cubin"]
    with open(path, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    return {"status": "OK", "metrics": {"sha256": digest, "path": path}}


HANDLERS = {"build": _build, "selftest": _selftest, "cubin_sha256": _cubin_sha256}


def main() -> None:
    from fmhactl.runtime.worker import _die_with_parent, protocol_channel

    _die_with_parent()
    reply = protocol_channel()

    import torch  # noqa: F401 - loaded before the hello, so no job's watchdog pays for it

    reply({"hello": True, "gpu": "cpu", "device": "cpu", "pid": os.getpid(), "cc": None,
           "driver": "", "host": os.uname().nodename})
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        try:
            handler = HANDLERS[job["op"]]
            reply({"id": job.get("id"), **handler(job)})
        except Exception as exc:  # noqa: BLE001 - reported as this job's ERROR
            reply({"id": job.get("id"), "status": "ERROR", "error": f"{type(exc).__name__}: {exc}",
                   "traceback": traceback.format_exc(limit=5)})


if __name__ == "__main__":
    main()
