"""What the layout commands show, built from service results: text lines, plain tables, grids, JSON.

No rich or typer here (fmhactl/cli/common.py decides how a table reaches the terminal or a pipe);
no computation either beyond arranging what fmhactl.services.layout returned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fmhactl.present import views
from fmhactl.layout.common import LayoutError, parse_int
from fmhactl.present.render import Cell, TextTable, json_document, svg_bitfield


def check_writable(path: str) -> None:
    """Refuse an output path before any work, with the one check every output path gets
    (fmhactl.paths.check_output_path: proved by writing, so it holds for root too)."""
    from fmhactl.paths import check_output_path

    if not path:  # Path("") would be ".", the working directory
        from fmhactl.errors import BadInput

        raise BadInput("--svg: an empty string is not a file path")
    check_output_path(Path(path), "--svg")


def _records(meta: dict[str, Any], records: list[dict[str, Any]] | None = None,
             lines: list[str] | None = None) -> str:
    return json_document(meta, records, lines)


# ---- TMEM ---------------------------------------------------------------------------------------


def tmem_headline(acc: Any) -> str:
    lanes, cols = acc.lanes, acc.cols
    return (f"{acc.instruction} (st: same map with .unpack::16b) - warp {acc.warp}, taddr 0x{acc.taddr:08x}: "
            f"{acc.registers_per_thread} registers per thread, lanes {lanes[0]}..{lanes[-1]}, columns "
            f"{cols[0]}..{cols[-1]}; this warp may touch lanes {acc.allowed_lanes[0]}..{acc.allowed_lanes[1]}")


def tmem_grid(acc: Any) -> views.Grid:
    cells: dict[tuple[int, int], Cell] = {}
    for c in acc.cells:
        half = "" if c.nbits == 32 else (".lo" if c.reg_bit_lo == 0 else ".hi")
        cells[(c.lane, c.col)] = Cell(f"t{c.thread}.r{c.reg}{half}", c.thread,
                                      f"lane {c.lane}, column {c.col}: thread {c.cta_thread} (lane {c.thread} of warp "
                                      f"{acc.warp}) r[{c.reg}] bits {c.reg_bit_lo}..{c.reg_bit_lo + c.nbits - 1}")
    return views.Grid(f"{acc.instruction} warp {acc.warp}", list(acc.lanes), list(acc.cols), cells,
                      lambda r: f"L{r}", lambda c: f"c{c}", 32, "lane\\col")


def tmem_threads_table(acc: Any, max_regs: int = 16) -> TextTable:
    shown = min(acc.registers_per_thread, max_regs)
    by_key: dict[tuple[int, int], list[Any]] = {}
    for c in acc.cells:
        by_key.setdefault((c.thread, c.reg), []).append(c)
    rows = []
    for t in range(32):
        row = [f"{32 * acc.warp + t} (t{t})"]
        for i in range(shown):
            row.append(" ".join(f"L{c.lane}c{c.col}" + ("" if c.nbits == 32 else ("lo" if c.reg_bit_lo == 0 else "hi"))
                                for c in by_key[(t, i)]))
        rows.append(tuple(row))
    more = f" ({acc.registers_per_thread - shown} more registers in --json)" if acc.registers_per_thread > shown else ""
    return TextTable("thread x register -> TMEM cell (L lane, c column; lo/hi: register half)" + more,
                     ("thread",) + tuple(f"r{i}" for i in range(shown)), tuple(rows))


def tmem_cell_line(info: Any) -> str:
    owners = "; ".join(f"thread {c.cta_thread} (lane {c.thread} of warp {info.warp}) r[{c.reg}] bits "
                       f"{c.reg_bit_lo}..{c.reg_bit_lo + c.nbits - 1}" for c in info.owners) or "no register of this access"
    rule = "allowed" if info.allowed else f"NOT allowed - {info.violation}"
    return f"cell lane {info.lane}, column {info.col} (lane quarter {info.lane_quarter}): {owners}; warp {info.warp}: {rule}"


def tmem_json(acc: Any, info: Any) -> str:
    meta = acc.as_dict()
    if info is not None:
        meta["cell"] = info.as_dict()
    return _records(meta, [c.as_dict() for c in acc.cells])


# ---- SMEM ---------------------------------------------------------------------------------------


def smem_headlines(tile: Any) -> list[str]:
    t = tile.layout
    swz = t.swizzle
    atom = (f"atom {4 if swz.name == '128B_base32B' else 8} x {swz.width} B" if swz.swizzled
            else "core matrix 8 x 16 B")
    out = [f"{t.major}-major, swizzle {swz.name}, {t.dtype} ({t.elem_bytes} B), {t.rows} x {t.cols} "
           f"(rows = M/N, cols = K), base 0x{t.base:x}",
           f"LBO {t.lbo} B, SBO {t.sbo} B, {atom}"
           + (f", K atom columns every {t.k_atom_stride} B" if t.k_atom_stride else "")
           + f"; footprint {tile.footprint} B"]
    out.extend(f"note: {n}" for n in t.notes)
    return out


def smem_mma_table(tile: Any, limit: int = 16) -> TextTable:
    t = tile.layout
    rows = tuple((str(s.kb), f"{s.k0}..{min(s.k0 + t.mma_k, t.cols) - 1}", str(s.start), f"0x{s.descriptor:016x}")
                 for s in tile.mma[:limit])
    return TextTable(f"one MMA per {t.mma_k} K elements (32 B); k is local to the MMA, never the full head dim",
                     ("kb", "k", "start (B)", "descriptor"), rows)


def smem_at_line(tile: Any, addr: int) -> str:
    hit = tile.element_at(addr)
    return f"byte {addr:#x}: " + (f"element (row {hit[0]}, k {hit[1]})" if hit else "no element starts there")


def smem_element_line(p: Any) -> str:
    return (f"element (row {p.row}, k {p.k}): byte {p.addr:#x} (logical {p.logical:#x}), core matrix "
            f"({p.core_row}, {p.core_col}), bank {p.bank}, chunk {p.chunk}")


def reach_line(reach: Any) -> str:
    d = reach.descriptor
    if not reach.elements:
        return f"descriptor {d.hex} ({d.summary}): invalid, reads nothing defined"
    if reach.wrong == 0:
        return f"descriptor {d.hex} ({d.summary}): all {len(reach.elements)} elements of the MMA at k0={reach.k0} " \
               "are the right ones"
    first = next(e for e in reach.elements if not e.correct)
    got = f"element {first.hit}" if first.hit else "a byte outside the tile"
    return (f"descriptor {d.hex} ({d.summary}): {reach.wrong} of {len(reach.elements)} elements wrong for the MMA at "
            f"k0={reach.k0}; e.g. (mn {first.mn}, k {first.k}) should read {first.expected} but reads {got} at byte "
            f"{first.addr:#x}")


def smem_grid(tile: Any, view: str) -> views.Grid:
    t = tile.layout
    return views.smem_grid(f"{view} of each 16-byte chunk ({t.major}-major, {t.swizzle.name}, {t.dtype})", t, view)


def smem_json(tile: Any, at_addr: int | None, place: Any, reach: Any) -> str:
    meta = tile.as_dict()
    if at_addr is not None:
        meta["at"] = {"addr": at_addr, "element": tile.element_at(at_addr)}
    if place is not None:
        meta["element"] = place.as_dict()
    if reach is not None:
        meta["reach"] = reach.as_dict()
    return _records(meta, lines=[p.json_line() for p in tile.elements])


# ---- accumulator --------------------------------------------------------------------------------


def accum_reads(acc: Any, read: str, num: int | None, sample_only: bool) -> dict[str, Any]:
    """Which thread/register reads each D element back with tcgen05.ld `read` (warp 0 for the text)."""
    from fmhactl.layout import mapping, tmem

    per_cta = acc.rows_per_cta
    if num is None:
        per = tmem.columns_per_half(read, 1) * (2 if read == "16x32bx2" else 1) if read in tmem.SHAPES else 1
        fits = [k for k in tmem.NUMS if k * per <= acc.n and tmem.REGS_PER_REP.get(read, 1) * k <= 128]
        num = max(fits) if fits else 1
    tmem.check_shape(read, num)
    lane0, col0 = tmem.split_addr(acc.d_tmem)
    producer = mapping.Producer(read, num, False, per_cta, acc.n, col0, lane0)
    records = mapping.producer_values(producer, [0] if sample_only else None)
    return {"read": read, "num": num, "records": records, "loads": mapping.producer_loads(producer, 0)}


def accum_lines(acc: Any, reads: dict[str, Any]) -> list[str]:
    from fmhactl.layout import tmem

    lane0, col0 = tmem.split_addr(acc.d_tmem)
    n = acc.n
    out = []
    if acc.cta_group == 2:
        out.append(f"M=256, N={n}, cta_group::2: CTA 0 holds rows 0..127, CTA 1 rows 128..255, each in layout D "
                   f"(row m -> lane m % 128, column {col0}+n).")
    elif acc.m == 128:
        out.append(f"M=128, N={n} (layout D): D[m][n] -> TMEM lane m, column {col0}+n. Columns {col0}..{col0 + n - 1} "
                   "are all used, contiguously; nothing is skipped.")
    else:
        out.append(f"M=64, N={n} (layout F): D[m][n] -> lane {lane0} + m%16 + 32*(m/16), column {col0}+n: 16 rows in "
                   f"each lane quarter; lanes {16 - lane0}..{31 - lane0} of every quarter are left for another M=64 "
                   "tile (d-tmem lane 16).")
    out.append(f"Allocate {acc.alloc_columns} columns (tcgen05.alloc takes a power of two, >= 32). Warp w (w % 4) "
               f"reads D rows {'32w..32w+31' if acc.rows_per_cta == 128 else '16w..16w+15'}.")
    loads = reads["loads"]
    out.append(f"Read with tcgen05.ld.{reads['read']}.x{reads['num']}: warp 0 issues {len(loads)} load(s) at taddr "
               + ", ".join(f"0x{ld.taddr:08x}" for ld in loads[:6]) + (" ..." if len(loads) > 6 else "")
               + " (warp w adds (32w)<<16).")
    sample = [r for r in reads["records"] if r.thread in (0, 1) and r.load == 0][:6]
    if sample:
        out.append("  e.g. " + "; ".join(f"thread {r.thread} r[{r.reg}] = D[{r.m}][{r.n}]" for r in sample))
    if acc.m == 128 and n == 64:
        out.append("If an M=128, N=64 MMA seems to skip columns (e.g. 32-35, 48-51): the layout has no holes. Check the "
                   "instruction descriptor (`fmhactl layout idesc decode`): M>>4 belongs at bits 24-28; written at bit "
                   "23 it turns M=128 into M=64 (layout F), e.g. 0x04100490 vs 0x08100490. Then check the read: "
                   "16x256b and 16x64b do not map thread t to row t.")
    return out


def accum_grid(acc: Any) -> views.Grid:
    from fmhactl.layout import tmem

    lane0, col0 = tmem.split_addr(acc.d_tmem)
    return views.accum_grid(f"D {acc.rows_per_cta}x{acc.n} in TMEM (layout {acc.layout})"
                            + (" - per CTA of the pair" if acc.cta_group == 2 else ""),
                            acc.rows_per_cta, acc.n, lane0, col0, max(8, min(32, acc.n // 4 or 8)))


def accum_json(acc: Any, reads: dict[str, Any]) -> str:
    per = acc.rows_per_cta
    reader: dict[tuple[int, int], str] = {}
    for r in reads["records"]:
        reader[(r.m, r.n)] = f', "reader_thread": {r.thread}, "reader_load": {r.load}, "reader_reg": {r.reg}'
    lines = [f'{{"m": {e.m}, "n": {e.n}, "cta": {e.cta}, "lane": {e.lane}, "col": {e.col}, "warp": {e.lane >> 5}, '
             f'"lane_in_warp": {e.lane & 31}{reader.get((e.m % per, e.n), "")}}}' for e in acc.entries]
    return _records({**acc.as_dict(), "read": f"{reads['read']}.x{reads['num']}"}, lines=lines)


# ---- descriptors --------------------------------------------------------------------------------

_TITLES = {"smem": "tcgen05 shared-memory descriptor", "wgmma": "wgmma descriptor (Hopper)",
           "idesc": "tcgen05.mma instruction descriptor"}


def descriptor_table(view: Any) -> TextTable:
    rows = tuple((f.bits, f.name, f.display, f.allowed, "BAD" if f.bad else "") for f in view.fields)
    return TextTable(f"{_TITLES[view.kind]} {view.hex}", ("bits", "field", "value", "allowed", ""), rows)


def descriptor_verdict(view: Any) -> str:
    return ("valid: " if view.ok else "INVALID: ") + view.summary


def descriptor_svg(view: Any) -> str:
    from fmhactl.layout.fields import TABLES

    table = TABLES[view.kind]
    return svg_bitfield(f"{_TITLES[view.kind]} {view.hex}", table.bits, views.table_fields(table, view.value,
                                                                                            view.problems),
                        view.summary + ("" if view.ok else "; red: fields with errors"))


# ---- producer -> consumer map ------------------------------------------------------------------


def thread_list(text: str) -> list[int]:
    if text.strip().lower() == "all":
        return list(range(128))
    if len(text) > 400:
        raise LayoutError("--threads: too long (name threads 0..127, e.g. 0-31 or all)")
    out: list[int] = []
    for part in text.split(","):
        if "-" in part.strip()[1:]:
            lo, hi = part.split("-", 1)
            a, b = parse_int(lo, "--threads"), parse_int(hi, "--threads")
            if not (0 <= a <= b < 128):
                raise LayoutError(f"--threads range {part.strip()!r} must lie in 0..127")
            out.extend(range(a, b + 1))
        elif part.strip():
            out.append(parse_int(part, "--threads"))
    if not out or any(not 0 <= t < 128 for t in out):
        raise LayoutError(f"--threads must name threads 0..127 of the warpgroup; got {text!r}")
    return out


def map_table(mp: Any, threads: list[int], runs_per_thread: int = 12) -> TextTable:
    from fmhactl.layout import mapping

    cons = mapping.Consumer("smem" if mp.store_plan is not None else "tmem", dtype=mp.dtype)
    rows = []
    by_thread: dict[int, list[Any]] = {}
    for r in mp.records:
        by_thread.setdefault(r.thread, []).append(r)
    for t in threads:
        mine = sorted(by_thread.get(t, []), key=lambda r: (r.load, r.reg, r.reg_bit_lo))
        if not mine:
            rows.append((str(t), "-", "-", "holds no element", "", ""))
            continue
        runs = mapping.value_runs(mine, cons)
        for run in runs[:runs_per_thread]:
            regs = f"r{run.reg_first}" if run.reg_first == run.reg_last else f"r{run.reg_first}-r{run.reg_last}"
            vals = (f"S[{run.m}][{run.n_first}]" if run.n_first == run.n_last
                    else f"S[{run.m}][{run.n_first}..{run.n_last}]")
            banks = "" if not run.banks else f"{run.banks[0]}-{run.banks[-1]}"
            rows.append((f"{t} (w{t // 32} l{t % 32})", str(run.load), regs, vals, run.where, banks))
        if len(runs) > runs_per_thread:
            rows.append((str(t), "...", "", f"{len(runs) - runs_per_thread} more runs (see --json)", "", ""))
    return TextTable("where each thread's values go (consecutive registers with consecutive destinations merged)",
                     ("thread", "load", "registers", "values", "destination", "banks"), tuple(rows))


def map_plan_lines(mp: Any) -> list[str]:
    out = []
    plan = mp.store_plan
    if plan is not None:
        out.append(f"stores: {plan.note}")
        for w, rep in plan.per_warp.items():
            out.append(f"  warp {w}: {rep.wavefronts} wavefronts for {plan.instructions} stores (ideal {rep.ideal}) -> "
                       f"{rep.conflicts} conflict wavefronts"
                       + (f", worst bank {rep.worst_bank} x{rep.worst_degree}" if rep.conflicts else ""))
    if mp.tmem_plan:
        out.append(mp.tmem_plan)
    return out


def map_hit_lines(records: Any) -> list[str]:
    out = []
    for r in records:
        dest = (f"smem byte {r.addr:#x} (bank {(r.addr >> 2) & 31})" if r.addr >= 0
                else f"TMEM lane {r.tmem_lane} column {r.tmem_col} bits {r.tmem_bit}..")
        out.append(f"P[{r.m}][{r.n}]: thread {r.thread} (warp {r.thread // 32}, lane {r.thread % 32}) load {r.load} "
                   f"r[{r.reg}] bits {r.reg_bit_lo}.. -> {dest}")
    return out or ["no thread holds that element in this map"]


def map_grid(mp: Any) -> views.Grid:
    return views.map_grid(f"{mp.source} -> {mp.dest}: who writes where", list(mp.records))


def map_svg_subtitle(mp: Any) -> str:
    return ("one row per 128-byte line, one cell per physical 16-byte chunk; colour = writing thread (hover for "
            "details)" if mp.store_plan is not None else "cell = producer thread.register; colour = thread")


def map_json(mp: Any) -> str:
    meta = mp.as_dict()
    if mp.stores is not None:
        meta["store_phases"] = [i.as_dict() for i in mp.stores.instructions]
    return _records(meta, lines=[r.json_line() for r in mp.records])


# ---- bank conflicts ------------------------------------------------------------------------------


def banks_lane_table(pattern: Any) -> TextTable:
    first = pattern.instructions[0]
    rows = tuple((str(a.lane), str(a.row), str(a.k), str(a.addr),
                  f"{a.banks[0]}" if len(a.banks) == 1 else f"{a.banks[0]}-{a.banks[-1]}") for a in first.lanes)
    return TextTable(f"instruction i=0: lane -> element -> bank ({pattern.vec} B per lane)",
                     ("lane", "row", "k", "byte", "banks"), rows)


def banks_phase_table(pattern: Any, limit: int = 16) -> TextTable:
    rows = []
    for ins in pattern.instructions[:limit]:
        for ph in ins.phases:
            rows.append((str(ins.index), f"{ph.first_lane}-{ph.last_lane}", str(ph.wavefronts), str(ph.conflicts),
                         "" if ph.worst_bank is None or not ph.conflicts else f"bank {ph.worst_bank}"))
    more = f" (first {limit} of {len(pattern.instructions)} instructions; all in --json)" \
        if len(pattern.instructions) > limit else ""
    return TextTable("wavefronts per phase" + more, ("i", "lanes", "wavefronts", "conflicts", "worst"), tuple(rows))


def banks_verdict(pattern: Any) -> str:
    total, ideal = pattern.wavefronts, pattern.ideal
    verdict = "conflict-free" if total == ideal else f"{total - ideal} extra wavefronts ({total / ideal:.2f}x)"
    return f"total: {total} wavefronts, ideal {ideal}: {verdict}"


def banks_grid(pattern: Any) -> views.Grid:
    first = pattern.instructions[0]
    return views.banks_grid(f"instruction i=0: {pattern.vec} B per lane, {first.wavefronts} wavefronts (ideal "
                            f"{first.ideal})", [(a.lane, a.row, a.k, a.addr) for a in first.lanes], pattern.vec)
