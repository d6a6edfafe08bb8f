"""The TUI's one door into the model and the services.

Every number a screen shows comes through this module: the screens never import fmhactl.layout,
fmhactl.results or fmhactl.status themselves. When the service layer (`fmhactl.services`) takes
over a capability, only this file changes. Functions here take plain values (what a form holds),
raise `FmhactlError` (usually `BadInput`) with a one-line message for bad input, and return view
records (dataclasses of text and `GridModel`s) that the widgets draw as they are.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fmhactl.errors import BadInput, FmhactlError, MissingEnvironment
from fmhactl.layout.common import Problem
from fmhactl.tui.gridmodel import GridCell, GridModel

__all__ = ["BadInput", "FmhactlError", "MissingEnvironment", "Problem"]

TMEM_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
TMEM_NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
SWIZZLES = ("none", "32B", "64B", "128B", "128B_base32B")
MAJORS = ("K", "MN")
SMEM_DTYPES = ("bf16", "f16", "tf32", "f32", "e4m3")
DESCRIPTOR_KINDS = ("idesc", "smem", "wgmma")
MAX_TILE_ELEMENTS = 256 * 512  # cap before work: a typo must not build a million-cell grid


def parse_int(text: str | int, what: str) -> int:
    from fmhactl.layout.common import parse_int as _parse

    return _parse(text, what)


def _range(value: int, lo: int, hi: int, what: str) -> int:
    if not lo <= value <= hi:
        raise BadInput(f"{what} must be {lo}..{hi}; got {value}")
    return value


def key_colour(key: int, n_keys: int) -> str:
    """The colour the CLI's pictures give a key (thread, bank group, warp), so both agree."""
    from fmhactl.layout.render import colour

    return colour(key, n_keys)


def problem_lines(problems: list[Problem]) -> list[tuple[str, str]]:
    """(severity, 'code: message') per problem, as the CLI prints them."""
    return [(p.severity, f"{p.code}: {p.message}") for p in problems]


# --------------------------------------------------------------------------------------------
# TMEM: one warp's tcgen05.ld / st
# --------------------------------------------------------------------------------------------

@dataclass
class TmemView:
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
    from fmhactl.layout import tmem

    tmem.check_shape(shape, num)
    _range(warp, 0, 31, "warp (a CTA has at most 32 warps)")
    lane0 = 32 * (warp % 4) if lane_base is None else _range(lane_base, 0, 127, "lane base")
    _range(col_base, 0, 511, "column base")
    addr = tmem.join_addr(lane0, col_base)
    accesses = tmem.ld_map(shape, num, pack, addr)
    problems = tmem.access_problems(accesses, warp)
    regs = tmem.regs_per_thread(shape, num)
    instr = f"tcgen05.ld.sync.aligned.{shape}.x{num}{'.pack::16b' if pack else ''}.b32"
    cells: dict[tuple[int, int], GridCell] = {}
    for a in accesses:
        half = "" if a.nbits == 32 else ("l" if a.reg_bit_lo == 0 else "h")
        cells[(a.lane, a.col)] = GridCell(
            f"t{a.thread}.r{a.reg}{half}", a.thread, a.thread,
            f"thread {32 * warp + a.thread} (lane {a.thread} of warp {warp}) r[{a.reg}] bits "
            f"{a.reg_bit_lo}..{a.reg_bit_lo + a.nbits - 1}")
    lanes = sorted({a.lane for a in accesses} | set(range(128)))
    cols = sorted({a.col for a in accesses})
    grid = GridModel(f"{instr}, warp {warp}: cell = thread.register", lanes, cols, cells,
                     lambda r: f"L{r:<3}q{r // 32}" if r < 128 else f"L{r}!", lambda c: f"c{c}", 32, "lane")
    first = min((a.lane, a.col) for a in accesses)
    summary = (f"{instr}  warp {warp}  taddr 0x{addr:08x}: {regs} registers per thread, lanes "
               f"{min(a.lane for a in accesses)}..{max(a.lane for a in accesses)}, columns {cols[0]}..{cols[-1]}")
    return TmemView(instr, warp, regs, addr, problems, grid, first, summary)


def tmem_cell_report(view: TmemView, lane: int, col: int) -> list[str]:
    """Who holds (lane, col), its lane quarter, and whether this warp may touch it."""
    from fmhactl.layout import tmem

    cell = view.grid.cell(lane, col)
    lines = [f"TMEM lane {lane}, column {col} (lane quarter {lane // 32})"]
    lines.append(cell.detail if cell else "not touched by this instruction")
    allowed = tmem.warp_quarter_lanes(view.warp)
    if lane in allowed:
        lines.append(f"ok: warp {view.warp} (warp % 4 = {view.warp % 4}) may access lanes "
                     f"{allowed.start}..{allowed.stop - 1}")
    else:
        lines.append(f"lane-quarter violation: warp {view.warp} (warp % 4 = {view.warp % 4}) may only access lanes "
                     f"{allowed.start}..{allowed.stop - 1}; lane {lane} belongs to warps {lane // 32}, "
                     f"{lane // 32 + 4}, ... (warp % 4 = {lane // 32})")
    return lines


def thread_cells(grid: GridModel, group: int) -> list[tuple[int, int]]:
    return sorted(k for k, c in grid.cells.items() if c.group == group)


# --------------------------------------------------------------------------------------------
# TMEM column plan of an SM100 variant
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlanRegion:
    name: str
    first: int
    columns: int
    note: str


@dataclass
class PlanView:
    variant: str
    head_dim: int
    regions: list[PlanRegion]
    used: int
    allocated: int
    total: int
    problems: list[str]
    source: str


def sm100_variants() -> list[str]:
    from fmhactl.registry import load_registry

    return [name for name, v in load_registry().items() if v.launcher == "sm100"]


