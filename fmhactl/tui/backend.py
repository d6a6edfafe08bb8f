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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fmhactl.errors import BadInput, FmhactlError, MissingEnvironment
from fmhactl.progress import ProgressEvent
from fmhactl.services.device import DeviceStatus
from fmhactl.services.layout_views import Problem
from fmhactl.tui.gridmodel import GridCell, GridModel

__all__ = ["BadInput", "FmhactlError", "MissingEnvironment", "Problem"]

TMEM_SHAPES = ("32x32b", "16x64b", "16x128b", "16x256b", "16x32bx2")
TMEM_NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
SWIZZLES = ("none", "32B", "64B", "128B", "128B_base32B")
MAJORS = ("K", "MN")
SMEM_DTYPES = ("bf16", "f16", "tf32", "f32", "e4m3")
DESCRIPTOR_KINDS = ("idesc", "smem", "wgmma")


def parse_int(text: str | int, what: str) -> int:
    from fmhactl.services.layout_views import parse_int as _parse

    return _parse(text, what)


def parse_pair(text: str, what: str) -> tuple[int, int]:
    """"A,B" (the CLI's parser, fmhactl.layout.common.parse_int_list)."""
    from fmhactl.services.layout_views import parse_int_list

    first, second = parse_int_list(text, what, count=2)
    return first, second


def _range(value: int, lo: int, hi: int, what: str) -> int:
    if not lo <= value <= hi:
        raise BadInput(f"{what} must be {lo}..{hi}; got {value}")
    return value


def key_colour(key: int, n_keys: int) -> str:
    """The colour the CLI's pictures give a key (thread, bank group, warp), so both agree."""
    from fmhactl.present.render import colour

    return colour(key, n_keys)


def problem_lines(problems: list[Problem]) -> list[tuple[str, str]]:
    """(severity, 'code: message') per problem, as the CLI prints them."""
    return [(p.severity, f"{p.code}: {p.message}") for p in problems]


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
        _range(lane_base, 0, 127, "lane base")
        _range(col_base, 0, 511, "column base")
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

    _range(col, 0, 511, "d-tmem column")
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


# --------------------------------------------------------------------------------------------
# Shared-memory tiles, their descriptor, and access patterns
# --------------------------------------------------------------------------------------------

@dataclass
class SmemView:
    tile: Any  # services.layout.SmemTile
    header: str
    grid: GridModel
    problems: list[Problem]
    slices: list[tuple[int, int, int, int]]  # (kb, k0, start, descriptor)
    kb: int
    descriptor: int
    descriptor_report: list[str]
    descriptor_problems: list[Problem]
    pattern_report: list[str]


def _chunk_key(layout: Any, addr: int) -> tuple[int, int]:
    rel = addr - layout.base
    return rel // 128, (rel // 16) % 8


