"""The SM100 plan, declared once in fmhactl/plans/sm100.py: its numbers and what the registry answers
for the issue's grids (CPU only; the generated header is `python -m fmhactl.plans --check`)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from fmhactl.config import AttnConfig
from fmhactl.plans import sm100 as plans
from fmhactl.registry import load_registry

SM100 = [v for v in load_registry().values() if v.launcher == "sm100"]
PIPELINED = [v for v in SM100 if int(v.switches.get("FMHA_STAGES", 1)) >= 2]


def test_p_inside_s_gives_d128_256_columns():
    plan = plans.plan_for(128, 2, False)
    assert (plan.col_p, plan.col_s, plan.p_columns, plan.col_o) == (0, 0, 64, 128)
    assert plan.tmem_columns == 256 and plan.tmem_alloc == 256
    assert plans.plan_for(128, 2, True).tmem_columns == 256  # SMEM-P: no P columns at all


@pytest.mark.parametrize("p_smem", [False, True])
def test_hd256_keeps_two_stages_with_block_n_64(p_smem):
    plan = plans.plan_for(256, 2, p_smem)
    assert plan.supported, plan.limit_reason()
    assert (plan.block_n, plan.d_passes, plan.stages) == (64, 1, 2)
    assert plan.smem_bytes <= plans.MAX_DYNAMIC_SMEM


def test_hd512_splits_o_over_two_passes_of_d():
    plan = plans.plan_for(512, 2, False)
    assert plan.supported, plan.limit_reason()
    assert (plan.block_n, plan.d_passes, plan.d_part, plan.tmem_columns) == (32, 2, 256, 288)
    assert "O 256 (512 / 2 passes over D) = 288 columns" in plan.column_arithmetic()
    reason = plans.plan_for(512, 2, True).limit_reason()
    assert reason.startswith("SMEM needs 246864 B") and reason.endswith("> 232448 B")


@pytest.mark.parametrize("stages, p_smem, d", list(itertools.product(plans.STAGE_CHOICES, (False, True),
                                                                      plans.HEAD_DIMS)))
def test_co_resident_ctas_fit_tmem_and_smem_admits_no_more(stages, p_smem, d):
    plan = plans.plan_for(d, stages, p_smem)
    if not plan.supported:
        pytest.skip(plan.limit_reason())
    assert plan.ctas_per_sm * plan.tmem_alloc <= plans.TMEM_COLUMNS
    assert plan.smem_bytes >= plan.smem_needed
    by_smem = plans.SMEM_PER_SM // (plan.smem_bytes + plans.SMEM_RESERVED_PER_BLOCK)
    assert by_smem == plan.ctas_per_sm, "SMEM must admit exactly the CTAs TMEM holds (or fewer)"


def test_padding_is_applied_where_smem_would_admit_too_many():
    plan = plans.plan_for(64, 1, False)  # 50 KB of SMEM would admit 4 CTAs; TMEM (256 cols) holds 2
    assert plan.smem_needed < 60000 and plan.ctas_per_sm == 2 and plan.smem_padding > 0


def test_registers_bound_matches_the_allocation_granularity():
    assert plans.ctas_by_registers(82) == 3  # 82 x 32 -> 2816 regs/warp, x 6 warps = 16896
    assert plans.ctas_by_registers(168) == 2
    assert plans.ctas_by_registers(255) == 1


def _grid_configs(name: str) -> list[AttnConfig]:
    from fmhactl.verify.grids import load_grid

    return list(load_grid(name).configs)


@pytest.mark.parametrize("grid", ["seeds72", "fa", "awkward"])
@pytest.mark.parametrize("variant", SM100, ids=lambda v: v.name)
def test_no_hd_up_to_256_config_is_unsupported(variant, grid):
    reasons = {cfg.key: variant.unsupported_reason(cfg) for cfg in _grid_configs(grid) if cfg.head_dim <= 256}
    assert reasons, f"grid {grid} has no hd <= 256 config"
    unsupported = {k: r for k, r in reasons.items() if r}
    assert not unsupported, unsupported


def test_hd512_runs_on_a_pipelined_tma_variant():
    cfg = AttnConfig(seq_q=300, seq_k=700, head_dim=512, causal=True)
    runs = [v.name for v in PIPELINED if v.switches.get("FMHA_LOAD_TMA") and v.unsupported_reason(cfg) is None]
    assert "sm100_tma_s2_tmem" in runs


def test_launch_grid_doubles_for_two_passes_over_d():
    from fmhactl.plans.launch import sm100_launch

    variant = load_registry()["sm100_tma_s2_tmem"]
    shape = sm100_launch(AttnConfig(batch=2, heads=3, seq_q=300, head_dim=512), variant.switches)
    assert shape.grid == (3 * 2, 3, 2) and shape.ctas_per_sm == 1
    shape = sm100_launch(AttnConfig(batch=2, heads=3, seq_q=300, head_dim=64), variant.switches)
    assert shape.grid == (3, 3, 2) and shape.ctas_per_sm == 2


def test_load_warp_returns_before_any_load_for_a_tile_without_keys():
    """Issue 13 item 1 at the source level (strict emulation proves it on the GPU): in load_warp the
    n_tiles == 0 return comes before Q's TMA and Q's copy. Issue 13's device script (sm100_issue13.sh, in git
    history) removed exactly this block to show strict mode failing without it."""
    import re

    from fmhactl import paths

    src = (paths.kernels_dir() / "sm100" / "fmha_sm100.cuh").read_text()
    body = src[src.index("__device__ void load_warp("):src.index("// ---- MMA warp")]
    fix = re.search(r"\n    // A tile with no key to visit.*?\n    if \(t.n_tiles == 0\) return;", body, re.S)
    assert fix, "the early return of load_warp is gone (or its comment changed: update the device script)"
    assert fix.end() < body.index("tma::load_4d") and fix.end() < body.index("copy_tile<D>(smem + P::kQOff")


def test_topk_launch_is_one_token_of_one_kv_head_per_cta():
    """FMHA_TOPK: x = (token x head chunk) x passes over D, y = KV head, z = batch; a group of more than
    TOPK_HEADS_PER_CTA heads takes several CTAs per token; a build without the switch keeps the dense grid."""
    from fmhactl.plans.launch import limit_reason, sm100_launch
    from fmhactl.plans.sm100 import TOPK_HEADS_PER_CTA, topk_head_chunks

    variant = load_registry()["sm100_tma_s2_tmem"]
    assert variant.switches["FMHA_TOPK"] == 1 and "topk" in variant.features
    assert TOPK_HEADS_PER_CTA == 128
    cfg = AttnConfig(batch=3, heads=8, heads_kv=1, seq_q=16, seq_k=300, head_dim=64, topk=32)
    assert sm100_launch(cfg, variant.switches).grid == (16, 1, 3)
    cfg512 = AttnConfig(batch=1, heads=16, heads_kv=2, seq_q=5, seq_k=300, head_dim=512, topk=600)
    assert sm100_launch(cfg512, variant.switches).grid == (5 * 2, 2, 1)  # two passes over D
    assert topk_head_chunks(136, 1) == 2 and topk_head_chunks(128, 1) == 1 and topk_head_chunks(8, 2) == 1
    big = AttnConfig(heads=136, heads_kv=1, seq_q=3, seq_k=200, head_dim=64, topk=40)
    assert sm100_launch(big, variant.switches).grid == (3 * 2, 1, 1)
    dense = AttnConfig(batch=3, heads=8, heads_kv=1, seq_q=16, seq_k=300, head_dim=64)
    assert sm100_launch(dense, variant.switches).grid == (1, 8, 3)
    no_switch = {**variant.switches, "FMHA_TOPK": 0}
    assert sm100_launch(cfg, no_switch).grid == (1, 8, 3)
    too_many = AttnConfig(batch=70000, heads=8, heads_kv=1, seq_q=1, seq_k=300, head_dim=64, topk=32)
    assert "at most 65535" in limit_reason("sm100", too_many, variant.switches)
    assert limit_reason("sm100", cfg, variant.switches) is None


def test_topk_plan_constant_reaches_the_header():
    from fmhactl.plans.sm100 import HEADER_PATH, TOPK_HEADS_PER_CTA

    text = (Path(__file__).resolve().parents[2] / HEADER_PATH).read_text()
    assert f"constexpr int kTopkHeadsPerCta = {TOPK_HEADS_PER_CTA};" in text