def tmem_plan_view(variant: str, head_dim: int = 128) -> PlanView:
    """The TMEM column plan the kernel uses for (variant, head dim), from the plan declaration."""
    from fmhactl.config import AttnConfig
    from fmhactl.registry import get_variant
    from fmhactl.runtime import launchers

    v = get_variant(variant)
    if v.launcher != "sm100":
        raise BadInput(f"{variant} is not an SM100 variant (it has no TMEM plan)")
    _range(head_dim, 8, 512, "head dim")
    plan = launchers.sm100_plan(AttnConfig(head_dim=head_dim), dict(v.switches))
    # Column offsets of fmha_sm100::Plan<D> (kernels/sm100/fmha_sm100.cuh): S at 0, O after S,
    # P (TMEM-P variants) after O.
    regions = [PlanRegion("S", 0, plan.block_n, f"QK^T scores, {plan.block_n} fp32 columns (one per key)"),
               PlanRegion("O", plan.block_n, plan.head_dim, f"output accumulator, {plan.head_dim} fp32 columns")]
    if not plan.p_in_smem:
        regions.append(PlanRegion("P", plan.block_n + plan.head_dim, plan.block_n // 2,
                                  f"P as 16-bit pairs ({plan.block_n} keys in {plan.block_n // 2} columns), "
                                  "A operand of the TS PV MMA"))
    problems = []
    reason = plan.limit_reason()
    if reason:
        problems.append(reason)
    alloc = plan.tmem_alloc if plan.tmem_columns <= launchers.TMEM_COLUMNS else plan.tmem_columns
    return PlanView(variant, head_dim, regions, plan.tmem_columns, alloc, launchers.TMEM_COLUMNS, problems,
                    "fmhactl.runtime.launchers.Sm100Plan (mirror of fmha_sm100::Plan<D>)")


# --------------------------------------------------------------------------------------------
# Accumulator
# --------------------------------------------------------------------------------------------

@dataclass
class AccumView:
    title: str
    lines: list[str]
    problems: list[Problem]
    grid: GridModel


def accum_view(m: int = 128, n: int = 64, cta_group: int = 1, col: int = 0) -> AccumView:
    from fmhactl.layout import accum, mapping, tmem

    if cta_group not in (1, 2):
        raise BadInput(f"cta_group must be 1 or 2; got {cta_group}")
    if cta_group == 2 or m == 256:
        raise BadInput(f"M={m} with cta_group::{cta_group} is outside the layout model: it covers cta_group::1 "
                       "(M = 64 or 128) only; an M=256 MMA is two CTAs of M=128 layout D each")
    _range(col, 0, 511, "d-tmem column")
    problems = accum.check_mn(m, n)
    if any(p.severity == "error" for p in problems):
        raise BadInput("; ".join(p.message for p in problems if p.severity == "error"))
    cells_ = accum.accumulator_map(m, n, tmem.join_addr(0, col))
    per = tmem.columns_per_half("32x32b", 1)
    num = max(k for k in tmem.NUMS if k * per <= n and k <= 128)
    reads = mapping.producer_values(mapping.Producer("32x32b", num, False, m, n, col, 0))
    reader = {(r.m, r.n): r for r in reads}
    cells: dict[tuple[int, int], GridCell] = {}
    for c in cells_:
        r = reader.get((c.m, c.n))
        who = (f"read by thread {r.thread} (warp {r.thread // 32}, lane {r.thread % 32}) r[{r.reg}] of "
               f"tcgen05.ld.32x32b.x{num} #{r.load}") if r else "no 32x32b reader"
        cells[(c.lane, c.col)] = GridCell(f"{c.m},{c.n}", c.lane // 32, c.m,
                                          f"D[{c.m}][{c.n}] -> lane {c.lane}, column {c.col}; {who}")
    layout = "D" if m == 128 else "F"
    lines = [f"M={m}, N={n}, cta_group::1: layout {layout}. " + (
        f"D[m][n] -> lane m, column {col}+n: columns {col}..{col + n - 1} all used, none skipped."
        if m == 128 else f"D[m][n] -> lane m%16 + 32*(m/16), column {col}+n: 16 rows per lane quarter, "
                         "lanes 16-31 of each quarter free for a second M=64 tile."),
             f"Allocate {tmem.min_alloc_columns(col + n)} columns. Warp w reads rows "
             + ("32w..32w+31" if m == 128 else "16w..16w+15") + f" with tcgen05.ld.32x32b.x{num}."]
    if m == 128 and n == 64:
        lines.append("Columns 32-35 / 48-51 are not skipped by the hardware: if they look skipped, decode the "
                     "instruction descriptor (M>>4 belongs at bits 24-28; at bit 23 it turns M=128 into M=64).")
    grid = GridModel(f"D {m}x{n} in TMEM (layout {layout}): cell = row,col of D; colour = reading warp",
                     list(range(128)), list(range(col, col + n)), cells, lambda r: f"L{r:<3}w{r // 32}",
                     lambda c: f"c{c}", 4, "lane")
    return AccumView(f"accumulator M={m} N={n}", lines, problems, grid)


def accum_cell(m_rows: int, n_cols: int, m: int, n: int, col: int = 0) -> tuple[int, int]:
    """(lane, column) of D[m][n]."""
    from fmhactl.layout import accum, tmem

    if not 0 <= n < n_cols:
        raise BadInput(f"column {n} outside N={n_cols}")
    return accum.d_cell(m_rows, m, n, tmem.join_addr(0, col))


# --------------------------------------------------------------------------------------------
# Shared-memory tiles, their descriptor, and access patterns
# --------------------------------------------------------------------------------------------

@dataclass
class SmemView:
    tile: Any
    header: str
    grid: GridModel
    problems: list[Problem]
    slices: list[tuple[int, int, int, int]]  # (kb, k0, start, descriptor)
    kb: int
    descriptor: int
    descriptor_report: list[str]
    descriptor_problems: list[Problem]
    pattern_report: list[str]


def _chunk_key(tile: Any, addr: int) -> tuple[int, int]:
    rel = addr - tile.base
    return rel // 128, (rel // 16) % 8


