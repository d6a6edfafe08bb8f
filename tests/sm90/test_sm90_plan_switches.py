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
from fmhactl.plans.sm90 import consumers_reason

SM90 = [v for v in load_registry().values() if v.launcher == "sm90"]


@pytest.mark.parametrize("variant", SM90, ids=lambda v: v.name)
def test_kernel_plan_equals_the_launcher_plan(variant, tmp_path):
    lines = ['#include "sm90/fmha_sm90.cuh"']
    for d in SM90_HEAD_DIMS:
        cfg = AttnConfig(head_dim=d)
        plan = sm90_plan(cfg, variant.switches)
        if consumers_reason(d, plan.consumers):  # not declared: Plan<d> would not compile
            continue
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


def test_three_consumers_are_hd64_only():
    from fmhactl.plans.sm90 import plan_from_switches

    switches = load_registry()["sm90_persistent_m192"].switches
    plan = plan_from_switches(64, switches)
    assert (plan.block_m, plan.threads, plan.consumers) == (192, 512, 3)
    assert plan.limit_reason() is None
    producer, consumer = plan.registers
    assert 128 * producer + 3 * 128 * consumer <= 65536
    reason = plan_from_switches(128, switches).limit_reason()
    assert reason and "3 consumer warpgroups" in reason
    shape = sm90_launch(AttnConfig(head_dim=64, seq_q=1024), switches, sm_count=132)
    assert shape.block == (512, 1, 1) and shape.dynamic_smem == plan.smem_bytes
    assert plan.tiles(1024, 16, 16) == 6 * 16 * 16  # ceil(1024 / 192) query tiles per head


def test_the_m192_variant_refuses_other_head_dims():
    variant = load_registry()["sm90_persistent_m192"]
    assert variant.unsupported_reason(AttnConfig(head_dim=64)) is None
    assert "head_dim 128 not supported" in variant.unsupported_reason(AttnConfig(head_dim=128))
