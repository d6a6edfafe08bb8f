"""`fmhactl layout ...`: TMEM, shared-memory, accumulator and descriptor layouts of tcgen05.

Thin shells over fmhactl.layout (imported inside each command so `fmhactl --help` stays fast).
Every command prints a coloured table, or JSON with --json, and draws an SVG with --svg FILE.
Exit codes: 0 ok, 1 a check failed (lane-quarter violation, descriptor with errors, overlapping
strides; bank conflicts are reported, not failures), 2 bad input.
"""

from __future__ import annotations

from typing import Any

import typer

from fmhactl.cli.common import err_console, guarded, out_console, print_json

layout_app = typer.Typer(no_args_is_help=True, add_completion=False,
                         help="Layouts of tcgen05 (SM100): TMEM ld/st maps, accumulators, canonical shared-memory "
                              "layouts, UMMA/wgmma descriptors, producer->consumer maps and bank conflicts.\n\n"
                              "Exit codes: 0 ok, 1 a check failed, 2 bad input.")
desc_app = typer.Typer(no_args_is_help=True, help="The 64-bit shared-memory matrix descriptor (SM100; --arch sm90 "
                                                  "for Hopper wgmma).")
idesc_app = typer.Typer(no_args_is_help=True, help="The 32-bit tcgen05.mma instruction descriptor "
                                                   "(kind::f16 / kind::tf32).")
layout_app.add_typer(desc_app, name="desc")
layout_app.add_typer(idesc_app, name="idesc")

JSON_OPT = typer.Option(False, "--json", help="Print JSON on stdout instead of tables.")
SVG_OPT = typer.Option(None, "--svg", metavar="FILE", help="Also write an SVG picture to FILE.")


def register(app: typer.Typer) -> None:
    app.add_typer(layout_app, name="layout", rich_help_panel="Layouts",
                  help="Layouts of tcgen05/TMEM/UMMA: maps, descriptors, bank conflicts (exit 1: a check failed).")


def _print_records(meta: dict[str, Any], records: list[dict[str, Any]] | None = None,
                   lines: list[str] | None = None) -> None:
    """--json output: metadata, then one record per line."""
    import sys

    from fmhactl.layout.render import json_document

    sys.stdout.write(json_document(meta, records, lines))


def _int(text: str | None, what: str, default: int | None = None) -> int | None:
    from fmhactl.layout.common import parse_int

    return default if text is None else parse_int(text, what)


def _print_problems(problems: list[Any]) -> None:
    from rich.markup import escape

    for p in problems:
        colour = {"error": "red", "warning": "yellow"}.get(p.severity, "cyan")
        out_console.print(f"[{colour}]{p.severity}[/] [bold]{p.code}[/]: {escape(p.message)}")


def _emit_grid(grid: Any, svg: str | None, subtitle: str, max_rows: int = 64, max_cols: int = 24,
               quiet: bool = False) -> None:
    from fmhactl.layout.render import write_svg

    if svg:
        write_svg(svg, grid.to_svg(subtitle))
        err_console.print(f"wrote {svg}")
    if not quiet:
        shown, hidden = grid.clipped(max_rows, max_cols)
        out_console.print(shown.to_rich())
        if hidden:
            out_console.print(f"[dim]{hidden}[/]")


def _fail_if_errors(problems: list[Any]) -> None:
    if any(p.severity == "error" for p in problems):
        raise typer.Exit(1)