def smem_view(major: str = "K", swizzle: str = "128B", dtype: str = "bf16", rows: int = 128, cols: int = 64,
              base: int = 0, lbo: int | None = None, sbo: int | None = None, kb: int = 0,
              descriptor: int | None = None, row_expr: str = "t", k_expr: str = "0", vec: int = 16,
              pattern: str = "expr", element: tuple[int, int] | None = None) -> SmemView:
    """The tile as stored (one cell per physical 16-byte chunk, colour = its 4 banks), the descriptor
    of MMA k-block `kb` (or `descriptor` when the user edited it) with the elements it addresses
    marked, and the bank conflicts of an access pattern per phase."""
    from fmhactl.layout import banks, smem
    from fmhactl.layout.descriptors import decode_smem_desc, element_address

    _range(rows, 1, 4096, "rows")
    _range(cols, 1, 4096, "cols")
    if rows * cols > MAX_TILE_ELEMENTS:
        raise BadInput(f"a {rows} x {cols} tile has {rows * cols} elements; the TUI draws at most "
                       f"{MAX_TILE_ELEMENTS}")
    tile = smem.make_tile(major, swizzle, rows, cols, dtype, lbo, sbo, None, base)
    problems = tile.problems()
    e = tile.elem_bytes
    per = smem.CORE_BYTES // e
    cells: dict[tuple[int, int], GridCell] = {}
    for p in tile.places():
        if (p.k if tile.major == "K" else p.row) % per:
            continue  # one cell per 16-byte chunk: its first element names it
        key = _chunk_key(tile, p.addr)
        span = f"k {p.k}..{p.k + per - 1}" if tile.major == "K" else f"rows {p.row}..{p.row + per - 1}"
        cells[key] = GridCell(f"{p.row},{p.k}", key[1], p.row,
                              f"byte {p.addr - tile.base:#x} (logical {p.logical - tile.base:#x}): row {p.row}, {span}; "
                              f"banks {p.bank}..{p.bank + 3}, core matrix ({p.core_row}, {p.core_col})")
    slices = [(s.kb, s.k0, s.start, s.descriptor()) for s in tile.mma_slices()]
    kb = max(0, min(kb, len(slices) - 1))
    value = slices[kb][3] if descriptor is None else descriptor
    d = decode_smem_desc(value, tile.major)
    report = [f"descriptor 0x{value:016x} for MMA k-block {kb} (k {slices[kb][1]}..{slices[kb][1] + tile.mma_k - 1}); "
              f"tile's own: 0x{slices[kb][3]:016x}"]
    marked: set[tuple[int, int]] = set()
    if d.ok:
        k0 = slices[kb][1]
        hits = wrong = outside = 0
        first_wrong = ""
        wrong_keys: set[tuple[int, int]] = set()
        for r in range(tile.rows):
            for kk in range(min(tile.mma_k, tile.cols - k0)):
                try:
                    addr = element_address(value, tile.major, e, r, kk)
                except FmhactlError:
                    outside += 1
                    continue
                key = _chunk_key(tile, addr)
                marked.add(key)
                hit = tile.element_at(addr)
                if hit == (r, k0 + kk):
                    hits += 1
                else:
                    wrong += 1
                    wrong_keys.add(key)
                    if not first_wrong:
                        first_wrong = (f"A[{r}][{kk}] (tile element ({r}, {k0 + kk})) is read from byte "
                                       f"{addr - tile.base:#x}, which holds "
                                       + (f"element {hit}" if hit else "no element of this tile"))
        total = hits + wrong + outside
        report.append(f"the MMA reads {total} elements: {hits} from the right place, {wrong} from the wrong place"
                      + (f", {outside} unaddressable" if outside else ""))
        if first_wrong:
            report.append("first wrong: " + first_wrong)
        cells = {k: (GridCell(c.label, c.key, c.group, c.detail, c.heat, k in wrong_keys)) for k, c in cells.items()}
    else:
        report.append("the descriptor has errors: the MMA would not read this tile")
    pattern_report = _pattern_report(tile, pattern, row_expr, k_expr, vec, banks)
    grid = GridModel(f"{tile.major}-major {tile.swizzle.name} {tile.dtype} {rows}x{cols}: one cell per 16-B chunk "
                     "(row,k of its first element), colour = bank group", sorted({k[0] for k in cells}),
                     list(range(8)), cells, lambda line: f"{line * 128:05x}",
                     lambda c: f"b{4 * c}-{4 * c + 3}", 8, "byte", marked)
    header = (f"{tile.major}-major, swizzle {tile.swizzle.name}, {tile.dtype} ({e} B), {rows} x {cols}, base "
              f"{tile.base:#x}; LBO {tile.lbo} B, SBO {tile.sbo} B; footprint {tile.footprint()} B")
    if element is not None:
        p = tile.place(*element)
        header += (f"\nelement (row {p.row}, k {p.k}): byte {p.addr - tile.base:#x}, bank {p.bank}, chunk {p.chunk}, "
                   f"core matrix ({p.core_row}, {p.core_col})")
    return SmemView(tile, header, grid, problems, slices, kb, value, report, list(d.problems), pattern_report)


def smem_element_cell(view: SmemView, row: int, k: int) -> tuple[int, int]:
    """The grid cell (128-B line, chunk) that holds element (row, k)."""
    return _chunk_key(view.tile, view.tile.offset(row, k))


def _pattern_report(tile: Any, pattern: str, row_expr: str, k_expr: str, vec: int, banks: Any) -> list[str]:
    if pattern == "pstore":
        return _pstore_report(tile)
    row_tree, k_tree = banks.compile_index_expr(row_expr), banks.compile_index_expr(k_expr)
    addrs: list[int | None] = []
    for t in range(32):
        r, kk = banks.eval_index_expr(row_tree, t=t, i=0), banks.eval_index_expr(k_tree, t=t, i=0)
        addrs.append(tile.offset(r, kk))
    per = banks.threads_per_phase(vec)
    lines = [f"warp access: lane t reads {vec} B at (row {row_expr}, k {k_expr}); {32 // per} phase(s) of {per} lanes"]
    total = ideal = 0
    for start in range(0, 32, per):
        only = [a if start <= t < start + per else None for t, a in enumerate(addrs)]
        rep = banks.wavefronts(only, vec)
        total, ideal = total + rep.wavefronts, ideal + rep.ideal
        lines.append(f"  phase {start // per} (lanes {start}..{start + per - 1}): {rep.wavefronts} wavefront(s)"
                     + (f", bank {rep.worst_bank} serves {rep.worst_degree} words" if rep.conflicts else ", no conflict"))
    lines.append(f"total {total} wavefronts, ideal {ideal}: "
                 + ("conflict-free" if total == ideal else f"{total - ideal} extra ({total / ideal:.2f}x)"))
    return lines


