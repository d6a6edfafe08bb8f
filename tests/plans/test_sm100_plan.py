"""The SM100 kernel's TMEM/SMEM plan and its declaration (fmhactl/plans/sm100.py) agree (checked by NVRTC)."""

import dataclasses
import itertools

import pytest

from fmhactl.build.compiler import BuildTarget, CompileError
from fmhactl.build.entry import build
from fmhactl.config import AttnConfig
from fmhactl.plans.sm100 import Sm100Plan, plan_for
from fmhactl.registry import Variant, get_variant


def _asserting_variant(tmp_path, plans: list[Sm100Plan], stages: int, p_smem: int) -> Variant:
    lines = ['#include "sm100/fmha_sm100.cuh"']
    for plan in plans:
        d = plan.head_dim
        lines.append(f"static_assert(fmha_sm100::Plan<{d}>::kSmemBytes == {plan.smem_bytes}, \"smem d{d}\");")
        lines.append(f"static_assert(fmha_sm100::Plan<{d}>::kColsAlloc == {plan.tmem_alloc}, \"tmem d{d}\");")
        lines.append(f"static_assert(fmha_sm100::Plan<{d}>::kColsUsed == {plan.tmem_columns}, \"cols d{d}\");")
        lines.append(f"static_assert(fmha_sm100::Plan<{d}>::kBlockN == {plan.block_n}, \"block_n d{d}\");")
        lines.append(f"static_assert(fmha_sm100::Plan<{d}>::kCtasPerSm == {plan.ctas_per_sm}, \"ctas d{d}\");")
    lines.append('extern "C" __global__ void plan_probe_bf16() {}')
    src = tmp_path / f"plan_{stages}_{p_smem}.cu"
    src.write_text("\n".join(lines) + "\n")
    return Variant(name=f"plan_probe_{stages}_{p_smem}", description="", source=str(src), archs=("sm_100a",),
                   launcher="sm100", kernel="plan_probe_{dtype}",
                   switches={"FMHA_STAGES": stages, "FMHA_P_SMEM": p_smem, "FMHA_LOAD_TMA": 0})


@pytest.mark.parametrize("stages, p_smem", list(itertools.product([1, 2], [0, 1])))
def test_python_plan_matches_the_kernel(tmp_path, stages, p_smem):
    plans = [plan_for(d, stages, bool(p_smem)) for d in (64, 128, 256, 512)]
    plans = [p for p in plans if p.supported]
    build(_asserting_variant(tmp_path, plans, stages, p_smem), BuildTarget("sm_100a"), force=True)


def test_a_wrong_mirror_would_fail_to_compile(tmp_path):
    wrong = dataclasses.replace(plan_for(128, 1, False), block_n=64)  # a launcher that drifted from the kernel
    with pytest.raises(CompileError, match="static assertion failed"):
        build(_asserting_variant(tmp_path, [wrong], 1, 0), BuildTarget("sm_100a"), force=True)


def test_unsupported_reasons_state_the_arithmetic():
    assert get_variant("sm100_tma_s2_tmem").unsupported_reason(AttnConfig(head_dim=512)) is None
    assert get_variant("sm100_tma_s2_tmem").unsupported_reason(AttnConfig(head_dim=256)) is None
    reason = get_variant("sm100_tma_s2_smem").unsupported_reason(AttnConfig(head_dim=512))
    assert reason.startswith("SMEM needs 246864 B (Q 131072 + 2 x K/V 49152 + P 16384") and "> 232448 B" in reason
    assert get_variant("sm100_tma_s2_tmem").unsupported_reason(AttnConfig(head_dim=1024)).startswith("head_dim 1024")
