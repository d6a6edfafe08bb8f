"""Launch geometry per kernel kind, computed from the same switches the kernel is built with.

Pure Python (no torch, no CUDA): the registry asks `limit_reason` why a config cannot run.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.plans import sm90, sm90_decode, sm90_gather
from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM, ceil_div
from fmhactl.plans.ref import plan_from_switches as ref_plan_from_switches
from fmhactl.plans.sm90 import Sm90Plan
from fmhactl.plans.sm100 import THREADS as SM100_THREADS
from fmhactl.plans.sm100 import Sm100Plan, plan_from_switches, topk_grid, topk_limit_reason

__all__ = ["LaunchShape", "MAX_DYNAMIC_SMEM", "Sm100Plan", "Sm90Plan", "entry_plan", "launch_shape", "limit_reason",
           "sm100_launch", "sm100_plan"]


@dataclass(frozen=True)
class LaunchShape:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int
    # CTAs the kernel's plan lets co-reside on one SM (the emulator shares one SM's 512 TMEM
    # columns among that many CTAs); 0 where the launcher does not decide it.
    ctas_per_sm: int = 0


def ref_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    plan = ref_plan_from_switches(cfg.head_dim, switches)
    return LaunchShape(plan.grid(cfg.seq_q, cfg.heads, cfg.batch), (plan.threads, 1, 1), plan.smem_bytes)


def sm100_plan(cfg: AttnConfig, switches: dict) -> Sm100Plan:
    return plan_from_switches(cfg.head_dim, switches)


def sm100_topk(cfg: AttnConfig, switches: dict) -> bool:
    """A top-k launch of a build with FMHA_TOPK: the CTAs take the heads of one token (plans/sm100.py)."""
    return cfg.topk > 0 and bool(int(switches.get("FMHA_TOPK", 0)))


def sm100_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """One CTA per 128 query rows (x 2 when O is split over two passes of D), per head, per batch;
    a top-k launch: one per (token x head chunk) x passes, per KV head, per batch."""
    plan = sm100_plan(cfg, switches)
    if sm100_topk(cfg, switches):
        grid = topk_grid(plan, cfg.seq_q, cfg.heads, cfg.heads_kv, cfg.batch)
        return LaunchShape(grid, (SM100_THREADS, 1, 1), plan.smem_bytes, plan.ctas_per_sm)
    grid_x = ceil_div(cfg.seq_q, plan.block_m) * plan.d_passes
    return LaunchShape((grid_x, cfg.heads, cfg.batch), (SM100_THREADS, 1, 1), plan.smem_bytes, plan.ctas_per_sm)


SM90_HEAD_DIMS = sm90.HEAD_DIMS
SM90_DEFAULT_BLOCK_N = sm90.DEFAULT_BLOCK_N
sm90_persistent = sm90.persistent


def sm90_plan(cfg: AttnConfig, switches: dict) -> Sm90Plan:
    return sm90.plan_from_switches(cfg.head_dim, switches)


def sm90_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """One CTA per (query tile, head, batch); persistent: one per SM (sm_count, when the caller
    knows it) over a 1-D grid, each starting at tile blockIdx.x and claiming more from the
    FmhaParams.tile_counter (kernels/sm90/fmha_sm90.cuh::TileScheduler)."""
    plan = sm90_plan(cfg, switches)
    if plan.persistent:
        tiles = plan.tiles(cfg.seq_q, cfg.heads, cfg.batch)
        grid = (max(1, min(tiles, sm_count) if sm_count else tiles), 1, 1)
    else:
        grid = (ceil_div(cfg.seq_q, plan.block_m), cfg.heads, cfg.batch)
    return LaunchShape(grid, (plan.threads, 1, 1), plan.smem_bytes)


def sm90_gather_plan(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> sm90_gather.GatherPlan:
    keys = sm90_gather.keys_per_token(cfg.seq_k, cfg.topk, cfg.window_left, cfg.right_bound)
    return sm90_gather.plan_for(cfg.head_dim, cfg.heads, cfg.heads_kv, cfg.seq_q, cfg.batch, cfg.kv_shared,
                                cfg.topk > 0, sm_count, keys)


def sm90_gather_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """sm90_mqa_gather: one CTA per (query token x head chunk x key split, KV head, batch); the
    block is one warp per (16-head M tile, <=128-column D slice); the SMEM holds as many ring
    stages as fit (the kernel reads the count back from its dynamic SMEM size). The split count
    (the kernel's GatherSplit.splits) comes from the same plan: sm90_gather_plan(...).splits."""
    plan = sm90_gather_plan(cfg, switches, sm_count)
    return LaunchShape(plan.grid(cfg.seq_q, cfg.heads_kv, cfg.batch), (plan.threads, 1, 1), plan.smem_bytes)


def sm90_decode_plan(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> sm90_decode.DecodePlan:
    return sm90_decode.plan_for_config(cfg, sm_count)


def sm90_decode_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """sm90_mqa_decode: one CTA of 3 warpgroups per (query token x 64-head chunk x key split, KV
    head, batch); SMEM fixed by the plan (fmhactl/plans/sm90_decode.py), the split count is its
    GatherSplit.splits."""
    plan = sm90_decode_plan(cfg, switches, sm_count)
    return LaunchShape(plan.grid(cfg.seq_q, cfg.heads_kv, cfg.batch), (plan.threads, 1, 1), plan.smem_bytes)


# Launchers whose kernel takes GatherSplit (plans/sm90_gather.py) as its second argument, and the
# plan whose split count and workspace it carries.
SPLIT_PLANNERS = {"sm90_gather": sm90_gather_plan, "sm90_decode": sm90_decode_plan}

LAUNCHERS = {"ref": ref_launch, "sm100": sm100_launch, "sm90": sm90_launch, "sm90_gather": sm90_gather_launch,
             "sm90_decode": sm90_decode_launch}


def launch_shape(launcher: str, cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """sm_count: the GPU's SM count, which persistent kernels size their grid by (None: one CTA
    per tile); every launcher takes it, those with a fixed grid ignore it."""
    try:
        launch = LAUNCHERS[launcher]
    except KeyError:
        raise BadInput(f"unknown launcher {launcher!r} (known: {', '.join(LAUNCHERS)})") from None
    return launch(cfg, switches, sm_count)


def entry_plan(launcher: str, kernel: str, switches: dict) -> Sm100Plan | None:
    """The TMEM/SMEM plan of an SM100 entry point (named ..._d<head_dim>); None for other kernels."""
    import re

    match = re.search(r"_d(\d+)$", kernel)
    if launcher != "sm100" or not match:
        return None
    return sm100_plan(AttnConfig(head_dim=int(match.group(1))), switches)


# CUDA's grid limits on y and z (x: 2^31-1).
MAX_GRID_YZ = 65535
# A persistent SM90 launch numbers its tiles in int (fmha_sm90.cuh TileScheduler: tile indices up to
# tiles + gridDim.x - 1 once every CTA has claimed past the end): room left for any grid.
MAX_SM90_TILES = 2**31 - 1 - 2**16


def heads_batch_grid_reason(cfg: AttnConfig) -> str | None:
    """Grids of (query tiles, heads, batch) (ref, non-persistent SM90): heads and batch within y and z."""
    for name, value, axis in (("heads", cfg.heads, "y"), ("batch", cfg.batch, "z")):
        if value > MAX_GRID_YZ:
            return f"{name} {value} exceeds the grid's {axis} limit {MAX_GRID_YZ}"
    return None


def sm90_grid_reason(plan: Sm90Plan, cfg: AttnConfig) -> str | None:
    if not plan.persistent:
        return heads_batch_grid_reason(cfg)
    tiles = plan.tiles(cfg.seq_q, cfg.heads, cfg.batch)
    if tiles > MAX_SM90_TILES:
        return f"{tiles} query tiles exceed the persistent scheduler's int tile index ({MAX_SM90_TILES})"
    return None


def limit_reason(launcher: str, cfg: AttnConfig, switches: dict) -> str | None:
    """Resource limits a config would break for this launcher (TMEM columns, SMEM bytes)."""
    if launcher == "sm100":
        plan = sm100_plan(cfg, switches)
        reason = plan.limit_reason()
        if reason is None and sm100_topk(cfg, switches):
            return topk_limit_reason(plan, cfg.seq_q, cfg.heads, cfg.heads_kv, cfg.batch)
        return reason
    if launcher == "sm90":
        plan = sm90_plan(cfg, switches)
        return plan.limit_reason() or sm90_grid_reason(plan, cfg)
    if launcher == "ref":
        return ref_plan_from_switches(cfg.head_dim, switches).limit_reason() or heads_batch_grid_reason(cfg)
    if launcher == "sm90_gather":
        return sm90_gather_plan(cfg, switches).limit_reason(cfg.seq_q, cfg.heads_kv, cfg.batch)
    if launcher == "sm90_decode":
        return sm90_decode_plan(cfg, switches).limit_reason(cfg.seq_q, cfg.heads_kv, cfg.batch)
    launch_shape(launcher, cfg, switches)  # an unknown launcher is bad input
    return None