def _pstore_report(tile: Any) -> list[str]:
    """The SMEM-P store: P from a 32x32b read of S, stored by warps 0-3 into this tile (as the PV A operand)."""
    from fmhactl.layout import mapping

    if tile.rows not in (64, 128):
        raise BadInput("the P-store pattern needs rows = M = 64 or 128")
    prod = mapping.Producer("32x32b", 8 if tile.cols >= 8 else 1, False, tile.rows, tile.cols)
    cons = mapping.Consumer("smem", tile=tile, dtype=tile.dtype)
    records, _ = mapping.map_values(prod, cons)
    plan = mapping.plan_smem_stores(records, cons)
    lines = [f"tcgen05.ld.32x32b.x{prod.num} -> st.shared of P: {plan.note}"]
    for w, rep in plan.per_warp.items():
        lines.append(f"  warp {w}: {rep.wavefronts} wavefronts for {plan.instructions} stores (ideal {rep.ideal})"
                     + (f", {rep.conflicts} extra; worst bank {rep.worst_bank} x{rep.worst_degree}"
                        if rep.conflicts else ", conflict-free"))
    return lines


# --------------------------------------------------------------------------------------------
# Descriptors: one field table each (until the services' field tables land)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FieldRow:
    name: str
    lo: int
    width: int
    raw: int
    shown: str
    bad: bool
    unit: str  # how an edit is read: "bytes" (>>4), "n" (>>3), "m" (>>4), "swizzle", "format", "raw"


@dataclass
class DescriptorView:
    kind: str
    value: int
    bits: int
    fields: list[FieldRow]
    problems: list[Problem]
    verdict: str


_UNITS = {
    "smem": {"start": "bytes", "LBO": "bytes", "SBO": "bytes", "layout": "swizzle-umma"},
    "wgmma": {"start": "bytes", "LBO": "bytes", "SBO": "bytes", "layout": "swizzle-wgmma"},
    "idesc": {"N>>3": "n", "M>>4": "m", "A fmt": "ab", "B fmt": "ab", "D": "d", "A": "major", "B": "major"},
}


def parse_descriptor_text(kind: str, text: str) -> int:
    """A hex (or decimal) descriptor value; the error names the descriptor and the rule."""
    if kind not in DESCRIPTOR_KINDS:
        raise BadInput(f"unknown descriptor kind {kind!r} (one of {', '.join(DESCRIPTOR_KINDS)})")
    what = {"idesc": "instruction descriptor", "smem": "shared-memory descriptor", "wgmma": "wgmma descriptor"}[kind]
    stripped = text.strip()
    if not stripped:
        raise BadInput(f"{what}: empty; paste a value such as 0x08400010")
    value = parse_int(stripped if stripped.lower().startswith(("0x", "0b", "0o")) or not
                      any(ch in "abcdefABCDEF" for ch in stripped) else "0x" + stripped, what)
    limit = 32 if kind == "idesc" else 64
    if not 0 <= value < 1 << limit:
        raise BadInput(f"{what}: 0x{value:x} does not fit in {limit} bits")
    return value


def descriptor_view(kind: str, value: int, major: str | None = None) -> DescriptorView:
    """Decode with the same functions (and messages) as `fmhactl layout ... decode`."""
    from fmhactl.layout import views

    if kind == "idesc":
        from fmhactl.layout import idesc

        d = idesc.decode(value)
        bitfields, bits = views.idesc_fields(d), 32
        f = d.as_dict()
        verdict = (f"valid: {d.m}x{d.n}x{d.k} {f['a_format']}x{f['b_format']} -> {f['d_format']} (kind::{d.kind})"
                   if d.ok else "INVALID for tcgen05.mma")
        problems = list(d.problems)
    elif kind == "smem":
        from fmhactl.layout.descriptors import decode_smem_desc

        s = decode_smem_desc(value, major)
        bitfields, bits, problems = views.smem_desc_fields(s), 64, list(s.problems)
        verdict = "valid for tcgen05.mma" if s.ok else "INVALID for tcgen05.mma"
    elif kind == "wgmma":
        from fmhactl.layout.wgmma import decode_wgmma_desc

        w = decode_wgmma_desc(value)
        bitfields, bits, problems = views.wgmma_desc_fields(w), 64, list(w.problems)
        verdict = "valid for wgmma" if w.ok else "INVALID for wgmma"
    else:
        raise BadInput(f"unknown descriptor kind {kind!r} (one of {', '.join(DESCRIPTOR_KINDS)})")
    units = _UNITS[kind]
    rows = [FieldRow(b.name, b.lo, b.width, (value >> b.lo) & ((1 << b.width) - 1), b.value, bool(b.bad),
                     units.get(b.name, "raw")) for b in bitfields]
    return DescriptorView(kind, value, bits, rows, problems, verdict)


