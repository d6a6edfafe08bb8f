"""Where tcgen05.mma (cta_group::1) keeps D in TMEM, and where the TS form reads A from.

Spec §3.4 (layouts D for M=128 and F for M=64) and §3.5 (A from TMEM). D elements are never
packed: an f16 D element uses bits 15..0 of its 32-bit cell. A in TMEM is packed along K.
"""

from __future__ import annotations

from typing import NamedTuple

from fmhactl.layout.common import LayoutError, Problem
from fmhactl.layout.tmem import COLUMNS, split_addr

MMA_M = (64, 128)


def check_mn(m_rows: int, n_cols: int, ts: bool = False) -> list[Problem]:
    """PTX Table 39 shapes for kind::f16/tf32, cta_group::1; the CUTLASS-only TS rule is a warning."""
    problems: list[Problem] = []
    if m_rows not in MMA_M:
        problems.append(Problem("mma-m", f"M must be 64 or 128 for cta_group::1; got {m_rows}"))
    if not (8 <= n_cols <= 256 and n_cols % 8 == 0):
        problems.append(Problem("mma-n", f"N must be 8..256 in steps of 8; got {n_cols}"))
    elif ts and m_rows == 128 and n_cols % 16:
        problems.append(Problem("ts-n16", "CUTLASS requires N % 16 == 0 for TS with M=128 (PTX allows steps of 8)",
                                "warning"))
    return problems


def _lane_base(m_rows: int, tmem_addr: int) -> tuple[int, int]:
    lane0, col0 = split_addr(tmem_addr)
    if m_rows == 128 and lane0 != 0:
        raise LayoutError(f"M=128 (layout D) needs the TMEM lane field to be 0; got lane {lane0}")
    if m_rows == 64 and lane0 not in (0, 16):
        raise LayoutError(f"M=64 (layout F) needs the TMEM lane field to be 0 or 16; got lane {lane0}")
    if m_rows not in MMA_M:
        raise LayoutError(f"M must be 64 or 128 for cta_group::1; got {m_rows}")
    return lane0, col0


def row_lane(m_rows: int, m: int, lane0: int = 0) -> int:
    """TMEM lane that holds row m of D (and of A for TS)."""
    if m_rows == 128:
        return m
    return lane0 + (m % 16) + 32 * (m // 16)


def d_cell(m_rows: int, m: int, n: int, d_tmem: int = 0) -> tuple[int, int]:
    """D[m][n] -> (lane, column)."""
    lane0, col0 = _lane_base(m_rows, d_tmem)
    if not 0 <= m < m_rows:
        raise LayoutError(f"row {m} outside M={m_rows}")
    return row_lane(m_rows, m, lane0), col0 + n


class AccumCell(NamedTuple):
    m: int
    n: int
    lane: int
    col: int

    @property
    def warp(self) -> int:
        """The warp (mod 4) whose lane quarter holds this row: the warp that must read it."""
        return self.lane // 32

    @property
    def lane_in_warp(self) -> int:
        return self.lane % 32

    def as_dict(self) -> dict[str, int]:
        return {"m": self.m, "n": self.n, "lane": self.lane, "col": self.col, "warp": self.warp,
                "lane_in_warp": self.lane_in_warp}


def accumulator_map(m_rows: int, n_cols: int, d_tmem: int = 0) -> list[AccumCell]:
    """Every D[m][n] of an M x N accumulator with its TMEM cell, row-major order."""
    bad = [p for p in check_mn(m_rows, n_cols) if p.severity == "error"]
    if bad:
        raise LayoutError("; ".join(p.message for p in bad))
    lane0, col0 = _lane_base(m_rows, d_tmem)
    if col0 + n_cols > COLUMNS:
        raise LayoutError(f"D needs columns {col0}..{col0 + n_cols - 1}, past TMEM's 512 columns")
    make = tuple.__new__  # tens of thousands of cells: skip NamedTuple's slower constructor
    return [make(AccumCell, (m, n, lane, col0 + n)) for m in range(m_rows)
            for lane in (row_lane(m_rows, m, lane0),) for n in range(n_cols)]


def a_cell(m_rows: int, m: int, k: int, a_tmem: int = 0, elem_bits: int = 16) -> tuple[int, int, int]:
    """TS form, A[m][k] -> (lane, column, bit_lo). K-major, packed along K; for 16-bit A even k sits
    in bits 15..0 ([INFERRED] in the spec)."""
    if elem_bits not in (16, 32):
        raise LayoutError(f"A in TMEM holds 16- or 32-bit elements for kind::f16/tf32; got {elem_bits} bits")
    lane0, col0 = _lane_base(m_rows, a_tmem)
    if not 0 <= m < m_rows:
        raise LayoutError(f"row {m} outside M={m_rows}")
    bit = k * elem_bits
    return row_lane(m_rows, m, lane0), col0 + bit // 32, bit % 32


def a_columns_per_mma() -> int:
    """One MMA consumes 256 bits of K: 8 TMEM columns, for both 16-bit (K=16) and tf32 (K=8)."""
    return 8