def smem_view(major: str = "K", swizzle: str = "128B", dtype: str = "bf16", rows: int = 128, cols: int = 64,
              base: int = 0, lbo: int | None = None, sbo: int | None = None, kb: int = 0,
              descriptor: int | None = None, row_expr: str = "t", k_expr: str = "0", vec: int = 16,
              pattern: str = "expr", element: tuple[int, int] | None = None) -> SmemView:
    """The tile as stored (one cell per physical 16-byte chunk, colour = its 4 banks), the descriptor
    of MMA k-block `kb` (or `descriptor` when the user edited it) with the elements it makes the
    MMA read, and the bank conflicts of an access pattern per phase."""
    from fmhactl.services import layout as svc

    tile = svc.smem_tile(major, swizzle, rows, cols, dtype, lbo, sbo, None, base)
    lay = tile.layout
    per = 16 // lay.elem_bytes
    cells: dict[tuple[int, int], GridCell] = {}
    for p in tile.elements:
        if (p.k if lay.major == "K" else p.row) % per:
            continue  # one cell per 16-byte chunk: its first element names it
        key = _chunk_key(lay, p.addr)
        span = f"k {p.k}..{p.k + per - 1}" if lay.major == "K" else f"rows {p.row}..{p.row + per - 1}"
        cells[key] = GridCell(f"{p.row},{p.k}", key[1], p.row,
                              f"byte {p.addr - lay.base:#x} (logical {p.logical - lay.base:#x}): row {p.row}, {span}; "
                              f"banks {p.bank}..{p.bank + 3}, core matrix ({p.core_row}, {p.core_col})")
    slices = [(s.kb, s.k0, s.start, s.descriptor) for s in tile.mma]
    kb = max(0, min(kb, len(slices) - 1))
    value = slices[kb][3] if descriptor is None else descriptor
    reach = svc.descriptor_reach(tile, value, slices[kb][1])
    report = [f"descriptor {reach.descriptor.hex} for MMA k-block {kb} (k {slices[kb][1]}..): "
              f"tile's own 0x{slices[kb][3]:016x}"]
    marked: set[tuple[int, int]] = set()
    wrong_keys: set[tuple[int, int]] = set()
    if reach.elements:
        for el in reach.elements:
            key = _chunk_key(lay, el.addr)
            marked.add(key)
            if not el.correct:
                wrong_keys.add(key)
        right = len(reach.elements) - reach.wrong
        report.append(f"the MMA reads {len(reach.elements)} elements: {right} from the right place, {reach.wrong} "
                      "from the wrong place")
        bad = next((el for el in reach.elements if not el.correct), None)
        if bad is not None:
            report.append(f"first wrong: A[{bad.mn}][{bad.k}] (tile element {bad.expected}) is read from byte "
                          f"{bad.addr - lay.base:#x}, which holds "
                          + (f"element {bad.hit}" if bad.hit else "no element of this tile"))
        cells = {k: GridCell(c.label, c.key, c.group, c.detail, c.heat, k in wrong_keys) for k, c in cells.items()}
    else:
        report.append("the descriptor has errors: the MMA would not read this tile")
    if pattern == "pstore":
        pattern_report = _pstore_report(lay)
    else:
        pattern_report = _pattern_report(svc.warp_access(tile, row_expr, k_expr, vec))
    grid = GridModel(f"{lay.major}-major {lay.swizzle.name} {lay.dtype} {rows}x{cols}: one cell per 16-B chunk "
                     "(row,k of its first element), colour = bank group", sorted({k[0] for k in cells}),
                     list(range(8)), cells, lambda line: f"{line * 128:05x}",
                     lambda c: f"b{4 * c}-{4 * c + 3}", 8, "byte", marked)
    header = (f"{lay.major}-major, swizzle {lay.swizzle.name}, {lay.dtype} ({lay.elem_bytes} B), {rows} x {cols}, "
              f"base {lay.base:#x}; LBO {lay.lbo} B, SBO {lay.sbo} B; footprint {tile.footprint} B")
    if element is not None:
        p = tile.element(*element)
        header += (f"\nelement (row {p.row}, k {p.k}): byte {p.addr - lay.base:#x}, bank {p.bank}, chunk {p.chunk}, "
                   f"core matrix ({p.core_row}, {p.core_col})")
    return SmemView(tile, header, grid, list(tile.problems), slices, kb, value, report,
                    list(reach.descriptor.problems), pattern_report)


def smem_element_cell(view: SmemView, row: int, k: int) -> tuple[int, int]:
    """The grid cell (128-B line, chunk) that holds element (row, k)."""
    return _chunk_key(view.tile.layout, view.tile.element(row, k).addr)


def _pattern_report(access: Any) -> list[str]:
    from fmhactl.present.report import banks_verdict

    first = access.instructions[0]
    lines = [access.description, f"instruction 0: {len(first.phases)} phase(s)"]
    for i, ph in enumerate(first.phases):
        lines.append(f"  phase {i} (lanes {ph.first_lane}..{ph.last_lane}): {ph.wavefronts} wavefront(s)"
                     + (f", {ph.conflicts} extra: bank {ph.worst_bank} serves {ph.wavefronts} words"
                        if ph.conflicts else ", no conflict"))
    lines.append(banks_verdict(access))  # as `fmhactl layout banks` says it
    return lines


