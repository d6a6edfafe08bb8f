"""Launch geometry per kernel kind, computed from the same switches the kernel is built with."""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput


@dataclass(frozen=True)
class LaunchShape:
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def ref_launch(cfg: AttnConfig, switches: dict) -> LaunchShape:
    block_m = int(switches.get("FMHA_BLOCK_M", 16))
    block_n = int(switches.get("FMHA_BLOCK_N", 32))
    d = cfg.head_dim
    # Must match the carve-up at the top of fmha_ref::attention.
    smem = 4 * block_m * d + 2 * block_n * (d + 2) + 2 * block_n * d + 4 * block_m * block_n
    return LaunchShape((_ceil_div(cfg.seq_q, block_m), cfg.heads, cfg.batch), (128, 1, 1), smem)


LAUNCHERS = {"ref": ref_launch}


def launch_shape(launcher: str, cfg: AttnConfig, switches: dict) -> LaunchShape:
    try:
        return LAUNCHERS[launcher](cfg, switches)
    except KeyError:
        raise BadInput(f"unknown launcher {launcher!r} (known: {', '.join(LAUNCHERS)})") from None
