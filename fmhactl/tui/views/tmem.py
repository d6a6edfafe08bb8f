"""The TMEM screen's views: one warp's tcgen05.ld/st, an SM100 variant's column plan, the accumulator."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fmhactl.services.layout_views import Problem
from fmhactl.tui.backend import in_range
from fmhactl.tui.gridmodel import GridCell, GridModel

# --------------------------------------------------------------------------------------------
# TMEM: one warp's tcgen05.ld / st (fmhactl.services.layout)
# --------------------------------------------------------------------------------------------

@dataclass
class TmemView:
    access: Any  # services.layout.TmemAccess
    instruction: str
    warp: int
    registers: int
    taddr: int
    problems: list[Problem]
    grid: GridModel
    first_cell: tuple[int, int]
    summary: str


def tmem_view(shape: str = "32x32b", num: int = 1, warp: int = 0, lane_base: int | None = None,
              col_base: int = 0, pack: bool = False) -> TmemView:
    from fmhactl.present import report
    from fmhactl.services import layout as svc

    taddr = None
    if lane_base is not None:
        in_range(lane_base, 0, 127, "lane base")
        in_range(col_base, 0, 511, "column base")
        taddr = (lane_base << 16) | col_base
    a = svc.tmem_access(shape, num, warp, col_base, pack, taddr)
    cells: dict[tuple[int, int], GridCell] = {}
    for c in a.cells:
        half = "" if c.nbits == 32 else ("l" if c.reg_bit_lo == 0 else "h")
        cells[(c.lane, c.col)] = GridCell(
            f"t{c.thread}.r{c.reg}{half}", c.thread, c.thread,
            f"thread {c.cta_thread} (lane {c.thread} of warp {a.warp}) r[{c.reg}] bits "
            f"{c.reg_bit_lo}..{c.reg_bit_lo + c.nbits - 1}")
    lanes = sorted(set(a.lanes) | set(range(128)))
    grid = GridModel(f"{a.instruction}, warp {a.warp}: cell = thread.register", lanes, list(a.cols), cells,
                     lambda r: f"L{r:<3}q{r // 32}" if r < 128 else f"L{r}!", lambda c: f"c{c}", 32, "lane")
    first = min((c.lane, c.col) for c in a.cells)
    summary = report.tmem_headline(a)  # the headline of `fmhactl layout tmem`
    return TmemView(a, a.instruction, a.warp, a.registers_per_thread, a.taddr, list(a.problems), grid, first,
                    summary)


def tmem_cell_report(view: TmemView, lane: int, col: int) -> list[str]:
    """Who holds (lane, col), its lane quarter, and whether this warp may touch it."""
    from fmhactl.services import layout as svc

    info = svc.tmem_cell(view.access, lane, col)
    lines = [f"TMEM lane {lane}, column {col} (lane quarter {info.lane_quarter})"]
    if info.owners:
        lines += [view.grid.cells[(lane, col)].detail]
    else:
        lines.append("not touched by this instruction")
    lo, hi = view.access.allowed_lanes
    lines.append(f"ok: warp {view.warp} (warp % 4 = {view.warp % 4}) may access lanes {lo}..{hi}" if info.allowed
                 else f"VIOLATED {info.violation}")
    return lines


def thread_cells(view: TmemView, thread: int) -> list[tuple[int, int]]:
    return sorted({(c.lane, c.col) for c in view.access.cells_of(thread)})


# --------------------------------------------------------------------------------------------
# TMEM column plan of an SM100 variant (the plan the kernel static_asserts against)
# --------------------------------------------------------------------------------------------

def sm100_variants() -> list[str]:
    from fmhactl.services import layout as svc

    return svc.sm100_plan_variants()


def tmem_plan(variant: str, head_dim: int = 128) -> Any:
    """The plan `fmhactl layout plan VARIANT --head-dim D` prints (services.layout.sm100_plan): the
    plan mode shows its lines as they are, so the TUI and the CLI cannot disagree."""
    from fmhactl.services import layout as svc

    return svc.sm100_plan(variant, head_dim)


# --------------------------------------------------------------------------------------------
# Accumulator
# --------------------------------------------------------------------------------------------

@dataclass
class AccumView:
    title: str
    lines: list[str]
    problems: list[Problem]
    grid: GridModel
    layout: Any  # services.layout.AccumLayout


def accum_view(m: int = 128, n: int = 64, cta_group: int = 1, col: int = 0) -> AccumView:
    """The accumulator and its 32x32b reader, as `fmhactl layout accum` computes and words them
    (services.layout.accumulator_layout, fmhactl.present.report.accum_reads / accum_lines)."""
    from fmhactl.services.layout_views import tmem
    from fmhactl.present import report
    from fmhactl.services import layout as svc

    in_range(col, 0, 511, "d-tmem column")
    acc = svc.accumulator_layout(m, n, cta_group, tmem.join_addr(0, col))
    per = acc.rows_per_cta
    reads = report.accum_reads(acc, "32x32b", None, sample_only=False)
    num = reads["num"]
    reader = {(r.m, r.n): r for r in reads["records"]}
    cells: dict[tuple[int, int], GridCell] = {}
    for e in acc.entries:
        r = reader.get((e.m - e.cta * per, e.n))
        who = (f"read by thread {r.thread} (warp {r.thread // 32}, lane {r.thread % 32}) r[{r.reg}] of "
               f"tcgen05.ld.32x32b.x{num} #{r.load}") if r else "no 32x32b reader"
        cta = f"CTA {e.cta}, " if cta_group == 2 else ""
        cells[(e.cta * 128 + e.lane, e.col)] = GridCell(f"{e.m},{e.n}", e.warp, e.m,
                                                        f"D[{e.m}][{e.n}] -> {cta}lane {e.lane}, column {e.col}; "
                                                        f"{who}")
    rows = list(range(128 * cta_group))
    label = (lambda r: f"L{r:<3}w{r // 32}") if cta_group == 1 else (lambda r: f"{r // 128}:L{r % 128:<3}")
    grid = GridModel(f"D {m}x{n} in TMEM (layout {acc.layout}): cell = row,col of D; colour = reading warp", rows,
                     list(range(col, col + n)), cells, label, lambda c: f"c{c}", 4, "lane" if cta_group == 1 else "cta:lane")
    # The CLI's words; its per-load sample lines are left to the grid, which shows every reader.
    lines = [line for line in report.accum_lines(acc, reads) if not line.startswith(("Read with", "  e.g."))]
    return AccumView(f"accumulator M={m} N={n} cta_group::{cta_group}", lines, list(acc.problems), grid, acc)


def accum_cell(view: AccumView, m: int, n: int) -> tuple[int, int]:
    """The grid cell of D[m][n]."""
    e = view.layout.entry(m, n)
    return e.cta * 128 + e.lane, e.col


def s_cell(m_rows: int, m: int, n: int) -> tuple[int, int]:
    """(lane, column) of S[m][n] in the Map screen's TMEM grid (S is an M x N accumulator at column 0)."""
    from fmhactl.services.layout_views import accum, tmem

    return accum.d_cell(m_rows, m, n, tmem.join_addr(0, 0))
