"""The worker side of `verify`: launch once on fresh inputs, check against the reference.

Runs inside the kernel worker (fmhactl.runtime.worker loads it by name for op "verify"), so the
runtime never imports the verification code.
"""

from __future__ import annotations

from fmhactl.runtime import stage
from fmhactl.runtime.features import make_feature_inputs
from fmhactl.runtime.kernel_job import KernelJob
from fmhactl.verify.compare import compare
from fmhactl.verify.reference import attention_for


def verify_job(executor, job: KernelJob) -> dict:
    import torch

    cfg = job.config
    layout = job.options.get("layout", "bthd")
    q, k, v = executor.make_inputs(cfg, job.seed, heads_first=layout == "bhtd")
    features = make_feature_inputs(cfg, job.seed, device=str(q.device))
    o, lse = executor.poisoned_outputs(cfg)
    if not job.writes_lse:  # a project kernel without the "lse" feature: null LSE, not checked
        lse = None
    stage.report("the kernel")
    executor.launch(job, cfg, q, k, v, o, lse, features=features)
    executor.synchronize(job)
    stage.report("the reference (the kernel had finished)")
    ref32, lse32 = attention_for(cfg, q, k, v, features, compute_dtype=torch.float32)
    ref_low, _ = attention_for(cfg, q, k, v, features, compute_dtype=q.dtype)
    _, lse64 = attention_for(cfg, q, k, v, features, compute_dtype=torch.float64)
    if job.launcher == "sm100":
        block_m, warp_rows, quarters = 128, 32, True
    else:
        block_m, quarters = int(job.switches.get("FMHA_BLOCK_M", 0)), False
        warp_rows = block_m // 4
    result = compare(o, lse, ref32, ref_low, lse64, lse32, block_m=block_m, warp_rows=warp_rows,
                     lane_quarters=quarters)
    return {"status": "PASS" if result.passed else "FAIL", "metrics": {**result.to_dict(), "layout": layout, **executor.tmem_sharing(job)}}