def set_descriptor_field(kind: str, value: int, field_index: int, text: str) -> int:
    """The value with one field replaced; `text` is read in the field's unit (bytes for addresses,
    N or M for the shape fields, names for formats and layouts, else the raw bits)."""
    from fmhactl.layout import idesc, smem

    view = descriptor_view(kind, value)
    if not 0 <= field_index < len(view.fields):
        raise BadInput(f"no field {field_index}")
    f = view.fields[field_index]
    t = text.strip()
    if not t:
        raise BadInput(f"{f.name}: empty value")
    if f.unit == "bytes":
        nbytes = parse_int(t.removesuffix("B").strip(), f.name)
        if nbytes < 0 or nbytes % 16:
            raise BadInput(f"{f.name} must be a non-negative multiple of 16 bytes; got {nbytes}")
        raw = nbytes >> 4
    elif f.unit == "n":
        n = parse_int(t.removeprefix("N=").strip(), "N")
        if n % 8:
            raise BadInput(f"N must be a multiple of 8 (the field holds N>>3); got {n}")
        raw = n >> 3
    elif f.unit == "m":
        m = parse_int(t.removeprefix("M=").strip(), "M")
        if m % 16:
            raise BadInput(f"M must be a multiple of 16 (the field holds M>>4); got {m}")
        raw = m >> 4
    elif f.unit in ("swizzle-umma", "swizzle-wgmma"):
        try:
            raw = parse_int(t, f.name)
        except FmhactlError:
            mode = smem.parse_swizzle(t)
            code = mode.umma_code if f.unit == "swizzle-umma" else mode.wgmma_code
            if code is None:
                raise BadInput(f"wgmma has no {mode.name} layout") from None
            raw = code
    elif f.unit == "ab":
        raw = idesc.AB_FORMATS[t.lower()] if t.lower() in idesc.AB_FORMATS else parse_int(t, f.name)
    elif f.unit == "d":
        raw = idesc.D_FORMATS[t.lower()] if t.lower() in idesc.D_FORMATS else parse_int(t, f.name)
    elif f.unit == "major":
        raw = {"k": 0, "mn": 1}[t.lower()] if t.lower() in ("k", "mn") else parse_int(t, f.name)
    else:
        raw = parse_int(t, f.name)
    if not 0 <= raw < 1 << f.width:
        raise BadInput(f"{f.name} is a {f.width}-bit field (bits {f.lo}..{f.lo + f.width - 1}); {t} does not fit")
    mask = ((1 << f.width) - 1) << f.lo
    return (value & ~mask) | (raw << f.lo)


# --------------------------------------------------------------------------------------------
# TMA tensor maps
# --------------------------------------------------------------------------------------------

TMA_FIELDS = (("dtype", "tensorDataType", "bf16"), ("rank", "tensorRank", "3"),
              ("dims", "globalDim (innermost first)", "128,128,1"),
              ("strides", "globalStrides (bytes, rank-1)", "256,32768"), ("box", "boxDim", "16,128,1"),
              ("elem_strides", "elementStrides", "1,1,1"), ("swizzle", "swizzle", "none"),
              ("interleave", "interleave", "none"), ("l2", "l2Promotion", "none"), ("oob", "oobFill", "none"),
              ("address", "globalAddress", "0x7f0000000000"))


@dataclass
class TmaView:
    c_call: str
    rules: list[tuple[str, str, str, str, str]]  # rule, param, requirement, status, detail
    valid: bool
    summary: str
    params: Any


def _int_list(text: str, what: str) -> list[int]:
    body = text.strip().strip("{}[]()")
    if not body:
        return []
    return [parse_int(x, what) for x in body.replace(" ", ",").split(",") if x.strip()]


def tma_params(form: dict[str, str]) -> Any:
    from fmhactl.layout import tensormap as tm

    get = lambda key: form.get(key, "").strip()  # noqa: E731
    if not get("dtype") or not get("dims") or not get("box"):
        raise BadInput("dtype, dims and box are required")
    dims = _int_list(get("dims"), "dims")
    rank = parse_int(get("rank"), "rank") if get("rank") else len(dims)
    if len(dims) > 16 or rank > 16:
        raise BadInput("at most 16 dimensions (the driver takes 1..5)")
    return tm.make_params(get("dtype"), dims, _int_list(get("strides"), "strides"), _int_list(get("box"), "box"),
                          _int_list(get("elem_strides"), "element strides") if get("elem_strides") else None,
                          rank, parse_int(get("address") or "0x7f0000000000", "address"),
                          get("interleave") or "none", get("swizzle") or "none", get("l2") or "none",
                          get("oob") or "none")


def tma_view(form: dict[str, str]) -> TmaView:
    """The rules of `fmhactl tma check`, each with its status for these parameters."""
    from fmhactl.layout import tensormap as tm

    p = tma_params(form)
    results = tm.check_rules(p)
    problems = tm.validate(p)
    ok = not any(pr.severity == "error" for pr in problems)
    summary = ""
    if ok:
        s = tm.box_summary(p)
        summary = (f"VALID: one load moves {s.box_bytes} B (expect_tx {s.box_bytes}); shared-memory destination on "
                   f"a {s.smem_alignment}-byte boundary" if s else "VALID")
    else:
        bad = [r.rule for r in results if r.status == "violated"]
        summary = f"INVALID: {len(bad)} rule(s) violated ({', '.join(bad)}): the driver answers INVALID_VALUE"
    return TmaView(p.c_call(), [(r.rule, r.param, r.statement, r.status, r.detail) for r in results], ok, summary, p)


def tma_ask_driver(form: dict[str, str]) -> str:
    """The real driver's verdict beside the model's (needs a GPU; MissingEnvironment otherwise)."""
    from fmhactl.layout.tensormap_driver import DriverSession, build

    p = tma_params(form)
    session = DriverSession(buffer_bytes=1 << 20)
    try:
        report = build(p, session)
    finally:
        session.close()
    if report.driver is None:
        return f"driver: {report.driver_note}"
    agree = "agrees with" if report.agree else "DISAGREES with"
    return f"driver: {report.driver.name} - {agree} the model ({report.driver_note})"


# --------------------------------------------------------------------------------------------
# Map: S in TMEM -> P in shared memory (SMEM-P) or TMEM (TS)
# --------------------------------------------------------------------------------------------

@dataclass
class MapView:
    header: str
    problems: list[Problem]
    tmem_grid: GridModel
    dest_grid: GridModel
    tmem_to_dest: dict[tuple[int, int], tuple[int, int]]
    dest_to_tmem: dict[tuple[int, int], tuple[int, int]]
    store_lines: list[str]
    records_by_cell: dict[tuple[int, int], Any]


