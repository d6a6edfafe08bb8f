"""The SM90 tile plan is declared once (fmhactl/plans/sm90.py) and reaches the kernel through the
generated fmha_sm90_plan.h; the kernel picks its entry from its compile-time switches. Check, through
NVRTC, that for every registered sm90 variant's switches and every head dim the entry the kernel
picks is the plan the launcher computes (switch resolution: FMHA_BN_D*, FMHA_STAGES*, FMHA_PERSISTENT)."""

import pytest

from fmhactl.build.compiler import BuildTarget, _compile_nvrtc, _options
from fmhactl.config import AttnConfig
from fmhactl.errors import MissingEnvironment
from fmhactl.registry import load_registry
from fmhactl.plans.launch import SM90_HEAD_DIMS, sm90_launch, sm90_plan

SM90 = [v for v in load_registry().values() if v.launcher == "sm90"]


@pytest.mark.parametrize("variant", SM90, ids=lambda v: v.name)
def test_kernel_plan_equals_the_launcher_plan(variant, tmp_path):
    lines = ['#include "sm90/fmha_sm90.cuh"']
    for d in SM90_HEAD_DIMS:
        cfg = AttnConfig(head_dim=d)
        plan = sm90_plan(cfg, variant.switches)
        shape = sm90_launch(cfg, variant.switches)
        lines += [
            f"static_assert(fmha_sm90::Plan<{d}>::kSmemBytes == {plan.smem_bytes}u, \"SMEM bytes d{d}\");",
            f"static_assert(fmha_sm90::Plan<{d}>::kBlockN == {plan.block_n}, \"KV tile d{d}\");",
            f"static_assert(fmha_sm90::Plan<{d}>::kStages == {plan.stages}, \"stages d{d}\");",
            f"static_assert(fmha_sm90::Plan<{d}>::kQStages == {plan.q_stages}, \"Q stages d{d}\");",
            f"static_assert(fmha_sm90::kBlockM == {plan.block_m}, \"query tile\");",
            f"static_assert(fmha_sm90::kThreads == {shape.block[0]}, \"threads\");",
        ]
    source = tmp_path / "plan_check.cu"
    source.write_text("\n".join(lines) + "\n")
    try:
        # The variant's own options: its switches as -D defines and the kernels/ include path.
        _compile_nvrtc(source, _options(variant, BuildTarget("sm_90a")))
    except MissingEnvironment as exc:
        pytest.skip(str(exc))
