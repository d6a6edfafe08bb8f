"""`fmhactl layout ...`: parse, call fmhactl.services.layout, render (fmhactl.present.report).

Numbers are taken as text and parsed here (hex allowed) so that every bad value is one line
naming the option. Exit codes: 0 ok, 1 a check failed (lane-quarter violation, descriptor with
errors, overlapping strides), 2 bad input.
"""

from __future__ import annotations

import typer

from fmhactl.cli import common

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


def _n(text: str | None, what: str) -> int | None:
    from fmhactl.services.layout_views import parse_int

    return None if text is None else parse_int(text, what)


def _need(text: str, what: str) -> int:
    value = _n(text, what)
    assert value is not None
    return value


def _pair(text: str, what: str) -> tuple[int, int]:
    from fmhactl.services.layout_views import parse_int_list

    first, second = parse_int_list(text, what, count=2)
    return first, second


def _choice(value: str, what: str, allowed: tuple[str, ...]) -> str:
    from fmhactl.services.layout_views import LayoutError

    if value not in allowed:
        raise LayoutError(f"{what} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _check_svg(svg: str | None) -> None:
    if svg is not None:  # "" (an unset variable) is refused by the check, not ignored
        from fmhactl.present.report import check_writable

        check_writable(svg)


def _write_svg(svg: str | None, text_fn: object) -> None:
    if svg is not None:
        from fmhactl.present.render import write_svg

        write_svg(svg, text_fn())  # type: ignore[operator]
        common.note(f"wrote {svg}")


def _exit_if(failed: bool) -> None:
    if failed:
        raise typer.Exit(1)


@layout_app.command("tmem")
@common.guarded
def tmem_cmd(
    shape: str = typer.Option("32x32b", "--shape", help="32x32b, 16x64b, 16x128b, 16x256b or 16x32bx2."),
    num: str = typer.Option("1", "--num", help=".num: 1, 2, 4, ..., 128 (limits depend on the shape)."),
    warp: str = typer.Option("0", "--warp", help="Warp index in the CTA (0..31); its lane quarter is warp % 4."),
    col: str = typer.Option("0", "--col", help="Column base of the access (0..511)."),
    pack: bool = typer.Option(False, "--pack", help=".pack::16b (ld) / .unpack::16b (st)."),
    taddr: str = typer.Option(None, "--taddr", help="TMEM address (lane<<16 | column); default: the warp's quarter, "
                                                     "column --col."),
    imm: str = typer.Option(None, "--imm", help="16x32bx2 immHalfSplitoff (default: num, or 2*num with --pack)."),
    cell: str = typer.Option(None, "--cell", help="Also explain cell LANE,COL: owner and the lane-quarter rule."),
    view: str = typer.Option("grid", "--view", help="grid (lanes x columns) or threads (thread x register)."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Which thread and register each TMEM cell of one tcgen05.ld/st goes to (and back).

    Exit 1 when the access leaves the warp's lane quarter or TMEM.
    """
    from fmhactl.present import report
    from fmhactl.services import layout as svc

    _choice(view, "--view", ("grid", "threads"))
    _check_svg(svg)
    acc = svc.tmem_access(shape, _need(num, "--num"), _need(warp, "--warp"), _need(col, "--col"), pack,
                          _n(taddr, "--taddr"), _n(imm, "--imm"))
    info = svc.tmem_cell(acc, *_pair(cell, "--cell")) if cell is not None else None
    _write_svg(svg, lambda: report.tmem_grid(acc).to_svg(f"{acc.instruction} - cell = thread.register"))
    if as_json:
        common.records(report.tmem_json(acc, info))
    else:
        common.say(report.tmem_headline(acc))
        common.problems(acc.problems)
        if view == "threads":
            common.text_table(report.tmem_threads_table(acc))
        else:
            common.grid(report.tmem_grid(acc))
        if info is not None:
            common.say(report.tmem_cell_line(info))
    _exit_if(not acc.ok)


@layout_app.command("smem")
@common.guarded
def smem_cmd(
    major: str = typer.Option("K", "--major", help="K (K contiguous) or MN."),
    swizzle: str = typer.Option("128B", "--swizzle", help="none, 32B, 64B, 128B or 128B_base32B."),
    rows: str = typer.Option("128", "--rows", help="M (or N) extent of the tile (1..4096)."),
    cols: str = typer.Option("64", "--cols", help="K extent of the tile (1..4096)."),
    dtype: str = typer.Option("bf16", "--dtype", help="Element type: bf16, f16, tf32, f32, e4m3, ..."),
    lbo: str = typer.Option(None, "--lbo", help="Leading byte offset (default: what TMA writes)."),
    sbo: str = typer.Option(None, "--sbo", help="Stride byte offset (default: what TMA writes)."),
    katom: str = typer.Option(None, "--katom", help="K-major swizzled: bytes between K atom columns."),
    base: str = typer.Option("0", "--base", help="Absolute shared-memory address of the tile (swizzle is absolute)."),
    view: str = typer.Option("offset", "--view", help="Cell label: offset, bank, chunk or core."),
    max_rows: str = typer.Option("32", "--max-rows", help="Rows to print (the SVG and JSON have all)."),
    at: str = typer.Option(None, "--at", help="Also say which element sits at this byte (absolute address)."),
    element: str = typer.Option(None, "--element", help="Also say where element ROW,K sits."),
    desc: str = typer.Option(None, "--desc", help="A UMMA descriptor: which tile elements one MMA reads through it."),
    k0: str = typer.Option("0", "--k0", help="With --desc: the first K column that MMA should consume."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """A canonical UMMA/GMMA operand tile: element (row, k) -> byte, core matrix, bank; descriptors per MMA.

    Exit 1 when the given LBO/SBO make elements overlap, or --desc reads wrong elements.
    """
    from fmhactl.present import report
    from fmhactl.services import layout as svc

    _choice(view, "--view", ("offset", "bank", "chunk", "core"))
    shown_rows = _need(max_rows, "--max-rows")
    if not 1 <= shown_rows <= 4096:
        from fmhactl.services.layout_views import LayoutError

        raise LayoutError(f"--max-rows must be in 1..4096; got {shown_rows}")
    _check_svg(svg)
    tile = svc.smem_tile(major, swizzle, _need(rows, "--rows"), _need(cols, "--cols"), dtype, _n(lbo, "--lbo"),
                         _n(sbo, "--sbo"), _n(katom, "--katom"), _need(base, "--base"))
    at_addr = _n(at, "--at")
    place = tile.element(*_pair(element, "--element")) if element is not None else None
    reach = svc.descriptor_reach(tile, desc, _need(k0, "--k0")) if desc is not None else None
    _write_svg(svg, lambda: report.smem_grid(tile, view).to_svg(
        f"LBO {tile.layout.lbo} B, SBO {tile.layout.sbo} B; cell = one 16-byte chunk, colour = physical chunk"))
    if as_json:
        common.records(report.smem_json(tile, at_addr, place, reach))
    else:
        for line in report.smem_headlines(tile):
            common.say(line)
        common.problems(tile.problems)
        common.text_table(report.smem_mma_table(tile))
        if at_addr is not None:
            common.say(report.smem_at_line(tile, at_addr))
        if place is not None:
            common.say(report.smem_element_line(place))
        if reach is not None:
            common.say(report.reach_line(reach))
            common.problems(reach.descriptor.problems)
        common.grid(report.smem_grid(tile, view), max_rows=shown_rows, max_cols=32)
    _exit_if(not tile.ok or (reach is not None and (reach.wrong > 0 or not reach.descriptor.ok)))


@layout_app.command("accum")
@common.guarded
def accum_cmd(
    m: str = typer.Option("128", "--m", help="MMA M: 64 (layout F), 128 (layout D), 256 (with --cta-group 2)."),
    n: str = typer.Option("64", "--n", help="MMA N: 8..256 in steps of 8."),
    cta_group: str = typer.Option("1", "--cta-group", help="1, or 2 for M=256 across a CTA pair."),
    dtmem: str = typer.Option("0", "--dtmem", help="d-tmem address (lane<<16 | column)."),
    read: str = typer.Option("32x32b", "--read", help="tcgen05.ld shape the epilogue/softmax uses."),
    num: str = typer.Option(None, "--num", help=".num of the read (default: the widest that fits N)."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Where tcgen05.mma leaves D[m][n] in TMEM, and which thread reads it back."""
    from fmhactl.present import report
    from fmhactl.services import layout as svc

    _check_svg(svg)
    acc = svc.accumulator_layout(_need(m, "--m"), _need(n, "--n"), _need(cta_group, "--cta-group"),
                                 _need(dtmem, "--dtmem"))
    reads = report.accum_reads(acc, read, _n(num, "--num"), sample_only=not as_json)
    _write_svg(svg, lambda: report.accum_grid(acc).to_svg(
        "cell = D rows/columns held by 16 lanes x a block of columns; colour = reading warp"))
    if as_json:
        common.records(report.accum_json(acc, reads))
    else:
        for line in report.accum_lines(acc, reads):
            common.say(line)
        common.problems(acc.problems)
        common.grid(report.accum_grid(acc))


@desc_app.command("decode", context_settings={"ignore_unknown_options": True})
@common.guarded
def desc_decode(
    value: str = typer.Argument(..., help="Descriptor value, e.g. 0x4000404000010000."),
    arch: str = typer.Option("sm100", "--arch", help="sm100 (tcgen05) or sm90 (wgmma)."),
    major: str = typer.Option(None, "--major", help="K or MN: enables checks that depend on the operand layout."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Fields and named problems of a descriptor. Exit 1 when it has errors."""
    from fmhactl.services import layout as svc

    kind = {"sm100": "smem", "sm90": "wgmma"}[_choice(arch, "--arch", ("sm100", "sm90"))]
    _check_svg(svg)
    _show_descriptor(svc.decode_descriptor(kind, value, major), as_json, svg)


@desc_app.command("encode")
@common.guarded
def desc_encode(
    start: str = typer.Option(..., "--start", help="Shared-memory byte address (multiple of 16)."),
    lbo: str = typer.Option("16", "--lbo", help="Leading byte offset in bytes."),
    sbo: str = typer.Option(..., "--sbo", help="Stride byte offset in bytes."),
    swizzle: str = typer.Option("none", "--swizzle", help="none, 32B, 64B, 128B or 128B_base32B."),
    base_offset: str = typer.Option("0", "--base-offset", help="Bits 49-51 (0 unless atoms are misaligned)."),
    arch: str = typer.Option("sm100", "--arch", help="sm100 (tcgen05) or sm90 (wgmma)."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Build a descriptor from byte quantities and show it decoded."""
    from fmhactl.services import layout as svc

    _choice(arch, "--arch", ("sm100", "sm90"))
    _check_svg(svg)
    args = (_need(start, "--start"), _need(lbo, "--lbo"), _need(sbo, "--sbo"), swizzle,
            _need(base_offset, "--base-offset"))
    view = svc.encode_smem_descriptor(*args) if arch == "sm100" else svc.encode_wgmma_descriptor(*args)
    _show_descriptor(view, as_json, svg, encoded=True)


def _show_descriptor(view: object, as_json: bool, svg: str | None, encoded: bool = False) -> None:
    from fmhactl.present import report

    _write_svg(svg, lambda: report.descriptor_svg(view))
    if as_json:
        common.print_json(view.as_dict())  # type: ignore[attr-defined]
    else:
        if encoded:
            common.say(view.hex, "bold")  # type: ignore[attr-defined]
        common.text_table(report.descriptor_table(view))
        common.problems(view.problems)  # type: ignore[attr-defined]
        common.say(report.descriptor_verdict(view))
    _exit_if(not view.ok)  # type: ignore[attr-defined]


@idesc_app.command("decode", context_settings={"ignore_unknown_options": True})
@common.guarded
def idesc_decode(value: str = typer.Argument(..., help="Instruction descriptor, e.g. 0x08400010."),
                 as_json: bool = JSON_OPT, svg: str = SVG_OPT) -> None:
    """Fields and named problems of an instruction descriptor. Exit 1 when it has errors."""
    from fmhactl.services import layout as svc

    _check_svg(svg)
    _show_descriptor(svc.decode_descriptor("idesc", value), as_json, svg)


@idesc_app.command("encode")
@common.guarded
def idesc_encode(
    a: str = typer.Option("bf16", "--a", help="A type: f16, bf16 or tf32."),
    b: str = typer.Option(None, "--b", help="B type (default: A's)."),
    d: str = typer.Option("f32", "--d", help="Accumulator type: f32 or f16."),
    m: str = typer.Option("128", "--m", help="64 or 128."),
    n: str = typer.Option("256", "--n", help="8..256 in steps of 8."),
    a_major: str = typer.Option("K", "--a-major", help="K or MN."),
    b_major: str = typer.Option("K", "--b-major", help="K or MN."),
    neg_a: bool = typer.Option(False, "--neg-a"),
    neg_b: bool = typer.Option(False, "--neg-b"),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Build an instruction descriptor; impossible combinations exit 2."""
    from fmhactl.services import layout as svc

    _check_svg(svg)
    view = svc.encode_instr_descriptor(a, b, d, _need(m, "--m"), _need(n, "--n"), a_major, b_major, neg_a, neg_b)
    _show_descriptor(view, as_json, svg, encoded=True)


@layout_app.command("map")
@common.guarded
def map_cmd(
    src: str = typer.Option("tmem:32x32b:num=8", "--from", help="Producer: tmem:SHAPE[:num=N][:pack][:col=C]"
                                                                "[:lane=L][:acc=f32|f16] (the QK accumulator, read by "
                                                                "warps 0-3)."),
    dst: str = typer.Option("smem:K:128B", "--to", help="Consumer (the PV A operand): smem:MAJOR:SWIZZLE[:lbo=][:sbo=]"
                                                        "[:base=] or tmem[:col=C] (TS form; without col= P "
                                                        "is written over S, as `layout plan` puts it)."),
    m: str = typer.Option("128", "--m", help="Rows of S/P (QK MMA M)."),
    n: str = typer.Option("128", "--n", help="Columns of S = K of the PV MMA."),
    dtype: str = typer.Option("bf16", "--dtype", help="Element type of P."),
    warp: str = typer.Option(None, "--warp", help="Only this warp (0-3)."),
    threads: str = typer.Option("0,1", "--threads", help="Threads (0-127) to list: 0,1 or 0-31 or all."),
    element: str = typer.Option(None, "--element", help="Also show both ends of P[ROW][K]: ROW,K."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Per thread, where each value of S goes when it becomes P: the SMEM-P (or TMEM-P) address map."""
    from fmhactl.present import report
    from fmhactl.services import layout as svc

    _check_svg(svg)
    w = _n(warp, "--warp")
    want = report.thread_list(threads)
    mp = svc.smem_p_map(src, dst, _need(m, "--m"), _need(n, "--n"), dtype, None if w is None else [w])
    hits = mp.find(row=_pair(element, "--element")[0], k=_pair(element, "--element")[1]) if element else None
    _write_svg(svg, lambda: report.map_grid(mp).to_svg(report.map_svg_subtitle(mp)))
    if as_json:
        common.records(report.map_json(mp))
        return
    common.say(f"{src} -> {dst}  (S is {mp.m}x{mp.n} f32 in TMEM; P[m][n] = A[m][k=n] of the next MMA, {mp.dtype})")
    common.problems(mp.problems)
    common.text_table(report.map_table(mp, want))
    for line in report.map_plan_lines(mp):
        common.say(line)
    if hits is not None:
        for line in report.map_hit_lines(hits):
            common.say(line)


@layout_app.command("banks")
@common.guarded
def banks_cmd(
    major: str = typer.Option("K", "--major", help="K or MN."),
    swizzle: str = typer.Option("128B", "--swizzle", help="none, 32B, 64B, 128B or 128B_base32B."),
    rows: str = typer.Option("128", "--rows", help="M (or N) extent of the tile (1..4096)."),
    cols: str = typer.Option("64", "--cols", help="K extent of the tile (1..4096)."),
    dtype: str = typer.Option("bf16", "--dtype"),
    lbo: str = typer.Option(None, "--lbo"),
    sbo: str = typer.Option(None, "--sbo"),
    row: str = typer.Option("t", "--row", help="Row each lane t accesses (expression in t and i)."),
    k: str = typer.Option("0", "--k", help="K index each lane accesses (expression in t and i)."),
    vec: str = typer.Option("16", "--vec", help="Bytes per lane per access: 1, 2, 4, 8 or 16."),
    repeat: str = typer.Option("1", "--repeat", help="Instructions i = 0..repeat-1 (at most 1024)."),
    as_json: bool = JSON_OPT,
    svg: str = SVG_OPT,
) -> None:
    """Bank conflicts of a warp's accesses to a tile, phase by phase: wavefronts vs the ideal.

    Example: every lane reads 16 B of its own row: --row t --k 0 --vec 16.
    """
    from fmhactl.present import report
    from fmhactl.services import layout as svc

    _check_svg(svg)
    n_repeat = _need(repeat, "--repeat")
    if not 1 <= n_repeat <= svc.MAX_REPEAT:
        from fmhactl.services.layout_views import LayoutError

        raise LayoutError(f"--repeat must be in 1..{svc.MAX_REPEAT}; got {n_repeat}")
    tile = svc.smem_tile(major, swizzle, _need(rows, "--rows"), _need(cols, "--cols"), dtype, _n(lbo, "--lbo"),
                         _n(sbo, "--sbo"))
    pattern = svc.warp_access(tile, row, k, _need(vec, "--vec"), n_repeat)
    _write_svg(svg, lambda: report.banks_grid(pattern).to_svg(
        f"{pattern.description}; cell = byte address of the word the lane reads in that bank"))
    if as_json:
        common.print_json({**pattern.as_dict(), "major": tile.layout.major, "swizzle": tile.layout.swizzle.name,
                         "dtype": tile.layout.dtype, "row": row, "k": k})
        return
    common.text_table(report.banks_lane_table(pattern))
    common.text_table(report.banks_phase_table(pattern))
    common.say(report.banks_verdict(pattern), "bold")



# ---- `layout plan` (helper sm100): the SM100 family's TMEM/SMEM plan; logic in fmhactl.plans ----

@layout_app.command("plan")
@common.guarded
def plan_cmd(
    variant: str = typer.Argument(..., help="An SM100 variant, e.g. sm100_tma_s2_tmem (see `fmhactl list`)."),
    head_dim: int = typer.Option(..., "--head-dim", "-d", help="Head dim: 64, 128, 256 or 512."),
    as_json: bool = JSON_OPT,
    svg: str | None = SVG_OPT,
) -> None:
    """The TMEM plan (S, P inside S, O; co-resident CTAs of one SM) and SMEM per K/V stage.

    Exit 1 when the variant has no plan that fits at this head dim (the reason is printed)."""
    from fmhactl.present.render import json_document
    from fmhactl.services.layout_views import plan_records, plan_svg
    from fmhactl.services import layout as svc

    _check_svg(svg)
    report = svc.sm100_plan(variant, head_dim)
    plan = report.plan
    _write_svg(svg, lambda: plan_svg(variant, plan))
    if as_json:
        from fmhactl.records import envelope

        meta, records = plan_records(variant, plan)
        common.records(json_document({**envelope("fmhactl.layout.plan", 1), **meta}, records, None))
    else:
        for line in report.lines:
            common.say(line)
    _exit_if(not report.supported)