def map_specs(src: str, dst: str, m: int = 128, n: int = 128) -> dict[str, Any]:
    """`--from tmem:SHAPE:num=N --to smem:MAJOR:SWIZZLE|tmem` (as `fmhactl layout map`) as Map options."""
    from fmhactl.layout import mapping

    prod = mapping.parse_producer(src, m, n)
    cons = mapping.parse_consumer(dst, m, n)
    if prod.pack or prod.d_col or prod.d_lane:
        raise BadInput(f"--from {src!r}: the Map screen takes tmem:SHAPE:num=N only")
    out: dict[str, Any] = {"shape": prod.shape, "num": prod.num, "to_tmem": cons.kind == "tmem"}
    if cons.tile is not None:
        out.update(major=cons.tile.major, swizzle=cons.tile.swizzle.name)
    return out


def map_view(shape: str = "32x32b", num: int = 8, major: str = "K", swizzle: str = "128B", m: int = 128,
             n: int = 128, dtype: str = "bf16", to_tmem: bool = False) -> MapView:
    from fmhactl.layout import accum, mapping

    _range(n, 8, 256, "N (columns of S)")
    prod = mapping.parse_producer(f"tmem:{shape}:num={num}", m, n)
    cons = mapping.parse_consumer("tmem" if to_tmem else f"smem:{major}:{swizzle}", m, n, dtype)
    records, problems = mapping.map_values(prod, cons)
    src: dict[tuple[int, int], GridCell] = {}
    by_cell: dict[tuple[int, int], Any] = {}
    for r in records:
        lane, col = accum.row_lane(m, r.m), r.n
        src[(lane, col)] = GridCell(f"t{r.thread}.r{r.reg}", r.thread % 32, r.thread,
                                    f"S[{r.m}][{r.n}] at lane {lane}, column {col}: thread {r.thread} "
                                    f"(warp {r.thread // 32}, lane {r.thread % 32}) r[{r.reg}] of load #{r.load}")
        by_cell[(lane, col)] = r
    tmem_grid = GridModel(f"S in TMEM read with tcgen05.ld.{shape}.x{num}: cell = thread.register",
                          sorted({k[0] for k in src}), sorted({k[1] for k in src}), src,
                          lambda r: f"L{r:<3}w{r // 32}", lambda c: f"c{c}", 32, "lane")
    dest: dict[tuple[int, int], GridCell] = {}
    to_dest: dict[tuple[int, int], tuple[int, int]] = {}
    back: dict[tuple[int, int], tuple[int, int]] = {}
    if cons.kind == "smem":
        tile = cons.tile
        for key_src, r in sorted(by_cell.items(), key=lambda item: (item[1].m, item[1].n)):
            rel = r.addr - tile.base
            key = rel // 128, (rel // 16) % 8
            to_dest[key_src] = key
            if key not in dest:  # the chunk is named by its first value
                back[key] = key_src
                dest[key] = GridCell(f"{r.m},{r.n}", r.thread % 32, r.thread,
                                     f"bytes {rel - rel % 16:#x}..+15 (banks {(rel >> 2) & 28}..{((rel >> 2) & 28) + 3}): "
                                     f"P row {r.m} from column {r.n}, written by thread {r.thread} "
                                     f"(warp {r.thread // 32}, lane {r.thread % 32})")
        dest_grid = GridModel(f"P in shared memory ({cons.tile.major}-major {cons.tile.swizzle.name}): one cell per "
                              "16-B chunk (m,n of its first value), colour = writing thread",
                              sorted({k[0] for k in dest}), list(range(8)), dest, lambda line: f"{line * 128:05x}",
                              lambda c: f"b{4 * c}-{4 * c + 3}", 32, "byte")
        plan = mapping.plan_smem_stores(records, cons)
        store = [f"stores: {plan.note}"] + [
            f"  warp {w}: {rep.wavefronts} wavefronts for {plan.instructions} stores (ideal {rep.ideal})"
            + (f" -> {rep.conflicts} conflict wavefronts" if rep.conflicts else ", conflict-free")
            for w, rep in plan.per_warp.items()]
    else:
        for key_src, r in by_cell.items():
            key = (r.tmem_lane, r.tmem_col)
            to_dest[key_src] = key
            back.setdefault(key, key_src)
            prev = dest.get(key)
            dest[key] = GridCell(f"{r.m},{r.n}" if prev is None else prev.label, r.thread % 32, r.thread,
                                 f"TMEM lane {r.tmem_lane} column {r.tmem_col}: P[{r.m}][{r.n}] bits {r.tmem_bit}.. "
                                 f"from thread {r.thread}")
        dest_grid = GridModel(f"P in TMEM (TS form) at column {cons.a_col}", sorted({k[0] for k in dest}),
                              sorted({k[1] for k in dest}), dest, lambda r: f"L{r:<3}", lambda c: f"c{c}", 32, "lane")
        store = [mapping.tmem_store_plan(records, prod, cons)]
    header = (f"tmem:{shape}:num={num} -> " + ("tmem (TS)" if to_tmem else f"smem:{major}:{swizzle}")
              + f"  S is {m}x{n} f32 in TMEM; P[m][n] = A[m][k=n] of the PV MMA ({cons.dtype})")
    return MapView(header, problems, tmem_grid, dest_grid, to_dest, back, store, by_cell)


# --------------------------------------------------------------------------------------------
# Checkpoint dumps
# --------------------------------------------------------------------------------------------

@dataclass
class DumpView:
    path: str
    title: str
    lines: list[str]
    heat: GridModel
    got: list[list[float]]
    want: list[list[float]]
    first: tuple[int, int] | None
    space: str  # "tmem" or "smem"
    smem_layout: dict[str, Any] = field(default_factory=dict)


def tmem_jump_options(lane: int, col: int) -> dict[str, Any]:
    """TMEM screen options that show cell (lane, col): the 32x32b.x8 load of its warp quarter that covers it."""
    return {"shape": "32x32b", "num": 8, "warp": lane // 32, "lane_base": None, "col_base": col - col % 8,
            "plan": False, "pack": False}


