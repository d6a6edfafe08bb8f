"""The SMEM screen's view: a shared-memory tile, the descriptor of one MMA k-block and the elements it
makes the MMA read, and the bank conflicts of an access pattern."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fmhactl.errors import BadInput
from fmhactl.services.layout_views import Problem
from fmhactl.tui.gridmodel import GridCell, GridModel


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
