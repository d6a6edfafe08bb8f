"""Hardware limits of SM90 and SM100 that every plan, the emulator and the layout tools share.

One declaration per fact: the plans (`plans/sm100.py`, `plans/sm90.py`, `plans/ref.py`), the
emulator's host side (`runtime/emulation.py`), `layout/` and the generated C++ headers
(`python -m fmhactl.plans --write`) read these numbers from here.
"""

from __future__ import annotations

# ---- shared memory (sm_90 and sm_100 alike) ----
MAX_DYNAMIC_SMEM = 232448  # 227 KiB: the most one block may ask for
SMEM_PER_SM = 233472  # 228 KiB of shared memory per SM
SMEM_RESERVED_PER_BLOCK = 1024  # the driver keeps 1 KiB per resident block
SWIZZLE_REPEAT = 1024  # the 128B-swizzle pattern repeats every 1024 B; kernels re-align to it

# ---- Tensor Memory (sm_100) ----
TMEM_LANES = 128
TMEM_COLUMNS = 512
TMEM_ALLOC_UNIT = 32  # tcgen05.alloc takes a power of two >= 32 columns

# ---- registers ----
REGISTERS_PER_SM = 65536
REGISTER_ALLOC_UNIT = 256  # registers are given to a warp in units of 256
WARP_SIZE = 32


def ctas_by_registers(registers_per_thread: int, threads: int) -> int:
    """CTAs of `threads` threads the register file holds at this per-thread register count."""
    per_warp = -(-registers_per_thread * WARP_SIZE // REGISTER_ALLOC_UNIT) * REGISTER_ALLOC_UNIT
    return REGISTERS_PER_SM // max(1, per_warp * (threads // WARP_SIZE))


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)