def _pstore_report(layout: Any) -> list[str]:
    """The SMEM-P store: P from a 32x32b.x8 read of S stored by warps 0-3 into this tile."""
    from fmhactl.present.report import map_plan_lines
    from fmhactl.services import layout as svc

    if layout.rows not in (64, 128):
        raise BadInput("the P-store pattern needs rows = M = 64 or 128")
    dest = f"smem:{layout.major}:{layout.swizzle.name}:lbo={layout.lbo}:sbo={layout.sbo}"
    pmap = svc.smem_p_map("tmem:32x32b:num=8", dest, layout.rows, layout.cols, layout.dtype)
    return ["tcgen05.ld.32x32b.x8 -> st.shared of P (as `fmhactl layout map` reports it):",
            *map_plan_lines(pmap)]


# --------------------------------------------------------------------------------------------
# Descriptors: the field tables of fmhactl.layout.fields through services.layout
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FieldRow:
    name: str
    label: str
    lo: int
    width: int
    raw: int
    shown: str
    bad: bool
    meaning: str
    allowed: str
    edit_text: str  # what the editor starts from: the value in its unit, or the enum's name


@dataclass
class DescriptorView:
    kind: str
    value: int
    bits: int
    fields: list[FieldRow]
    problems: list[Problem]
    verdict: str


def parse_descriptor_text(kind: str, text: str) -> int:
    """A hex (or decimal) descriptor value; the error names the descriptor and the rule."""
    from fmhactl.services import layout as svc

    stripped = str(text).strip()
    if stripped and not stripped.lower().startswith(("0x", "0b", "0o", "-")) and \
            any(ch in "abcdefABCDEF" for ch in stripped):
        stripped = "0x" + stripped  # pasted hex without its prefix
    return svc.parse_word(stripped, kind)


def descriptor_view(kind: str, value: int, major: str | None = None) -> DescriptorView:
    """Decode with the same service (fields, checks, messages) as `fmhactl layout ... decode`."""
    from fmhactl.services import layout as svc

    d = svc.decode_descriptor(kind, value, major if kind == "smem" else None)
    table = svc.descriptor_table(kind)
    labels = {f.name: f.short for f in table.fields}
    allowed = {f.name: f.allowed for f in table.fields}
    rows = [FieldRow(f.name, labels.get(f.name, f.name), f.lo, f.width, f.raw, f.display, f.bad, f.meaning,
                     f.allowed, str(allowed[f.name].get(f.raw, f.raw)) if allowed.get(f.name) else str(f.value))
            for f in d.fields]
    verdict = ("valid: " if d.ok else "INVALID: ") + d.summary
    return DescriptorView(kind, d.value, d.bits, rows, list(d.problems), verdict)


def set_descriptor_field(kind: str, value: int, field_index: int, text: str) -> int:
    """The value with one field replaced. `text` is the field's value in its natural unit (bytes for
    addresses, N or M for the shape fields), a name of an enum value (128B, bf16, MN), or raw:N."""
    from fmhactl.services import layout as svc

    table = svc.descriptor_table(kind)
    view = svc.decode_descriptor(kind, value)
    if not 0 <= field_index < len(view.fields):
        raise BadInput(f"no field {field_index}")
    name = view.fields[field_index].name
    f = table.field(name)
    t = text.strip()
    if not t:
        raise BadInput(f"{f.meaning}: empty value")
    if t.lower().startswith("raw:"):
        raw = parse_int(t[4:], f.meaning)
    elif f.allowed is not None and not t.lstrip("-").isdigit():
        by_name = {str(v).lower(): k for k, v in f.allowed.items()}
        word = t.split("(")[-1].rstrip(")").strip().lower() if "(" in t else t.lower()
        if word not in by_name:
            raise BadInput(f"{f.meaning}: {t!r} is not one of {f.allowed_text()}")
        raw = by_name[word]
    else:
        number = t.split()[0].removesuffix("B").removeprefix("N=").removeprefix("M=")
        raw = f.raw_of(parse_int(number, f.meaning)) if f.allowed is None else parse_int(number, f.meaning)
    return svc.edit_descriptor(kind, value, name, raw).value


