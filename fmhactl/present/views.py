"""Grids that the CLI prints and draws: one builder per layout command, shared by rich and SVG."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fmhactl.present import render
from fmhactl.layout.bitfields import BitTable
from fmhactl.present.render import Cell
from fmhactl.layout.smem import CORE_BYTES, TileLayout
from fmhactl.layout.tmem import Access


@dataclass
class Grid:
    title: str
    rows: list[int]
    cols: list[int]
    cells: dict[tuple[int, int], Cell]
    row_label: Callable[[int], str]
    col_label: Callable[[int], str]
    n_keys: int = 32
    corner: str = ""

    def clipped(self, max_rows: int, max_cols: int) -> tuple[Grid, str]:
        rows, cols = self.rows[:max_rows], self.cols[:max_cols]
        hidden = []
        if len(self.rows) > len(rows):
            hidden.append(f"{len(self.rows) - len(rows)} more rows")
        if len(self.cols) > len(cols):
            hidden.append(f"{len(self.cols) - len(cols)} more columns")
        clipped = Grid(self.title, rows, cols, self.cells, self.row_label, self.col_label, self.n_keys, self.corner)
        return clipped, ("... " + " and ".join(hidden) + " (see --json or --svg)") if hidden else ""

    def to_table(self) -> render.TextTable:
        """The grid as plain text rows (TSV in a pipe; the CLI colours it on a terminal)."""
        head = (self.corner,) + tuple(self.col_label(c) for c in self.cols)
        body = tuple((self.row_label(r),) + tuple(self.cells[(r, c)].label if (r, c) in self.cells else ""
                                                   for c in self.cols) for r in self.rows)
        return render.TextTable(self.title, head, body)

    def to_svg(self, subtitle: str = "") -> str:
        return render.svg_grid(self.title, self.rows, self.cols, self.cells, self.row_label, self.col_label,
                               self.n_keys, subtitle)


def tmem_grid(title: str, accesses: list[Access], warp: int) -> Grid:
    """Lanes down, columns across; each cell names the thread and register that owns it."""
    cells: dict[tuple[int, int], Cell] = {}
    for a in accesses:
        half = "" if a.nbits == 32 else (".lo" if a.reg_bit_lo == 0 else ".hi")
        cells[(a.lane, a.col)] = Cell(f"t{a.thread}.r{a.reg}{half}", a.thread,
                                      f"lane {a.lane}, column {a.col}: thread {32 * warp + a.thread} "
                                      f"(lane {a.thread} of warp {warp}) r[{a.reg}] "
                                      f"bits {a.reg_bit_lo}..{a.reg_bit_lo + a.nbits - 1}")
    rows = sorted({a.lane for a in accesses})
    cols = sorted({a.col for a in accesses})
    return Grid(title, rows, cols, cells, lambda r: f"L{r}", lambda c: f"c{c}", 32, "lane\\col")


def smem_grid(title: str, tile: TileLayout, view: str) -> Grid:
    """One cell per 16-byte chunk: K-major rows x K chunks, MN-major K rows x MN chunks."""
    per = CORE_BYTES // tile.elem_bytes
    cells: dict[tuple[int, int], Cell] = {}
    if tile.major == "K":
        rows, cols = list(range(tile.rows)), list(range(tile.cols // per))
        first = lambda r, c: tile.place(r, c * per)  # noqa: E731
        row_label, col_label = (lambda r: f"m{r}"), (lambda c: f"k{c * per}")
        corner = "row\\k"
    else:
        rows, cols = list(range(tile.cols)), list(range(tile.rows // per))
        first = lambda r, c: tile.place(c * per, r)  # noqa: E731
        row_label, col_label = (lambda r: f"k{r}"), (lambda c: f"mn{c * per}")
        corner = "k\\mn"
    n_keys = 8
    for r in rows:
        for c in cols:
            p = first(r, c)
            if view == "bank":
                label, key = f"b{p.bank}-{p.bank + 3}", p.chunk
            elif view == "core":
                label, key, n_keys = f"{p.core_row},{p.core_col}", p.core_row * 8 + p.core_col, 32
            elif view == "chunk":
                label, key = f"{p.chunk}", p.chunk
            else:
                label, key = f"{p.addr - tile.base:#06x}", p.chunk
            cells[(r, c)] = Cell(label, key, f"elements ({p.row}, {p.k}..{p.k + per - 1} along "
                                 f"{'K' if tile.major == 'K' else 'MN'}): byte {p.addr - tile.base} "
                                 f"(logical {p.logical - tile.base}), banks {p.bank}..{p.bank + 3}, "
                                 f"core matrix ({p.core_row}, {p.core_col})")
    return Grid(title, rows, cols, cells, row_label, col_label, n_keys, corner)


def accum_grid(title: str, m_rows: int, n_cols: int, lane0: int, col0: int, col_block: int) -> Grid:
    """TMEM lanes (in blocks of 16) down, column blocks across; cells name the D rows and columns."""
    from fmhactl.layout.accum import row_lane

    cells: dict[tuple[int, int], Cell] = {}
    rows = list(range(0, 128, 16))
    cols = list(range(col0, col0 + n_cols, col_block))
    for m0 in range(0, m_rows, 16):
        lane = row_lane(m_rows, m0, lane0)
        block = lane - lane % 16
        for c in cols:
            n0 = c - col0
            n1 = min(n0 + col_block, n_cols) - 1
            cells[(block, c)] = Cell(f"m{m0}-{m0 + 15} n{n0}-{n1}", lane // 32,
                                     f"lanes {lane}..{lane + 15}, columns {c}..{c + n1 - n0}: D rows {m0}..{m0 + 15}, "
                                     f"columns {n0}..{n1}; read by warp {lane // 32} (mod 4)")
    return Grid(title, rows, cols, cells, lambda r: f"L{r}-{r + 15}", lambda c: f"c{c}", 4, "lanes\\cols")


def map_grid(title: str, records: list[Any], max_rows: int = 64) -> Grid:
    """The destination seen from the consumer side, coloured by the producer thread that writes it.

    Shared memory: one row per 128-byte line, one cell per physical 16-byte chunk (the swizzle is
    visible). TMEM: lanes down, columns across, cells name thread.register.
    """
    cells: dict[tuple[int, int], Cell] = {}
    if records and records[0].addr >= 0:
        chunks: dict[tuple[int, int], list[Any]] = {}
        for r in records:
            chunks.setdefault((r.addr // 128, (r.addr // 16) % 8), []).append(r)
        for key, rs in chunks.items():
            ns = sorted(x.n for x in rs)
            ms = sorted({x.m for x in rs})
            threads = sorted({x.thread for x in rs})
            label = f"m{ms[0]} n{ns[0]}-{ns[-1]}" if len(ms) == 1 else f"m{ms[0]}-{ms[-1]}"
            cells[key] = Cell(label, threads[0] % 32,
                              f"bytes {16 * (key[0] * 8 + key[1])}..+15: P rows {ms}, columns {ns[0]}..{ns[-1]}; "
                              f"written by thread(s) {threads}")
        lines = sorted({k[0] for k in cells})[:max_rows]
        return Grid(title, lines, list(range(8)), cells, lambda line: f"{128 * line:#07x}",
                    lambda c: f"chunk {c}", 32, "line\\chunk")
    for r in records:
        key = (r.tmem_lane, r.tmem_col)
        prev = cells.get(key)
        label = f"t{r.thread}.r{r.reg}"
        cells[key] = Cell(label if prev is None else prev.label + "+", r.thread % 32,
                          f"TMEM lane {r.tmem_lane} column {r.tmem_col} bits {r.tmem_bit}..: P[{r.m}][{r.n}] from "
                          f"thread {r.thread} r[{r.reg}]")
    lanes = sorted({k[0] for k in cells})[:max_rows]
    cols = sorted({k[1] for k in cells})[:32]
    return Grid(title, lanes, cols, cells, lambda lane: f"L{lane}", lambda c: f"c{c}", 32, "lane\\col")


def table_fields(table: BitTable, word: int, problems: Any = ()) -> list[render.BitField]:
    """The register diagram of any declared word: one box per field of its table, bad ones red."""
    bad = {p.code for p in problems if p.severity == "error"}
    by_name = {f.name: f for f in table.fields}
    return [render.BitField(r.lo, r.width, by_name[r.name].short, _short_value(by_name[r.name], word),
                            r.bad and by_name[r.name].severity == "error" or by_name[r.name].problem_code in bad)
            for r in table.rows(word)]


def _short_value(f: Any, word: int) -> str:
    raw = f.get(word)
    if f.allowed is not None:
        return str(f.allowed.get(raw, f"{raw}?"))
    if f.unit_shift:
        return f"{raw << f.unit_shift}{(' ' + f.unit) if f.unit else ''}"
    return str(raw)


def smem_desc_fields(d: Any) -> list[render.BitField]:
    from fmhactl.layout.fields import SMEM_DESC

    return table_fields(SMEM_DESC, d.value, d.problems)


def wgmma_desc_fields(w: Any) -> list[render.BitField]:
    from fmhactl.layout.fields import WGMMA_DESC

    return table_fields(WGMMA_DESC, w.value, w.problems)


def idesc_fields(d: Any) -> list[render.BitField]:
    from fmhactl.layout.fields import INSTR_DESC

    return table_fields(INSTR_DESC, d.value, d.problems)


def banks_grid(title: str, lanes: list[tuple[int, int, int, int]], vec: int) -> Grid:
    """Lanes down, the 32 banks across: which 4-byte words each lane touches (colour = word's 128-B line)."""
    cells: dict[tuple[int, int], Cell] = {}
    for t, row, k, addr in lanes:
        for word in range(addr // 4, (addr + max(vec, 1) - 1) // 4 + 1):
            cells[(t, word % 32)] = Cell(f"{word * 4:#x}", word // 32, f"lane {t}: element ({row}, {k}), "
                                         f"byte {word * 4}, bank {word % 32}")
    return Grid(title, [t for t, *_ in lanes], list(range(32)), cells, lambda t: f"t{t}", lambda b: f"b{b}", 16,
                "lane\\bank")


def tma_box_grid(p: Any) -> tuple[Grid | None, str]:
    """How one TMA load lays the box out in shared memory (destination aligned to the swizzle repeat).

    Only the documented cases are drawn: no interleave, no swizzle or 32/64/128B with the inner box
    exactly the swizzle span (a narrower box's row pitch is undocumented).
    """
    from fmhactl.layout import tensormap as tm
    from fmhactl.layout.smem import SW32, SW64, SW128

    s = tm.box_summary(p)
    if s is None or p.interleave != 0 or not tm.is_valid(p):
        return None, "no picture: the parameters are invalid or interleaved"
    swz = {0: None, 1: SW32, 2: SW64, 3: SW128}.get(p.swizzle, "other")
    if swz == "other":
        return None, "no picture: the 128B_ATOM_* swizzles' byte patterns are not modelled"
    inner = int(s.inner_box_bytes)
    if swz is not None and inner != swz.width:
        return None, f"no picture: a {inner}-byte inner box under a {swz.width}-byte swizzle has an undocumented pitch"
    rows = 1
    for n in s.elements_per_dim[1:]:
        rows *= n
    per_chunk = max(1, 128 // s.element_bits)
    cells: dict[tuple[int, int], Cell] = {}
    for r in range(min(rows, 64)):
        for c in range(inner // 16):
            logical = r * inner + 16 * c
            phys = swz.apply(logical) if swz is not None else logical
            line, chunk = divmod(phys, max(inner, 16))
            cells[(line, chunk // 16)] = Cell(f"r{r} e{c * per_chunk}", r % 8,
                                              f"box row {r}, elements {c * per_chunk}..{(c + 1) * per_chunk - 1} "
                                              f"-> smem byte {phys}")
    lines = sorted({k[0] for k in cells})
    cols = list(range(inner // 16))
    title = f"TMA box in shared memory: {inner} B rows, {cuda_swizzle(p.swizzle)}"
    return Grid(title, lines, cols, cells, lambda line: f"{line * inner:#06x}", lambda c: f"+{16 * c}", 8,
                "row\\chunk"), ""


def cuda_swizzle(value: int) -> str:
    from fmhactl.layout import tensormap as tm

    try:
        return tm.cuda_name(tm.Swizzle(value))
    except ValueError:
        return str(value)
