"""Launch geometry per kernel kind, computed from the same switches the kernel is built with.

Pure Python (no torch, no CUDA): the registry asks `limit_reason` why a config cannot run.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.plans.sm100 import MAX_DYNAMIC_SMEM, Sm100Plan, plan_from_switches

__all__ = ["LaunchShape", "MAX_DYNAMIC_SMEM", "Sm100Plan", "entry_plan", "launch_shape", "limit_reason",
           "sm100_launch", "sm100_plan"]


@dataclass(frozen=True)
class LaunchShape:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int
    # CTAs the kernel's plan lets co-reside on one SM (the emulator shares one SM's 512 TMEM
    # columns among that many CTAs); 0 where the launcher does not decide it.
    ctas_per_sm: int = 0


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def ref_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    block_m = int(switches.get("FMHA_BLOCK_M", 16))
    block_n = int(switches.get("FMHA_BLOCK_N", 32))
    d = cfg.head_dim
    # Must match the carve-up at the top of fmha_ref::attention.
    smem = 4 * block_m * d + 2 * block_n * (d + 2) + 2 * block_n * d + 4 * block_m * block_n
    return LaunchShape((_ceil_div(cfg.seq_q, block_m), cfg.heads, cfg.batch), (128, 1, 1), smem)


def sm100_plan(cfg: AttnConfig, switches: dict) -> Sm100Plan:
    return plan_from_switches(cfg.head_dim, switches)


def sm100_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """One CTA per 128 query rows (x 2 when O is split over two passes of D), per head, per batch."""
    plan = sm100_plan(cfg, switches)
    grid_x = _ceil_div(cfg.seq_q, plan.block_m) * plan.d_passes
    return LaunchShape((grid_x, cfg.heads, cfg.batch), (192, 1, 1), plan.smem_bytes, plan.ctas_per_sm)


@dataclass(frozen=True)
class Sm90Plan:
    """Mirror of fmha_sm90::Plan<D> (kernels/sm90/fmha_sm90.cuh); tests/sm90 keep them equal."""

    head_dim: int
    stages: int
    block_n: int
    block_m: int = 128
    threads: int = 384  # producer warpgroup + 2 consumer warpgroups
    persistent: bool = False  # FMHA_PERSISTENT: one CTA per SM walks the tiles

    @property
    def separate_o(self) -> bool:
        """A persistent CTA stages O in its own tile where that fits (D <= 128); else in Q's."""
        return self.persistent and self.head_dim <= 128

    @property
    def q_stages(self) -> int:
        """With O apart, Q is double-buffered (the next tile's Q loads under this one)."""
        return 2 if self.separate_o else 1

    @property
    def smem_bytes(self) -> int:
        q = self.block_m * self.head_dim * 2
        kv = self.block_n * self.head_dim * 2
        o = q if self.separate_o else 0  # else O is staged in the Q tile
        barriers = 8 * (2 * self.q_stages + 4 * self.stages)  # q full/empty per Q stage, k/v full/empty per stage
        tile_slots = 8 * self.q_stages  # the persistent producer's tile index for the consumers
        return q * self.q_stages + o + 2 * self.stages * kv + barriers + tile_slots + 1024

    def tiles(self, cfg: AttnConfig) -> int:
        return _ceil_div(cfg.seq_q, self.block_m) * cfg.heads * cfg.batch

    def limit_reason(self) -> str | None:
        if self.head_dim not in SM90_HEAD_DIMS:
            return f"head_dim {self.head_dim} not supported (supports {', '.join(map(str, SM90_HEAD_DIMS))})"
        if self.smem_bytes > MAX_DYNAMIC_SMEM:
            return (f"SMEM needs {self.smem_bytes} B (Q + {self.stages} K/V stage(s) of {self.block_n} keys) "
                    f"> {MAX_DYNAMIC_SMEM} B")
        return None


SM90_HEAD_DIMS = (64, 128, 256)
# KV tile per head dim unless a switch overrides it (FMHA_BN_D<d>), as in the kernel.
SM90_DEFAULT_BLOCK_N = {64: 128, 128: 128, 256: 64}


def sm90_persistent(switches: dict) -> bool:
    """FMHA_PERSISTENT: one CTA per SM claims tiles from FmhaParams.tile_counter."""
    return bool(int(switches.get("FMHA_PERSISTENT", 0)))


def sm90_plan(cfg: AttnConfig, switches: dict) -> Sm90Plan:
    d = cfg.head_dim
    block_n = int(switches.get(f"FMHA_BN_D{d}", SM90_DEFAULT_BLOCK_N.get(d, 64)))
    stages = int(switches.get(f"FMHA_STAGES_D{d}", switches.get("FMHA_STAGES", 2)))
    return Sm90Plan(d, stages, block_n,
                    persistent=sm90_persistent(switches))


def sm90_launch(cfg: AttnConfig, switches: dict, sm_count: int | None = None) -> LaunchShape:
    """One CTA per (query tile, head, batch); persistent: one per SM (sm_count, when the caller
    knows it) over a 1-D grid, each starting at tile blockIdx.x and claiming more from the
    FmhaParams.tile_counter (kernels/sm90/fmha_sm90.cuh::TileScheduler)."""
    plan = sm90_plan(cfg, switches)
    if plan.persistent:
        tiles = plan.tiles(cfg)
        grid = (max(1, min(tiles, sm_count) if sm_count else tiles), 1, 1)
    else:
        grid = (_ceil_div(cfg.seq_q, plan.block_m), cfg.heads, cfg.batch)
    return LaunchShape(grid, (plan.threads, 1, 1), plan.smem_bytes)


LAUNCHERS = {"ref": ref_launch, "sm100": sm100_launch, "sm90": sm90_launch}


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


def limit_reason(launcher: str, cfg: AttnConfig, switches: dict) -> str | None:
    """Resource limits a config would break for this launcher (TMEM columns, SMEM bytes)."""
    if launcher == "sm100":
        return sm100_plan(cfg, switches).limit_reason()
    if launcher == "sm90":
        return sm90_plan(cfg, switches).limit_reason()
    if launch_shape(launcher, cfg, switches).dynamic_smem > MAX_DYNAMIC_SMEM:
        return f"SMEM needs {launch_shape(launcher, cfg, switches).dynamic_smem} B > {MAX_DYNAMIC_SMEM} B"
    return None