def smem_jump_options(layout: dict[str, Any], rows: int, cols: int, row: int, k: int) -> dict[str, Any]:
    """SMEM screen options for a dump's tile, on the MMA k-block that reads element (row, k)."""
    from fmhactl.layout.common import dtype_bytes
    from fmhactl.layout.smem import MMA_K_BYTES

    return {"major": layout["major"], "swizzle": layout["swizzle"], "dtype": layout["dtype"],
            "rows": int(layout.get("rows", rows)), "cols": int(layout.get("cols", cols)), "descriptor": None,
            "kb": k // (MMA_K_BYTES // dtype_bytes(layout["dtype"])), "element": (row, k)}


def load_dump_view(path: str | Path) -> DumpView:
    """Read a dump file (`fmhactl dump ... --out FILE`) and lay it out for the viewer."""
    from fmhactl.runtime import dumpfile

    d = dumpfile.read_dump(Path(path))
    cells: dict[tuple[int, int], GridCell] = {}
    errs = d.abs_errors()
    peak = max((max(row) for row in errs if row), default=0.0) or 1.0
    rn, cn = d.row_name, d.col_name
    for r, row in enumerate(errs):
        for c, err in enumerate(row):
            bad = d.mismatch(r, c)
            cells[(r, c)] = GridCell("x" if bad else "", 0, -1,
                                     f"{rn} {r}, {cn} {c}: got {d.got[r][c]:.6g}, want {d.want[r][c]:.6g}, "
                                     f"|err| {err:.3g}" + (" (MISMATCH)" if bad else ""),
                                     heat=err / peak, flag=bad)
    first = d.first_mismatch()
    lines = [f"{d.variant} [{d.mode} {d.arch}] {d.config_key} at {d.checkpoint} ({d.space}: {rn} x {cn}, "
             f"{d.rows} x {d.cols})",
             f"{d.mismatches()} of {d.rows * d.cols} elements differ (tolerance {d.tolerance:g}); "
             f"max |err| {max((max(r) for r in errs if r), default=0.0):.3g}"]
    if first:
        lines.append(f"first mismatch at {rn} {first[0]}, {cn} {first[1]}: got {d.got[first[0]][first[1]]:.6g}, "
                     f"want {d.want[first[0]][first[1]]:.6g}")
    else:
        lines.append("no mismatch")
    heat = GridModel(f"|error| over ({rn}, {cn}); red x = mismatch", list(range(d.rows)), list(range(d.cols)),
                     cells, lambda r: f"{rn[0].upper()}{r}", lambda c: f"{cn[0]}{c}", 1, rn)
    return DumpView(str(path), f"{d.checkpoint} of {d.variant}", lines, heat, d.got, d.want, first, d.space,
                    dict(d.layout))


# --------------------------------------------------------------------------------------------
# Results, milestones, and running verify / bench
# --------------------------------------------------------------------------------------------

RESULT_COLUMNS = ("id", "date", "kind", "variant", "status", "mode", "arch", "config", "summary")
FILTER_KEYS = ("kind", "variant", "status", "mode", "arch", "grid", "config", "date")


@dataclass(frozen=True)
class ResultLine:
    id: int
    cells: tuple[str, ...]
    variant: str
    config_key: str
    details: tuple[str, ...]


def parse_filter(text: str) -> dict[str, str]:
    """`kind=verify status=fail ref` -> {"kind": "verify", "status": "FAIL", "text": "ref"}."""
    out: dict[str, str] = {}
    words = []
    for part in text.split():
        if "=" in part:
            key, value = part.split("=", 1)
            key = key.strip().lower()
            if key not in FILTER_KEYS:
                raise BadInput(f"unknown filter {key!r} (one of {', '.join(FILTER_KEYS)}, or free text)")
            out[key] = value.strip()
        else:
            words.append(part)
    if words:
        out["text"] = " ".join(words)
    return out


def _summary(r: Any) -> str:
    m = r.metrics
    if r.kind == "verify" and "max_abs_err" in m:
        return f"err {m['max_abs_err']:.1e} cos {m.get('cosine', float('nan')):.6f}"
    if r.kind == "bench" and isinstance(m.get("kernel"), dict) and "tflops" in m["kernel"]:
        return f"{m['kernel']['tflops']:.1f} TFLOP/s"
    return str(m.get("reason") or m.get("error") or "")[:60]


def _details(r: Any) -> tuple[str, ...]:
    import datetime

    m = r.metrics
    out = [f"#{r.id} {r.kind} {r.variant} {r.status} [{r.mode or '-'} {r.arch or '-'}] {r.config_key}",
           f"recorded {datetime.datetime.fromtimestamp(r.created_at):%Y-%m-%d %H:%M:%S}, session {r.session}, "
           f"seed {r.seed}, gpu {r.gpu or '-'}, sources {r.source_hash[:12] or '-'}"]
    for key, label in (("max_abs_err", "max |err|"), ("cosine", "cosine"), ("lse_max_err", "LSE max |err|")):
        if isinstance(m.get(key), (int, float)):
            out.append(f"{label}: {m[key]:.6g}")
    kernel = m.get("kernel")
    if isinstance(kernel, dict) and "tflops" in kernel:
        out.append(f"kernel: {kernel['tflops']:.2f} TFLOP/s, median {kernel.get('median_ms', 0):.4f} ms")
    for name, b in (m.get("baselines") or {}).items() if isinstance(m.get("baselines"), dict) else []:
        if isinstance(b, dict) and "tflops" in b:
            out.append(f"baseline {name}: {b['tflops']:.2f} TFLOP/s")
    if isinstance(m.get("error_map"), str) and m["error_map"]:
        out.append("error map:")
        out.extend(m["error_map"].splitlines())
    for key in ("reason", "error", "note"):
        if m.get(key):
            out.append(f"{key}: {m[key]}")
    return tuple(out)


def query_results(filter_text: str = "", limit: int = 500, db: Path | None = None) -> list[ResultLine]:
    """Rows of the results store matching the filter, newest first."""
    import datetime

    from fmhactl.results.store import ResultStore

    flt = parse_filter(filter_text)
    _range(limit, 1, 100000, "limit")
    try:
        store = ResultStore(db)
    except Exception as exc:  # a corrupt/unreadable store is the environment's problem
        raise MissingEnvironment(f"results store unreadable: {exc}") from None
    with store:
        try:
            rows = store.query(kind=flt.get("kind"), variant=flt.get("variant"),
                               status=flt["status"].upper() if "status" in flt else None, mode=flt.get("mode"),
                               arch=flt.get("arch"), limit=limit)
        except Exception as exc:
            raise MissingEnvironment(f"results store unreadable: {exc}") from None
    grid_keys = _grid_keys(flt["grid"]) if "grid" in flt else None
    out = []
    for r in rows:
        date = datetime.datetime.fromtimestamp(r.created_at).strftime("%m-%d %H:%M")
        cells = (str(r.id), date, r.kind, r.variant, r.status, r.mode, r.arch, r.config_key, _summary(r))
        if grid_keys is not None and r.config_key not in grid_keys:
            continue
        if "config" in flt and flt["config"] not in r.config_key:
            continue
        if "date" in flt and not date.startswith(flt["date"]) and flt["date"] not in date:
            continue
        if "text" in flt and flt["text"].lower() not in " ".join(cells).lower():
            continue
        out.append(ResultLine(int(r.id or 0), cells, r.variant, r.config_key, _details(r)))
    return out


def _grid_keys(name: str) -> set[str]:
    from fmhactl.verify.grids import load_grid

    return {c.key for c in load_grid(name).configs}


def grid_names() -> list[str]:
    from fmhactl.verify.grids import available_grids

    return available_grids()


@dataclass(frozen=True)
class MilestoneLine:
    id: str
    state: str
    title: str
    detail: str
    stale: bool


def milestone_lines(db: Path | None = None) -> list[MilestoneLine]:
    """Each milestone with its state and, per mode, what is stale."""
    from fmhactl.results.store import ResultStore
    from fmhactl.status.compute import compute_status
    from fmhactl.status.milestones import load_milestones

    milestones = load_milestones()
    with ResultStore(db) as store:
        statuses = compute_status(milestones, store)
    out = []
    for s in statuses:
        modes = "; ".join(f"{m.mode}: {m.state} {m.passed}/{m.required}" for m in s.modes if m.required)
        stale = [x for m in s.modes for x in m.stale]
        detail = s.reason or modes or "no results yet"
        if stale:
            detail += " | stale: " + stale[0] + (f" (+{len(stale) - 1})" if len(stale) > 1 else "")
        out.append(MilestoneLine(s.milestone.id, s.state, s.milestone.title, detail, bool(stale)))
    return out


@dataclass(frozen=True)
class GpuStatus:
    available: bool
    reason: str


_GPU: GpuStatus | None = None


def gpu_status() -> GpuStatus:
    """Is there a GPU to run verify/bench on? Cached; FMHACTL_ASSUME_NO_GPU=1 answers no."""
    global _GPU
    if _GPU is not None:
        return _GPU
    if os.environ.get("FMHACTL_ASSUME_NO_GPU"):
        _GPU = GpuStatus(False, "no GPU: FMHACTL_ASSUME_NO_GPU is set")
        return _GPU
    try:
        from fmhactl.runtime.device import probe  # the service layer's one probe, once it exists

        st = probe()
        _GPU = GpuStatus(bool(st.available), "" if st.available else f"no GPU: {st.reason}")
        return _GPU
    except ImportError:
        pass
    try:
        from cuda.bindings import driver

        (err,) = driver.cuInit(0)
        if int(err) != 0:
            _GPU = GpuStatus(False, f"no GPU: cuInit answered {getattr(err, 'name', err)}")
        else:
            err, count = driver.cuDeviceGetCount()
            _GPU = GpuStatus(int(err) == 0 and count > 0, "" if count else "no GPU: no CUDA device")
    except Exception as exc:  # noqa: BLE001 - no driver library at all means no GPU
        _GPU = GpuStatus(False, f"no GPU: CUDA driver not usable ({type(exc).__name__})")
    return _GPU


@dataclass
class ProgressEvent:
    done: int
    total: int
    message: str


def run_job(kind: str, variant: str, grid: str, *, progress: Callable[[ProgressEvent], None],
            cancelled: Callable[[], bool]) -> str:
    """Verify or bench `variant` over `grid`, one progress event per config; stops at the next
    config once `cancelled()` is true. Returns the closing line."""
    from fmhactl.registry import get_variant
    from fmhactl.results.store import ResultStore
    from fmhactl.verify.grids import load_grid

    if kind not in ("verify", "bench"):
        raise BadInput(f"unknown job {kind!r} (verify or bench)")
    st = gpu_status()
    if not st.available:
        raise MissingEnvironment(st.reason)
    v = get_variant(variant)
    configs = list(load_grid(grid).configs)
    total = len(configs)
    progress(ProgressEvent(0, total, f"{kind} {variant} over grid {grid}: {total} config(s)"))

    class _Stop(Exception):
        pass

    done = 0
    with ResultStore() as store:
        if kind == "verify":
            from fmhactl.verify.sweep import run_verify

            def on_result(row: Any) -> None:
                nonlocal done
                done += 1
                progress(ProgressEvent(done, total, f"{row.status} {row.config_key} {_summary(row)}"))
                if cancelled():
                    raise _Stop()

            try:
                summary = run_verify([v], configs, store=store, on_result=on_result)
            except _Stop:
                return f"cancelled after {done} of {total} config(s); finished ones are stored"
            return summary.closing_line()
        from fmhactl.bench.service import run_bench

        for cfg in configs:
            if cancelled():
                return f"cancelled after {done} of {total} config(s); finished ones are stored"
            rows = run_bench(v, [cfg], store=store)
            done += 1
            progress(ProgressEvent(done, total, f"{rows[0].status} {cfg.key} {_summary(rows[0])}"))
        return f"{done} config(s) benchmarked"


def json_dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, default=str)
