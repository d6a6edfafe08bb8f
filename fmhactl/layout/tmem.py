"""Tensor Memory: addresses, allocation rules and the tcgen05.ld / tcgen05.st register maps.

Spec (docs/tcgen05-facts.md): §1 (geometry, allocation, warp lane quarters) and §2 (ld/st shapes, pack).
The (thread, register) <-> (lane, column) formulas are the CUTLASS Copy_Traits<SM100_TMEM_LOAD_*>
maps; tests/layout checks them against the CuTe headers bit by bit. tcgen05.st uses the same map.
"""

from __future__ import annotations

from typing import NamedTuple

from fmhactl.layout.common import LayoutError, Problem
from fmhactl.plans.hardware import TMEM_ALLOC_UNIT, TMEM_COLUMNS, TMEM_LANES

LANES = TMEM_LANES
COLUMNS = TMEM_COLUMNS
CELL_BITS = 32
WARP_SIZE = 32

SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
REGS_PER_REP = {"32x32b": 1, "16x64b": 1, "16x32bx2": 1, "16x128b": 2, "16x256b": 4}
_MAX_REGS = 128  # Table 49: no shape/num combination needs more than 128 registers
ALLOC_COLUMNS = tuple(TMEM_ALLOC_UNIT << i for i in range((TMEM_COLUMNS // TMEM_ALLOC_UNIT).bit_length()))


def split_addr(addr: int) -> tuple[int, int]:
    """TMEM address -> (lane, column): bits 31..16 lane, 15..0 column."""
    return (addr >> 16) & 0xFFFF, addr & 0xFFFF


def join_addr(lane: int, col: int) -> int:
    return ((lane << 16) + col) & 0xFFFFFFFF


def warp_quarter_lanes(warp: int) -> range:
    """Lanes a warp may touch with tcgen05.ld/st: quarter (warp % 4) of the 128 lanes."""
    q = warp % 4
    return range(32 * q, 32 * q + 32)


def check_shape(shape: str, num: int) -> None:
    if shape not in SHAPES:
        raise LayoutError(f"unknown tcgen05.ld/st shape {shape!r} (one of {', '.join(SHAPES)})")
    if num not in NUMS:
        raise LayoutError(f".num must be one of x1, x2, x4, ..., x128; got x{num}")
    if REGS_PER_REP[shape] * num > _MAX_REGS:
        raise LayoutError(f"{shape}.x{num} does not exist (it would need {REGS_PER_REP[shape] * num} "
                          f"registers; the largest .num for {shape} is x{_MAX_REGS // REGS_PER_REP[shape]})")


def regs_per_thread(shape: str, num: int) -> int:
    check_shape(shape, num)
    return REGS_PER_REP[shape] * num


def lanes_touched(shape: str) -> int:
    return 32 if shape in ("32x32b", "16x32bx2") else 16


def columns_per_half(shape: str, num: int, pack: bool = False) -> int:
    """TMEM columns one instruction touches (per half for 16x32bx2)."""
    base = {"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8, "16x32bx2": 1}[shape] * num
    return base * (2 if pack else 1)


def default_half_split(num: int, pack: bool) -> int:
    """immHalfSplitoff as CUTLASS issues it: the second half starts right after the first."""
    return 2 * num if pack else num


class Access(NamedTuple):
    """Register bits [reg_bit_lo, +nbits) of r[reg] in `thread` <-> TMEM[lane][col] bits [tmem_bit_lo, +nbits)."""

    thread: int
    reg: int
    lane: int
    col: int
    reg_bit_lo: int
    tmem_bit_lo: int
    nbits: int

    def as_dict(self) -> dict[str, int]:
        return {"thread": self.thread, "reg": self.reg, "lane": self.lane, "col": self.col,
                "reg_bit_lo": self.reg_bit_lo, "tmem_bit_lo": self.tmem_bit_lo, "nbits": self.nbits}


def _relative_cell(shape: str, t: int, i: int) -> tuple[int, int]:
    """(lane, column) of r[i] for lane-in-warp t relative to the (half's) base address, no pack."""
    j, q = divmod(i, REGS_PER_REP[shape])
    if shape == "32x32b":
        return t, j
    if shape == "16x64b":
        return (t >> 2) + 8 * (t & 1), 2 * j + ((t >> 1) & 1)
    if shape == "16x128b":
        return (t >> 2) + 8 * q, 4 * j + (t & 3)
    if shape == "16x256b":
        return (t >> 2) + 8 * (q >> 1), 8 * j + 2 * (t & 3) + (q & 1)
    return t & 15, j  # 16x32bx2: base chosen by the caller


def register_cells(shape: str, num: int, thread: int, reg: int, pack: bool = False, taddr: int = 0,
                   imm: int | None = None) -> list[Access]:
    """The TMEM cells behind register r[reg] of lane-in-warp `thread` (one entry, or two with pack)."""
    check_shape(shape, num)
    if not 0 <= thread < WARP_SIZE:
        raise LayoutError(f"thread must be a lane in the warp (0..31), got {thread}")
    if not 0 <= reg < regs_per_thread(shape, num):
        raise LayoutError(f"{shape}.x{num} gives {regs_per_thread(shape, num)} registers; r[{reg}] does not exist")
    base = taddr
    if shape == "16x32bx2" and thread >= 16:
        base = (taddr + (default_half_split(num, pack) if imm is None else imm)) & 0xFFFFFFFF
    lane0, col0 = split_addr(base)
    lane, c = _relative_cell(shape, thread, reg)
    if not pack:
        return [Access(thread, reg, lane0 + lane, col0 + c, 0, 0, 32)]
    return [Access(thread, reg, lane0 + lane, col0 + 2 * c, 0, 0, 16),
            Access(thread, reg, lane0 + lane, col0 + 2 * c + 1, 16, 0, 16)]


def ld_map(shape: str, num: int, pack: bool = False, taddr: int = 0, imm: int | None = None) -> list[Access]:
    """Every (thread, register) <-> TMEM cell pairing of one warp-wide tcgen05.ld (or .st with unpack).

    Sorted by thread, then register. `pack` means .pack::16b (ld) / .unpack::16b (st).
    """
    regs = regs_per_thread(shape, num)
    second = (taddr + (default_half_split(num, pack) if imm is None else imm)) & 0xFFFFFFFF
    out: list[Access] = []
    for t in range(WARP_SIZE):
        lane0, col0 = split_addr(second if shape == "16x32bx2" and t >= 16 else taddr)
        for i in range(regs):
            lane, c = _relative_cell(shape, t, i)
            if pack:
                out.append(Access(t, i, lane0 + lane, col0 + 2 * c, 0, 0, 16))
                out.append(Access(t, i, lane0 + lane, col0 + 2 * c + 1, 16, 0, 16))
            else:
                out.append(Access(t, i, lane0 + lane, col0 + c, 0, 0, 32))
    return out


st_map = ld_map  # tcgen05.st: the LOAD traits with source and destination swapped (same pairing)


def cell_owners(accesses: list[Access]) -> dict[tuple[int, int, int], Access]:
    """Inverse map: (lane, col, tmem_bit_lo) -> the access that covers it."""
    return {(a.lane, a.col, a.tmem_bit_lo): a for a in accesses}


def access_problems(accesses: list[Access], warp: int | None = None) -> list[Problem]:
    """Check one instruction's footprint: TMEM bounds and (given the warp index) the lane-quarter rule."""
    problems: list[Problem] = []
    lanes = {a.lane for a in accesses}
    cols = {a.col for a in accesses}
    if max(lanes) >= LANES:
        problems.append(Problem("lane-out-of-range", f"touches lane {max(lanes)} but TMEM has lanes 0..127"))
    if max(cols) >= COLUMNS:
        problems.append(Problem("column-out-of-range", f"touches column {max(cols)} but TMEM has columns 0..511"))
    if warp is not None:
        allowed = warp_quarter_lanes(warp)
        bad = sorted(lane for lane in lanes if lane not in allowed)
        if bad:
            problems.append(Problem(
                "lane-quarter",
                f"warp {warp} (warp % 4 = {warp % 4}) may only access lanes {allowed.start}..{allowed.stop - 1}; "
                f"this access touches lanes {bad[0]}..{bad[-1]}"))
    return problems


def alloc_problems(ncols: int, previous: int | None = None, relinquished: bool = False) -> list[Problem]:
    """Rules of tcgen05.alloc (spec §1.2): power-of-two columns in [32, 512], non-increasing sizes,
    no alloc after relinquish_alloc_permit."""
    problems: list[Problem] = []
    if ncols not in ALLOC_COLUMNS:
        problems.append(Problem("alloc-columns", f"nCols must be a power of two in [32, 512]; got {ncols}"))
    if previous is not None and ncols > previous:
        problems.append(Problem("alloc-increasing",
                                f"allocation sizes must not increase within a CTA: {previous} then {ncols}"))
    if relinquished:
        problems.append(Problem("alloc-after-relinquish", "alloc after tcgen05.relinquish_alloc_permit is illegal"))
    return problems


def min_alloc_columns(columns_needed: int) -> int:
    """Smallest legal allocation that holds `columns_needed` columns."""
    for n in ALLOC_COLUMNS:
        if n >= columns_needed:
            return n
    raise LayoutError(f"{columns_needed} columns do not fit in TMEM (512 columns per CTA)")