# --------------------------------------------------------------------------------------------
# TMA tensor maps (fmhactl.services.tma)
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
    from fmhactl.services.layout_views import parse_int_list

    return parse_int_list(text, what)


def tma_params(form: dict[str, str]) -> Any:
    from fmhactl.services import tma as svc

    get = lambda key: form.get(key, "").strip()  # noqa: E731
    missing = [key for key in ("dtype", "dims", "box") if not get(key)]
    if missing:
        raise BadInput(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} empty: "
                       "dtype, dims and box are required")
    return svc.tensor_map_params(get("dtype"), _int_list(get("dims"), "dims"),
                                 _int_list(get("strides"), "strides") if get("strides") else None,
                                 _int_list(get("box"), "box"),
                                 _int_list(get("elem_strides"), "element strides") if get("elem_strides") else None,
                                 parse_int(get("rank"), "rank") if get("rank") else None,
                                 parse_int(get("address"), "address") if get("address") else None,
                                 get("interleave") or "none", get("swizzle") or "none", get("l2") or "none",
                                 get("oob") or "none")


def tma_view(form: dict[str, str]) -> TmaView:
    """The rules of `fmhactl tma check`, each with its status for these parameters, and its verdict
    in the CLI's words (fmhactl.present.report_tma.verdict_lines; the long driver hint left out)."""
    from fmhactl.present.report_tma import verdict_lines
    from fmhactl.services import tma as svc

    p = tma_params(form)
    check = svc.check_tensor_map(p)
    lines = [line for line in verdict_lines(check, None) if line.startswith(("VALID", "INVALID", "one load"))]
    return TmaView(check.c_call, [(r.rule, r.param, r.statement, r.status, r.detail) for r in check.rules],
                   check.valid, "\n".join(lines), p)


def tma_ask_driver(form: dict[str, str]) -> str:
    """The real driver's verdict beside the model's, as `tma check --driver` words it (needs a GPU)."""
    from fmhactl.present.report_tma import verdict_lines
    from fmhactl.services import tma as svc

    params = tma_params(form)
    return verdict_lines(svc.check_tensor_map(params), svc.driver_verdict(params))[-1]


# --------------------------------------------------------------------------------------------
# Map: S in TMEM -> P in shared memory (SMEM-P) or TMEM (TS) (services.layout.smem_p_map)
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


def map_p_side(view: MapView, key: tuple[int, int]) -> str:
    """Where the S value at grid cell `key` goes as P: the element itself, not its chunk's first one."""
    r = view.records_by_cell.get(key)
    if r is None:
        return "P side: -"
    if r.addr >= 0:
        return (f"P side: P[{r.m}][{r.n}] at byte {r.addr:#x} (bank {(r.addr >> 2) & 31}); "
                f"its 16-B chunk starts with {view.dest_grid.cell(*view.tmem_to_dest[key]).label}")
    return f"P side: P[{r.m}][{r.n}] -> {view.dest_grid.cell(r.tmem_lane, r.tmem_col).detail}"


def map_specs(src: str, dst: str, m: int = 128, n: int = 128) -> dict[str, Any]:
    """`--from tmem:SHAPE:num=N --to smem:MAJOR:SWIZZLE|tmem` (as `fmhactl layout map`) as Map options."""
    from fmhactl.services import layout as svc

    pmap = svc.smem_p_map(src, dst, m, n, warps=[0])
    if any(part.startswith(("col=", "lane=", "acc=")) or part == "pack" for part in src.split(":")[2:]):
        raise BadInput(f"--from {src!r}: the Map screen takes tmem:SHAPE:num=N only")
    parts = src.split(":")
    num = next((int(p.split("=", 1)[1]) for p in parts[2:] if p.startswith("num=")), 8)
    out: dict[str, Any] = {"shape": parts[1], "num": num, "to_tmem": pmap.store_plan is None}
    if pmap.store_plan is not None:
        d = dst.split(":")
        out.update(major=d[1].upper(), swizzle=d[2])
    return out