@layout_app.command("tmem")
@guarded
def tmem_cmd(
    shape: str = typer.Option("32x32b", "--shape", help="32x32b, 16x64b, 16x128b, 16x256b or 16x32bx2."),
    num: int = typer.Option(1, "--num", help=".num: 1, 2, 4, ..., 128 (limits depend on the shape)."),
    warp: int = typer.Option(0, "--warp", help="Warp index in the CTA; its lane quarter is warp % 4."),
    pack: bool = typer.Option(False, "--pack", help=".pack::16b (ld) / .unpack::16b (st)."),
    taddr: str = typer.Option(None, "--taddr", help="TMEM address (lane<<16 | column); default: the warp's quarter, "
                                                     "column 0."),
    imm: str = typer.Option(None, "--imm", help="16x32bx2 immHalfSplitoff (default: num, or 2*num with --pack)."),
    view: str = typer.Option("grid", "--view", help="grid (lanes x columns) or threads (thread x register)."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Which thread and register each TMEM cell of one tcgen05.ld/st goes to (and back).

    Exit 1 when the access leaves the warp's lane quarter or TMEM.
    """
    from fmhactl.layout import tmem, views
    from fmhactl.layout.common import LayoutError

    if view not in ("grid", "threads"):
        raise LayoutError(f"--view must be grid or threads; got {view!r}")
    tmem.check_shape(shape, num)
    addr = _int(taddr, "--taddr", tmem.join_addr(32 * (warp % 4), 0))
    assert addr is not None
    accesses = tmem.ld_map(shape, num, pack, addr, _int(imm, "--imm"))
    problems = tmem.access_problems(accesses, warp)
    regs = tmem.regs_per_thread(shape, num)
    instr = f"tcgen05.ld.sync.aligned.{shape}.x{num}{'.pack::16b' if pack else ''}.b32"
    if as_json:
        _print_records({"schema": "fmhactl.layout.tmem/1", "instruction": instr, "shape": shape, "num": num,
                        "pack": pack, "warp": warp, "taddr": f"0x{addr:08x}", "registers_per_thread": regs,
                        "problems": [p.as_dict() for p in problems]},
                       [{**a.as_dict(), "cta_thread": 32 * warp + a.thread} for a in accesses])
    else:
        lanes = sorted({a.lane for a in accesses})
        cols = sorted({a.col for a in accesses})
        out_console.print(f"[bold]{instr}[/] (st: same map with .unpack::16b) - warp {warp}, taddr 0x{addr:08x}: "
                          f"{regs} registers per thread, lanes {lanes[0]}..{lanes[-1]}, columns {cols[0]}..{cols[-1]}")
        _print_problems(problems)
    grid = views.tmem_grid(f"{instr} warp {warp}", accesses, warp)
    if view == "threads" and not as_json:
        from rich.table import Table

        table = Table(title="thread x register -> TMEM cell (L lane, c column; lo/hi: register half)",
                      header_style="bold")
        table.add_column("thread", justify="right")
        shown = min(regs, 16)
        for i in range(shown):
            table.add_column(f"r{i}", no_wrap=True)
        by_key = {}
        for a in accesses:
            by_key.setdefault((a.thread, a.reg), []).append(a)
        for t in range(32):
            row = [f"{32 * warp + t} (t{t})"]
            for i in range(shown):
                half = lambda a: "" if a.nbits == 32 else ("lo" if a.reg_bit_lo == 0 else "hi")  # noqa: E731
                row.append(" ".join(f"L{a.lane}c{a.col}{half(a)}" for a in by_key[(t, i)]))
            table.add_row(*row)
        out_console.print(table)
        if regs > shown:
            out_console.print(f"[dim]... {regs - shown} more registers (see --json)[/]")
        _emit_grid(grid, svg, instr, quiet=True)
    else:
        _emit_grid(grid, svg, f"{instr} - cell = thread.register", quiet=as_json)
    _fail_if_errors(problems)


@layout_app.command("smem")
@guarded
def smem_cmd(
    major: str = typer.Option("K", "--major", help="K (K contiguous) or MN."),
    swizzle: str = typer.Option("128B", "--swizzle", help="none, 32B, 64B, 128B or 128B_base32B."),
    rows: int = typer.Option(128, "--rows", help="M (or N) extent of the tile."),
    cols: int = typer.Option(64, "--cols", help="K extent of the tile."),
    dtype: str = typer.Option("bf16", "--dtype", help="Element type: bf16, f16, tf32, f32, e4m3, ..."),
    lbo: str = typer.Option(None, "--lbo", help="Leading byte offset (default: what TMA writes)."),
    sbo: str = typer.Option(None, "--sbo", help="Stride byte offset (default: what TMA writes)."),
    katom: str = typer.Option(None, "--katom", help="K-major swizzled: bytes between K atom columns."),
    base: str = typer.Option("0", "--base", help="Absolute shared-memory address of the tile (swizzle is absolute)."),
    view: str = typer.Option("offset", "--view", help="Cell label: offset, bank, chunk or core."),
    max_rows: int = typer.Option(32, "--max-rows", help="Rows to print (the SVG and JSON have all)."),
    at: str = typer.Option(None, "--at", help="Also say which element sits at this byte (absolute address)."),
    element: str = typer.Option(None, "--element", help="Also say where element ROW,K sits."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """A canonical UMMA/GMMA operand tile: element (row, k) -> byte, core matrix, bank; descriptors per MMA.

    Exit 1 when the given LBO/SBO make elements overlap.
    """
    from fmhactl.layout import smem, views
    from fmhactl.layout.common import LayoutError

    if view not in ("offset", "bank", "chunk", "core"):
        raise LayoutError(f"--view must be offset, bank, chunk or core; got {view!r}")
    tile = smem.make_tile(major, swizzle, rows, cols, dtype, _int(lbo, "--lbo"), _int(sbo, "--sbo"),
                          _int(katom, "--katom"), _int(base, "--base", 0) or 0)
    problems = tile.problems()
    slices = tile.mma_slices()
    queries: dict[str, Any] = {}
    if at is not None:
        addr = _int(at, "--at")
        queries["at"] = {"addr": addr, "element": tile.element_at(addr)}
    if element is not None:
        parts = [_int(x, "--element") for x in element.split(",")]
        if len(parts) != 2:
            raise LayoutError("--element takes ROW,K")
        queries["element"] = tile.place(parts[0], parts[1]).as_dict()
    swz = tile.swizzle
    head = (f"{tile.major}-major, swizzle {swz.name}, {tile.dtype} ({tile.elem_bytes} B), {rows} x {cols} "
            f"(rows = M/N, cols = K), base 0x{tile.base:x}")
    if as_json:
        _print_records({"schema": "fmhactl.layout.smem/1", "major": tile.major, "swizzle": swz.name,
                        "dtype": tile.dtype, "rows": rows, "cols": cols, "lbo": tile.lbo, "sbo": tile.sbo,
                        "k_atom_stride": tile.k_atom_stride, "base": tile.base, "footprint": tile.footprint(),
                        "notes": list(tile.notes), "problems": [p.as_dict() for p in problems],
                        "mma": [{"kb": s.kb, "k0": s.k0, "start": s.start, "descriptor": f"0x{s.descriptor():016x}"}
                                for s in slices], **queries},
                       lines=[p.json_line() for p in tile.places()])
    else:
        out_console.print(f"[bold]{head}[/]")
        atom = (f"atom {8 if swz is not smem.SW128_BASE32B else 4} x {swz.width} B" if swz.swizzled
                else "core matrix 8 x 16 B")
        out_console.print(f"LBO {tile.lbo} B, SBO {tile.sbo} B, {atom}"
                          + (f", K atom columns every {tile.k_atom_stride} B" if tile.k_atom_stride else "")
                          + f"; footprint {tile.footprint()} B")
        for note in tile.notes:
            out_console.print(f"[dim]note: {note}[/]")
        _print_problems(problems)
        from rich.table import Table

        table = Table(title=f"one MMA per {tile.mma_k} K elements ({smem.MMA_K_BYTES} B)", header_style="bold")
        for name in ("kb", "k", "start (B)", "descriptor"):
            table.add_column(name, justify="right")
        for s in slices[:16]:
            table.add_row(str(s.kb), f"{s.k0}..{min(s.k0 + tile.mma_k, cols) - 1}", str(s.start),
                          f"0x{s.descriptor():016x}")
        out_console.print(table)
        out_console.print("[dim]k is the column inside this tile: an MMA's descriptor starts at its k-block, and "
                          "coordinates inside one MMA are local (0..K-1), never the full head dimension.[/]")
        if "at" in queries:
            hit = queries["at"]["element"]
            out_console.print(f"byte {queries['at']['addr']:#x}: " + (f"element (row {hit[0]}, k {hit[1]})" if hit
                              else "no element starts there"), markup=False)
        if "element" in queries:
            q = queries["element"]
            out_console.print(f"element (row {q['row']}, k {q['k']}): byte {q['addr']:#x} "
                              f"(logical {q['logical_addr']:#x}), core matrix ({q['core_row']}, {q['core_col']}), "
                              f"bank {q['bank']}, chunk {q['chunk']}", markup=False)
    grid = views.smem_grid(f"{view} of each 16-byte chunk ({tile.major}-major, {swz.name}, {tile.dtype})", tile, view)
    _emit_grid(grid, svg, f"LBO {tile.lbo} B, SBO {tile.sbo} B; cell = one 16-byte chunk, colour = physical chunk",
               max_rows=max_rows, max_cols=32, quiet=as_json)
    _fail_if_errors(problems)


@layout_app.command("accum")
@guarded
def accum_cmd(
    m: int = typer.Option(128, "--m", help="MMA M: 64 (layout F) or 128 (layout D)."),
    n: int = typer.Option(64, "--n", help="MMA N: 8..256 in steps of 8."),
    dtmem: str = typer.Option("0", "--dtmem", help="d-tmem address (lane<<16 | column)."),
    read: str = typer.Option("32x32b", "--read", help="tcgen05.ld shape the epilogue/softmax uses."),
    num: int = typer.Option(None, "--num", help=".num of the read (default: the widest that fits N)."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Where tcgen05.mma (cta_group::1) leaves D[m][n] in TMEM, and which thread reads it back."""
    from fmhactl.layout import accum, mapping, tmem, views

    addr = _int(dtmem, "--dtmem", 0) or 0
    cells = accum.accumulator_map(m, n, addr)
    lane0, col0 = tmem.split_addr(addr)
    problems = accum.check_mn(m, n)
    if num is None:
        per = tmem.columns_per_half(read, 1) * (2 if read == "16x32bx2" else 1)
        num = max(k for k in tmem.NUMS if k * per <= n and tmem.REGS_PER_REP[read] * k <= 128) if per <= n else 1
    producer = mapping.Producer(read, num, False, m, n, col0, lane0)
    records = mapping.producer_values(producer, None if as_json else [0])  # the text shows warp 0's reads
    map_problems: list[Any] = []
    if as_json:
        reader = [""] * (m * n)
        for r in records:
            reader[r.m * n + r.n] = f', "reader_thread": {r.thread}, "reader_load": {r.load}, "reader_reg": {r.reg}'
        lines = [f'{{"m": {c.m}, "n": {c.n}, "lane": {c.lane}, "col": {c.col}, "warp": {c.lane >> 5}, '
                 f'"lane_in_warp": {c.lane & 31}{reader[c.m * n + c.n]}}}' for c in cells]
        _print_records({"schema": "fmhactl.layout.accum/1", "m": m, "n": n, "dtmem": f"0x{addr:08x}",
                        "layout": "D" if m == 128 else "F", "read": f"{read}.x{num}",
                        "problems": [p.as_dict() for p in problems + map_problems]}, lines=lines)
    else:
        say = lambda text, style="": out_console.print(text, markup=False, style=style or None)  # noqa: E731
        if m == 128:
            say(f"M=128, N={n} (layout D): D[m][n] -> TMEM lane m, column {col0}+n. Columns {col0}..{col0 + n - 1} "
                "are all used, contiguously; nothing is skipped.", "bold")
        else:
            say(f"M=64, N={n} (layout F): D[m][n] -> lane {lane0} + m%16 + 32*(m/16), column {col0}+n: 16 rows in "
                f"each lane quarter; lanes {16 - lane0}..{31 - lane0} of every quarter are left for another M=64 "
                "tile (d-tmem lane 16).", "bold")
        say(f"Allocate {tmem.min_alloc_columns(col0 + n)} columns (tcgen05.alloc takes a power of two, >= 32). "
            f"Warp w (w % 4) reads D rows {'32w..32w+31' if m == 128 else '16w..16w+15'}.")
        loads = mapping.producer_loads(producer, 0)
        say(f"Read with tcgen05.ld.{read}.x{num}: warp 0 issues {len(loads)} load(s) at taddr "
            + ", ".join(f"0x{ld.taddr:08x}" for ld in loads[:6]) + (" ..." if len(loads) > 6 else "")
            + " (warp w adds (32w)<<16).")
        sample = [r for r in records if r.thread in (0, 1) and r.load == 0][:6]
        if sample:
            say("  e.g. " + "; ".join(f"thread {r.thread} r[{r.reg}] = D[{r.m}][{r.n}]" for r in sample))
        _print_problems(problems + map_problems)
        if m == 128 and n == 64:
            say("If an M=128, N=64 MMA seems to skip columns (e.g. 32-35, 48-51): the layout has no holes. Check the "
                "instruction descriptor (`fmhactl layout idesc decode`): M>>4 belongs at bits 24-28; written at bit "
                "23 it turns M=128 into M=64 (layout F), e.g. 0x04100490 vs 0x08100490. Then check the read: "
                "16x256b and 16x64b do not map thread t to row t.", "dim")
    grid = views.accum_grid(f"D {m}x{n} in TMEM (layout {'D' if m == 128 else 'F'})", m, n, lane0, col0,
                            max(8, min(32, n // 4 or 8)))
    _emit_grid(grid, svg, "cell = D rows/columns held by 16 lanes x a block of columns; colour = reading warp",
               quiet=as_json)


def _desc_table(title: str, rows: list[tuple[str, str, str]]) -> Any:
    from rich.table import Table

    table = Table(title=title, header_style="bold")
    for name in ("bits", "field", "value"):
        table.add_column(name, no_wrap=True)
    for r in rows:
        table.add_row(*r)
    return table


def _show_smem_desc(value: int, arch: str, major: str | None, as_json: bool, svg: str | None = None) -> list[Any]:
    from fmhactl.layout import render, views

    if arch == "sm90":
        from fmhactl.layout.wgmma import decode_wgmma_desc

        w = decode_wgmma_desc(value)
        if svg:
            render.write_svg(svg, render.svg_bitfield(f"wgmma descriptor 0x{value:016x}", 64,
                                                      views.wgmma_desc_fields(w), "Hopper (sm_90)"))
            err_console.print(f"wrote {svg}")
        if as_json:
            print_json({"schema": "fmhactl.layout.desc/1", "arch": "sm90", **w.as_dict()})
        else:
            swz = w.swizzle
            out_console.print(_desc_table(f"wgmma descriptor 0x{value:016x}", [
                ("0-13", "start address", f"{w.start} B"), ("16-29", "LBO", f"{w.lbo} B"),
                ("32-45", "SBO", f"{w.sbo} B"), ("49-51", "base offset", str(w.base_offset)),
                ("62-63", "layout", f"{w.layout_code} ({swz.name if swz else '?'})"),
                ("other", "unused bits", f"0x{w.unused_bits:x}")]))
            _print_problems(list(w.problems))
        return list(w.problems)
    from fmhactl.layout.descriptors import decode_smem_desc

    d = decode_smem_desc(value, major)
    if svg:
        render.write_svg(svg, render.svg_bitfield(f"tcgen05 shared-memory descriptor 0x{value:016x}", 64,
                                                  views.smem_desc_fields(d),
                                                  "red: fields with errors" if not d.ok else "valid"))
        err_console.print(f"wrote {svg}")
    if as_json:
        print_json({"schema": "fmhactl.layout.desc/1", "arch": "sm100", **d.as_dict()})
    else:
        swz = d.swizzle
        out_console.print(_desc_table(f"tcgen05 shared-memory descriptor 0x{value:016x}", [
            ("0-13", "start address", f"{d.start} B (0x{d.start:x})"), ("14-15", "reserved", str(d.reserved_14_15)),
            ("16-29", "LBO (leading byte offset)", f"{d.lbo} B"), ("30-31", "reserved", str(d.reserved_30_31)),
            ("32-45", "SBO (stride byte offset)", f"{d.sbo} B"), ("46-48", "fixed (must be 0b001)",
                                                                  f"0b{d.fixed_46_48:03b}"),
            ("49-51", "base offset", str(d.base_offset)), ("52", "LBO mode", str(d.lbo_mode)),
            ("53-60", "reserved", str(d.reserved_53_60)),
            ("61-63", "layout type", f"{d.layout_code} ({swz.name if swz else 'invalid'})")]))
        _print_problems(list(d.problems))
        if d.ok:
            out_console.print("[green]valid[/] for tcgen05.mma")
    return list(d.problems)


@desc_app.command("decode")
@guarded
def desc_decode(
    value: str = typer.Argument(..., help="Descriptor value, e.g. 0x4000404000010000."),
    arch: str = typer.Option("sm100", "--arch", help="sm100 (tcgen05) or sm90 (wgmma)."),
    major: str = typer.Option(None, "--major", help="K or MN: enables checks that depend on the operand layout."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Fields and named problems of a descriptor. Exit 1 when it has errors."""
    from fmhactl.layout.common import LayoutError, parse_int

    if arch not in ("sm100", "sm90"):
        raise LayoutError(f"--arch must be sm100 or sm90; got {arch!r}")
    v = parse_int(value, "descriptor")
    _fail_if_errors(_show_smem_desc(v, arch, major, as_json, svg))


@desc_app.command("encode")
@guarded
def desc_encode(
    start: str = typer.Option(..., "--start", help="Shared-memory byte address (multiple of 16)."),
    lbo: str = typer.Option("16", "--lbo", help="Leading byte offset in bytes."),
    sbo: str = typer.Option(..., "--sbo", help="Stride byte offset in bytes."),
    swizzle: str = typer.Option("none", "--swizzle", help="none, 32B, 64B, 128B or 128B_base32B."),
    base_offset: int = typer.Option(0, "--base-offset", help="Bits 49-51 (0 unless atoms are misaligned)."),
    arch: str = typer.Option("sm100", "--arch", help="sm100 (tcgen05) or sm90 (wgmma)."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Build a descriptor from byte quantities and show it decoded."""
    from fmhactl.layout.common import LayoutError, parse_int

    s, lb, sb = parse_int(start, "--start"), parse_int(lbo, "--lbo"), parse_int(sbo, "--sbo")
    if arch == "sm90":
        from fmhactl.layout.wgmma import encode_wgmma_desc

        value = encode_wgmma_desc(s, lb, sb, swizzle, base_offset)
    elif arch == "sm100":
        from fmhactl.layout.descriptors import encode_smem_desc

        value = encode_smem_desc(s, lb, sb, swizzle, base_offset)
    else:
        raise LayoutError(f"--arch must be sm100 or sm90; got {arch!r}")
    if not as_json:
        out_console.print(f"[bold]0x{value:016x}[/]")
    _show_smem_desc(value, arch, None, as_json, svg)


def _show_idesc(value: int, as_json: bool, svg: str | None = None) -> list[Any]:
    from fmhactl.layout import idesc, render, views

    d = idesc.decode(value)
    if svg:
        render.write_svg(svg, render.svg_bitfield(f"tcgen05.mma instruction descriptor 0x{value:08x}", 32,
                                                  views.idesc_fields(d), f"kind::{d.kind}; red: fields with errors"))
        err_console.print(f"wrote {svg}")
    if as_json:
        print_json({"schema": "fmhactl.layout.idesc/1", **d.as_dict()})
        return list(d.problems)
    f = d.as_dict()
    out_console.print(_desc_table(f"tcgen05.mma instruction descriptor 0x{value:08x} (kind::{d.kind})", [
        ("0-1", "sparsity selector", str(d.sparse_selector)), ("2", "sparse", str(d.sparse)),
        ("3", "saturate", str(d.saturate)), ("4-5", "D format", f"{d.d_format} ({f['d_format']})"),
        ("6", "reserved", str(d.reserved_6)), ("7-9", "A format", f"{d.a_format} ({f['a_format']})"),
        ("10-12", "B format", f"{d.b_format} ({f['b_format']})"), ("13", "negate A", str(d.negate_a)),
        ("14", "negate B", str(d.negate_b)), ("15", "A major", f"{d.a_major} ({f['a_major']})"),
        ("16", "B major", f"{d.b_major} ({f['b_major']})"), ("17-22", "N >> 3", f"{d.n >> 3} (N={d.n})"),
        ("23", "reserved", str(d.reserved_23)), ("24-28", "M >> 4", f"{d.m >> 4} (M={d.m})"),
        ("29", "reserved", str(d.reserved_29)), ("30-31", "max shift", str(d.max_shift))]))
    _print_problems(list(d.problems))
    if d.ok:
        out_console.print(f"[green]valid[/]: {d.m}x{d.n}x{d.k} {f['a_format']}x{f['b_format']} -> {f['d_format']}")
    return list(d.problems)


@idesc_app.command("decode")
@guarded
def idesc_decode(value: str = typer.Argument(..., help="Instruction descriptor, e.g. 0x08400010."),
                 as_json: bool = JSON_OPT, svg: str = SVG_OPT) -> None:
    """Fields and named problems of an instruction descriptor. Exit 1 when it has errors."""
    from fmhactl.layout.common import parse_int

    _fail_if_errors(_show_idesc(parse_int(value, "instruction descriptor"), as_json, svg))


@idesc_app.command("encode")
@guarded
def idesc_encode(
    a: str = typer.Option("bf16", "--a", help="A type: f16, bf16 or tf32."),
    b: str = typer.Option(None, "--b", help="B type (default: A's)."),
    d: str = typer.Option("f32", "--d", help="Accumulator type: f32 or f16."),
    m: int = typer.Option(128, "--m", help="64 or 128."),
    n: int = typer.Option(256, "--n", help="8..256 in steps of 8."),
    a_major: str = typer.Option("K", "--a-major", help="K or MN."),
    b_major: str = typer.Option("K", "--b-major", help="K or MN."),
    neg_a: bool = typer.Option(False, "--neg-a"),
    neg_b: bool = typer.Option(False, "--neg-b"),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Build an instruction descriptor; impossible combinations exit 2."""
    from fmhactl.layout import idesc

    value = idesc.encode(a, b, d, m, n, a_major, b_major, neg_a, neg_b)
    if not as_json:
        out_console.print(f"[bold]0x{value:08x}[/]")
    _show_idesc(value, as_json, svg)


@layout_app.command("map")
@guarded
def map_cmd(
    src: str = typer.Option("tmem:32x32b:num=8", "--from", help="Producer: tmem:SHAPE[:num=N][:pack][:col=C]"
                                                                "[:lane=L][:acc=f32|f16] (the QK accumulator, read by "
                                                                "warps 0-3)."),
    dst: str = typer.Option("smem:K:128B", "--to", help="Consumer (the PV A operand): smem:MAJOR:SWIZZLE[:lbo=][:sbo=]"
                                                        "[:base=] or tmem[:col=C] (TS form)."),
    m: int = typer.Option(128, "--m", help="Rows of S/P (QK MMA M)."),
    n: int = typer.Option(128, "--n", help="Columns of S = K of the PV MMA."),
    dtype: str = typer.Option("bf16", "--dtype", help="Element type of P."),
    warp: int = typer.Option(None, "--warp", help="Only this warp (0-3)."),
    threads: str = typer.Option("0,1", "--threads", help="Threads (0-127) to list: 0,1 or 0-31 or all."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Per thread, where each value of S goes when it becomes P: the SMEM-P (or TMEM-P) address map."""
    from fmhactl.layout import mapping, views
    from fmhactl.layout.common import LayoutError

    prod = mapping.parse_producer(src, m, n)
    cons = mapping.parse_consumer(dst, m, n, dtype)
    if warp is not None and not 0 <= warp < 4:
        raise LayoutError("--warp must be 0..3 (the warpgroup that reads the accumulator)")
    records, problems = mapping.map_values(prod, cons, None if warp is None else [warp])
    plan = mapping.plan_smem_stores(records, cons) if cons.kind == "smem" else None
    tplan = mapping.tmem_store_plan(records, prod, cons) if cons.kind == "tmem" else ""
    if as_json:
        _print_records({"schema": "fmhactl.layout.map/1", "from": src, "to": dst, "m": m, "n": n,
                        "dtype": cons.dtype, "problems": [p.as_dict() for p in problems],
                        "store_plan": None if plan is None else {
                            "vector_bytes": plan.vector_bytes, "instructions_per_thread": plan.instructions,
                            "per_warp": {str(w): r.as_dict() for w, r in plan.per_warp.items()}, "note": plan.note},
                        "tmem_plan": tplan or None},
                       lines=[r.json_line() for r in records])
    else:
        from rich.markup import escape
        from rich.table import Table
        from rich.text import Text

        from fmhactl.layout.render import colour

        want = _thread_list(threads)
        out_console.print(f"[bold]{escape(src)} -> {escape(dst)}[/]  (S is {m}x{n} f32 in TMEM; "
                          f"P\\[m]\\[n] = A\\[m]\\[k=n] of the next MMA, {cons.dtype})")
        _print_problems(problems)
        table = Table(title="where each thread's values go (consecutive registers with consecutive destinations "
                            "merged)", header_style="bold")
        for name in ("thread", "load", "registers", "values", "destination", "banks"):
            table.add_column(name, no_wrap=True)
        for t in want:
            mine = sorted((r for r in records if r.thread == t), key=lambda r: (r.load, r.reg, r.reg_bit_lo))
            if not mine:
                table.add_row(str(t), "-", "-", "holds no element", "", "")
                continue
            runs = mapping.value_runs(mine, cons)
            style = f"black on {colour(t % 32)}"
            for run in runs[:12]:
                regs = f"r{run.reg_first}" if run.reg_first == run.reg_last else f"r{run.reg_first}-r{run.reg_last}"
                vals = (f"S[{run.m}][{run.n_first}]" if run.n_first == run.n_last
                        else f"S[{run.m}][{run.n_first}..{run.n_last}]")
                banks = "" if not run.banks else f"{run.banks[0]}-{run.banks[-1]}"
                table.add_row(Text(f"{t} (w{t // 32} l{t % 32})", style=style), str(run.load), regs, vals,
                              run.where, banks)
            if len(runs) > 12:
                table.add_row(Text(str(t), style=style), "...", "", f"{len(runs) - 12} more runs (see --json)", "", "")
        out_console.print(table)
        if plan is not None:
            out_console.print(f"stores: {plan.note}")
            for w, rep in plan.per_warp.items():
                out_console.print(f"  warp {w}: {rep.wavefronts} wavefronts for {plan.instructions} stores "
                                  f"(ideal {rep.ideal}) -> {rep.conflicts} conflict wavefronts"
                                  + (f", worst bank {rep.worst_bank} x{rep.worst_degree}" if rep.conflicts else ""))
        if tplan:
            out_console.print(tplan)
    if svg:
        grid = views.map_grid(f"{src} -> {dst}: who writes where", records)
        sub = ("one row per 128-byte line, one cell per physical 16-byte chunk; colour = writing thread (hover for "
               "details)" if cons.kind == "smem" else "cell = producer thread.register; colour = thread")
        _emit_grid(grid, svg, sub, quiet=True)


def _thread_list(text: str) -> list[int]:
    from fmhactl.layout.common import LayoutError, parse_int

    if text.strip().lower() == "all":
        return list(range(128))
    out: list[int] = []
    for part in text.split(","):
        if "-" in part.strip()[1:]:
            lo, hi = part.split("-", 1)
            out.extend(range(parse_int(lo, "--threads"), parse_int(hi, "--threads") + 1))
        elif part.strip():
            out.append(parse_int(part, "--threads"))
    if not out or any(not 0 <= t < 128 for t in out):
        raise LayoutError(f"--threads must name threads 0..127 of the warpgroup; got {text!r}")
    return out


@layout_app.command("banks")
@guarded
def banks_cmd(
    major: str = typer.Option("K", "--major", help="K or MN."),
    swizzle: str = typer.Option("128B", "--swizzle", help="none, 32B, 64B, 128B or 128B_base32B."),
    rows: int = typer.Option(128, "--rows", help="M (or N) extent of the tile."),
    cols: int = typer.Option(64, "--cols", help="K extent of the tile."),
    dtype: str = typer.Option("bf16", "--dtype"),
    lbo: str = typer.Option(None, "--lbo"),
    sbo: str = typer.Option(None, "--sbo"),
    row: str = typer.Option("t", "--row", help="Row each lane t accesses (expression in t and i)."),
    k: str = typer.Option("0", "--k", help="K index each lane accesses (expression in t and i)."),
    vec: int = typer.Option(16, "--vec", help="Bytes per lane per access: 1, 2, 4, 8 or 16."),
    repeat: int = typer.Option(1, "--repeat", help="Instructions i = 0..repeat-1."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Bank conflicts of a warp's accesses to a tile: wavefronts per instruction vs the ideal.

    Example: every lane reads 16 B of its own row: --row t --k 0 --vec 16.
    """
    from rich.table import Table

    from fmhactl.layout import banks, smem
    from fmhactl.layout.common import LayoutError

    tile = smem.make_tile(major, swizzle, rows, cols, dtype, _int(lbo, "--lbo"), _int(sbo, "--sbo"))
    row_expr, k_expr = banks.compile_index_expr(row), banks.compile_index_expr(k)
    if repeat < 1:
        raise LayoutError("--repeat must be at least 1")
    results, lanes0 = [], []
    for i in range(repeat):
        addrs = []
        for t in range(32):
            r, kk = banks.eval_index_expr(row_expr, t=t, i=i), banks.eval_index_expr(k_expr, t=t, i=i)
            addr = tile.offset(r, kk)
            addrs.append(addr)
            if i == 0:
                lanes0.append((t, r, kk, addr))
        results.append(banks.wavefronts(addrs, vec))
    total = sum(r.wavefronts for r in results)
    ideal = sum(r.ideal for r in results)
    if svg:
        from fmhactl.layout import views

        grid = views.banks_grid(f"instruction i=0: {vec} B per lane, {results[0].wavefronts} wavefronts "
                                f"(ideal {results[0].ideal})", lanes0, vec)
        _emit_grid(grid, svg, f"{tile.major}-major {tile.swizzle.name} {tile.dtype}; row = {row}, k = {k}; "
                              "cell = byte address of the word the lane reads in that bank", quiet=True)
    if as_json:
        print_json({"schema": "fmhactl.layout.banks/1", "major": tile.major, "swizzle": tile.swizzle.name,
                    "dtype": tile.dtype, "vec": vec, "row": row, "k": k, "wavefronts": total, "ideal": ideal,
                    "instructions": [r.as_dict() for r in results],
                    "lanes": [{"lane": t, "row": r, "k": kk, "addr": a, "bank": smem.bank_of(a)}
                              for t, r, kk, a in lanes0]})
        return
    table = Table(title=f"instruction i=0: lane -> element -> bank ({vec} B per lane)", header_style="bold")
    for name in ("lane", "row", "k", "byte", "banks"):
        table.add_column(name, justify="right")
    for t, r, kk, a in lanes0:
        b = smem.bank_of(a)
        table.add_row(str(t), str(r), str(kk), str(a), f"{b}" if vec <= 4 else f"{b}-{b + vec // 4 - 1}")
    out_console.print(table)
    for i, rep in enumerate(results[:16]):
        out_console.print(f"i={i}: {rep.wavefronts} wavefronts (ideal {rep.ideal})"
                          + (f", bank {rep.worst_bank} serves {rep.worst_degree} words" if rep.conflicts else ""))
    verdict = "conflict-free" if total == ideal else f"{total - ideal} extra wavefronts ({total / ideal:.2f}x)"
    out_console.print(f"[bold]total: {total} wavefronts, ideal {ideal}: {verdict}[/]")


# ---- `layout plan` (helper sm100): the SM100 family's TMEM/SMEM plan; logic in fmhactl.plans ----

@layout_app.command("plan")
@guarded
def plan_cmd(
    variant: str = typer.Argument(..., help="An SM100 variant, e.g. sm100_tma_s2_tmem (see `fmhactl list`)."),
    head_dim: int = typer.Option(..., "--head-dim", "-d", help="Head dim: 64, 128, 256 or 512."),
    as_json: bool = JSON_OPT,
    svg: str | None = SVG_OPT,
) -> None:
    """The TMEM plan (S, P inside S, O; co-resident CTAs of one SM) and SMEM per K/V stage.

    Exit 1 when the variant has no plan that fits at this head dim (the reason is printed)."""
    from pathlib import Path

    from fmhactl.plans.sm100 import plan_for_variant
    from fmhactl.plans.sm100_drawing import plan_lines, plan_records, plan_svg

    plan = plan_for_variant(variant, head_dim)
    if svg:
        Path(svg).write_text(plan_svg(variant, plan))
        err_console.print(f"wrote {svg}")
    if as_json:
        meta, records = plan_records(variant, plan)
        _print_records(meta, records)
    else:
        from rich.markup import escape

        for line in plan_lines(variant, plan, head_dim):
            out_console.print(escape(line), highlight=False)
    if not plan.supported:
        raise typer.Exit(1)