def map_view(shape: str = "32x32b", num: int = 8, major: str = "K", swizzle: str = "128B", m: int = 128,
             n: int = 128, dtype: str = "bf16", to_tmem: bool = False) -> MapView:
    """Both ends of `fmhactl layout map --from tmem:SHAPE:num=N --to DEST` as two linked grids; the
    store lines are the CLI's (report.map_plan_lines)."""
    from fmhactl.services.layout_views import accum
    from fmhactl.present.report import map_plan_lines
    from fmhactl.services import layout as svc

    dest_spec = "tmem" if to_tmem else f"smem:{major}:{swizzle}"
    pmap = svc.smem_p_map(f"tmem:{shape}:num={num}", dest_spec, m, n, dtype)
    src: dict[tuple[int, int], GridCell] = {}
    by_cell: dict[tuple[int, int], Any] = {}
    for r in pmap.records:
        lane, col = accum.row_lane(m, r.m), r.n
        src[(lane, col)] = GridCell(f"t{r.thread}.r{r.reg}", r.thread % 32, r.thread,
                                    f"S[{r.m}][{r.n}] at lane {lane}, column {col}: thread {r.thread} "
                                    f"(warp {r.thread // 32}, lane {r.thread % 32}) r[{r.reg}] of load #{r.load}"
                                    + (f" -> P at byte {r.addr:#x} (bank {(r.addr >> 2) & 31})" if r.addr >= 0
                                       else f" -> P at TMEM lane {r.tmem_lane}, column {r.tmem_col}"))
        by_cell[(lane, col)] = r
    tmem_grid = GridModel(f"S in TMEM read with tcgen05.ld.{shape}.x{num}: cell = thread.register",
                          sorted({k[0] for k in src}), sorted({k[1] for k in src}), src,
                          lambda r: f"L{r:<3}w{r // 32}", lambda c: f"c{c}", 32, "lane")
    dest: dict[tuple[int, int], GridCell] = {}
    to_dest: dict[tuple[int, int], tuple[int, int]] = {}
    back: dict[tuple[int, int], tuple[int, int]] = {}
    if not to_tmem:
        for key_src, r in sorted(by_cell.items(), key=lambda item: (item[1].m, item[1].n)):
            key = r.addr // 128, (r.addr // 16) % 8
            to_dest[key_src] = key
            if key not in dest:  # the chunk is named by its first value
                back[key] = key_src
                dest[key] = GridCell(f"{r.m},{r.n}", r.thread % 32, r.thread,
                                     f"bytes {r.addr - r.addr % 16:#x}..+15 (banks {(r.addr >> 2) & 28}.."
                                     f"{((r.addr >> 2) & 28) + 3}): P[{r.m}][{r.n}..] (this chunk's first value), written by thread "
                                     f"{r.thread} (warp {r.thread // 32}, lane {r.thread % 32})")
        dest_grid = GridModel(f"P in shared memory ({major}-major {swizzle}): one cell per 16-B chunk (m,n of its "
                              "first value), colour = writing thread", sorted({k[0] for k in dest}), list(range(8)),
                              dest, lambda line: f"{line * 128:05x}", lambda c: f"b{4 * c}-{4 * c + 3}", 32, "byte")
    else:
        held: dict[tuple[int, int], list[Any]] = {}
        for key_src, r in sorted(by_cell.items(), key=lambda item: (item[1].m, item[1].n)):
            key = (r.tmem_lane, r.tmem_col)
            to_dest[key_src] = key
            back.setdefault(key, key_src)  # the column is named by its first (lowest-bit) value
            held.setdefault(key, []).append(r)
        for key, values in held.items():
            first = values[0]
            dest[key] = GridCell(f"{first.m},{first.n}", first.thread % 32, first.thread,
                                 f"TMEM lane {key[0]}, column {key[1]} holds "
                                 + ", ".join(f"P[{r.m}][{r.n}] (bits {r.tmem_bit}..{r.tmem_bit + 32 // len(values) - 1}, "
                                             f"thread {r.thread})" for r in values))
        dest_grid = GridModel(f"P in TMEM (TS form), columns {min(k[1] for k in dest)}..{max(k[1] for k in dest)}: "
                              "cell = m,n of its first value", sorted({k[0] for k in dest}),
                              sorted({k[1] for k in dest}), dest, lambda r: f"L{r:<3}", lambda c: f"c{c}", 32, "lane")
    header = (f"tmem:{shape}:num={num} -> {dest_spec}  S is {m}x{n} f32 in TMEM; P[m][n] = A[m][k=n] of the PV "
              f"MMA ({pmap.dtype})")
    return MapView(header, list(pmap.problems), tmem_grid, dest_grid, to_dest, back, map_plan_lines(pmap), by_cell)


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
    from fmhactl.services.layout_views import dtype_bytes
    from fmhactl.services.layout_views import MMA_K_BYTES

    return {"major": layout["major"], "swizzle": layout["swizzle"], "dtype": layout["dtype"],
            "rows": int(layout.get("rows", rows)), "cols": int(layout.get("cols", cols)), "descriptor": None,
            "kb": k // (MMA_K_BYTES // dtype_bytes(layout["dtype"])), "element": (row, k)}


def load_dump_view(path: str | Path) -> DumpView:
    """Read a dump file (`fmhactl dump ... --out FILE`) and lay it out for the viewer."""
    from fmhactl.services.kernels import dumpfile

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
FILTER_KEYS = ("kind", "variant", "status", "mode", "grid", "since", "until", "config")


@dataclass(frozen=True)
class ResultLine:
    id: int
    cells: tuple[str, ...]
    variant: str
    config_key: str
    details: tuple[str, ...]


def parse_filter(text: str) -> dict[str, str]:
    """`kind=verify status=fail since=2026-11-23 ref` -> {"kind": "verify", "status": "fail", ..., "text": "ref"}."""
    out: dict[str, str] = {}
    words = []
    for part in text.split():
        if "=" in part:
            key, value = part.split("=", 1)
            key = key.strip().lower()
            if key not in FILTER_KEYS:
                raise BadInput(f"unknown filter {key!r} (one of {', '.join(FILTER_KEYS)}, or free text)")
            if not value.strip():
                raise BadInput(f"filter {key}= needs a value")
            out[key] = value.strip()
        else:
            words.append(part)
    if words:
        out["text"] = " ".join(words)
    return out


def _summary(r: Any) -> str:
    m = r.metrics
    if r.kind == "verify" and isinstance(m.get("max_abs_err"), (int, float)):
        cos = m.get("cosine")
        return f"err {m['max_abs_err']:.1e}" + (f" cos {cos:.6f}" if isinstance(cos, (int, float)) else "")
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
    baselines = m.get("baselines")
    items = baselines.items() if isinstance(baselines, dict) else (
        ((b.get("name", "?"), b) for b in baselines if isinstance(b, dict)) if isinstance(baselines, list) else ())
    for name, b in items:
        timing = b.get("timing") if isinstance(b.get("timing"), dict) else b
        if isinstance(timing, dict) and "tflops" in timing:
            out.append(f"baseline {name}: {timing['tflops']:.2f} TFLOP/s")
    if isinstance(m.get("error_map"), str) and m["error_map"]:
        out.append("error map:")
        out.extend(m["error_map"].splitlines())
    for key in ("reason", "error", "note"):
        if m.get(key):
            out.append(f"{key}: {m[key]}")
    return tuple(out)


def query_results(filter_text: str = "", limit: int = 500, db: Path | None = None) -> list[ResultLine]:
    """Rows of the results store matching the filter, newest first (services.results.query)."""
    import datetime

    from fmhactl.services.results import ResultStore
    from fmhactl.services import results as svc

    flt = parse_filter(filter_text)
    query = svc.ResultsFilter(kind=flt.get("kind"), variant=flt.get("variant"), status=flt.get("status"),
                              mode=flt.get("mode"), grid=flt.get("grid"), since=flt.get("since"),
                              until=flt.get("until"), limit=limit)
    if db is None:
        rows = svc.query(query)
    else:
        with ResultStore(Path(db)) as store:
            rows = svc.query(query, store=store)
    out = []
    for r in rows:
        date = datetime.datetime.fromtimestamp(r.created_at).strftime("%m-%d %H:%M")
        cells = (str(r.id), date, r.kind, r.variant, r.status, r.mode, r.arch, r.config_key, _summary(r))
        if "config" in flt and flt["config"] not in r.config_key:
            continue
        if "text" in flt and flt["text"].lower() not in " ".join(cells).lower():
            continue
        out.append(ResultLine(int(r.id or 0), cells, r.variant, r.config_key, _details(r)))
    return out


def grid_names() -> list[str]:
    from fmhactl.services.kernels import available_grids

    return available_grids()


@dataclass(frozen=True)
class MilestoneLine:
    id: str
    state: str
    title: str
    detail: str
    stale: bool


def milestone_lines(db: Path | None = None) -> list[MilestoneLine]:
    """Each milestone with its state and, per mode, what is stale (the status service, nothing written)."""
    from fmhactl.services.results import ResultStore
    from fmhactl.services.status import run_status

    if db is None:
        from fmhactl import services

        report = services.status(check=True, evidence_only=False)  # what `fmhactl status` shows: local store + evidence
    else:
        with ResultStore(Path(db)) as store:
            report = run_status(write=False, store=store)
    out = []
    for s in report.statuses:
        modes = "; ".join(f"{m.mode}: {m.state} {m.passed}/{m.required}" for m in s.modes if m.required)
        stale = [x for m in s.modes for x in m.stale]
        detail = s.reason or modes or "no results yet"
        if stale:
            detail += " | stale: " + stale[0] + (f" (+{len(stale) - 1})" if len(stale) > 1 else "")
        out.append(MilestoneLine(s.milestone.id, s.state, s.milestone.title, detail, bool(stale)))
    return out


_GPU: DeviceStatus | None = None


def gpu_status() -> DeviceStatus:
    """Is there a GPU to run verify/bench on (the one probe; FMHACTL_ASSUME_NO_GPU=1 answers no)?
    Cached for the session; `reason` is the CLI's one message when there is none."""
    global _GPU
    if _GPU is None:
        from fmhactl.services.device import gpu_missing_message, gpu_status as probe

        st = probe()
        _GPU = replace(st, reason="" if st.available else gpu_missing_message(st))
    return _GPU


def run_job(kind: str, variant: str, grid: str, *, progress: Callable[[ProgressEvent], None],
            cancelled: Callable[[], bool]) -> str:
    """Verify or bench `variant` over `grid` through the services, one progress event per config;
    stops after the current config once `cancelled()` is true. Returns the closing line."""
    from fmhactl import services
    from fmhactl.errors import Cancelled
    from fmhactl.progress import CancelToken
    from fmhactl.services.kernels import load_grid

    if kind not in ("verify", "bench"):
        raise BadInput(f"unknown job {kind!r} (verify or bench)")
    configs = list(load_grid(grid).configs)
    token = CancelToken()
    progress(ProgressEvent("config", 0, len(configs), f"{kind} {variant} over grid {grid}: {len(configs)} config(s)"))
    done = 0

    def relay(event: Any) -> None:
        nonlocal done
        done = event.done
        row = event.record
        line = f"{row.status} {row.config_key} {_summary(row)}" if row is not None and hasattr(row, "status") \
            else event.message
        progress(ProgressEvent("config", event.done, event.total or len(configs), line))
        if cancelled():
            token.cancel()

    try:
        if kind == "verify":
            return services.verify([variant], grid=grid, progress=relay, cancel=token).closing_line()
        outcome = services.bench(variant, [c.shape_text() for c in configs], progress=relay, cancel=token)
        return f"{len(outcome.rows)} config(s) benchmarked"
    except Cancelled:
        return f"cancelled after {done} of {len(configs)} config(s); finished ones are stored"


def json_dumps(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True, default=str)
