"""`fmhactl tui`: the Textual layout inspector, checkpoint viewer and results browser.

Textual is imported only inside the command, so `fmhactl --help` stays fast. `--screen NAME`
with the options of the matching CLI command opens a screen preset; `--screenshot FILE.svg`
renders it headless at `--size` and exits (attach it to a bug report).
"""

from __future__ import annotations

from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded


def register(app: typer.Typer) -> None:
    app.command("tui", rich_help_panel="Layouts")(tui_command)


@guarded
def tui_command(
    screen: str = typer.Option("tmem", "--screen", help="tmem, accum, smem, descriptors, tma, map, checkpoints or "
                                                        "results."),
    screenshot: Optional[str] = typer.Option(None, "--screenshot", metavar="FILE.svg",
                                             help="Render the screen headless to an SVG and exit."),
    size: str = typer.Option("120x40", "--size", help="Terminal size for --screenshot, COLUMNSxROWS."),
    press: Optional[str] = typer.Option(None, "--press", metavar="KEYS",
                                        help="Keys to press before --screenshot, comma-separated Textual key names "
                                             "(e.g. 'g,ctrl+a,4,0,comma,3,enter')."),
    # tmem (fmhactl layout tmem)
    shape: Optional[str] = typer.Option(None, "--shape", help="[tmem] 32x32b, 16x64b, 16x128b, 16x256b, 16x32bx2."),
    num: Optional[int] = typer.Option(None, "--num", help="[tmem] .num."),
    warp: Optional[int] = typer.Option(None, "--warp", help="[tmem] warp index."),
    pack: bool = typer.Option(False, "--pack", help="[tmem] .pack::16b."),
    taddr: Optional[str] = typer.Option(None, "--taddr", help="[tmem] TMEM address lane<<16|column."),
    cell: Optional[str] = typer.Option(None, "--cell", metavar="LANE,COL", help="[tmem] put the cursor here."),
    plan: Optional[str] = typer.Option(None, "--plan", metavar="VARIANT", help="[tmem] show this variant's column "
                                                                                "plan."),
    head_dim: Optional[int] = typer.Option(None, "--head-dim", help="[tmem] head dim of the plan."),
    # accum (fmhactl layout accum)
    m: Optional[int] = typer.Option(None, "--m", help="[accum, map] MMA M / rows of S."),
    n: Optional[int] = typer.Option(None, "--n", help="[accum, map] MMA N / columns of S."),
    dtmem: Optional[str] = typer.Option(None, "--dtmem", help="[accum] d-tmem address."),
    cta_group: Optional[int] = typer.Option(None, "--cta-group", help="[accum] 1 or 2."),
    # smem (fmhactl layout smem)
    major: Optional[str] = typer.Option(None, "--major", help="[smem, descriptors] K or MN."),
    swizzle: Optional[str] = typer.Option(None, "--swizzle", help="[smem, tma] swizzle."),
    rows: Optional[int] = typer.Option(None, "--rows", help="[smem] M/N extent."),
    cols: Optional[int] = typer.Option(None, "--cols", help="[smem] K extent."),
    dtype: Optional[str] = typer.Option(None, "--dtype", help="[smem, tma, map] element type."),
    lbo: Optional[str] = typer.Option(None, "--lbo", help="[smem] leading byte offset."),
    sbo: Optional[str] = typer.Option(None, "--sbo", help="[smem] stride byte offset."),
    base: Optional[str] = typer.Option(None, "--base", help="[smem] tile address."),
    element: Optional[str] = typer.Option(None, "--element", metavar="ROW,K", help="[smem] put the cursor on it."),
    kb: Optional[int] = typer.Option(None, "--kb", help="[smem] MMA k-block whose descriptor is shown."),
    desc: Optional[str] = typer.Option(None, "--desc", help="[smem] descriptor value to apply to the tile."),
    # descriptors (fmhactl layout idesc|desc decode)
    kind: Optional[str] = typer.Option(None, "--kind", help="[descriptors] idesc, smem or wgmma; [results] build, "
                                                            "verify, bench, profile."),
    value: Optional[str] = typer.Option(None, "--value", help="[descriptors] the hex value."),
    # tma (fmhactl tma check)
    rank: Optional[str] = typer.Option(None, "--rank", help="[tma] tensorRank."),
    dims: Optional[str] = typer.Option(None, "--dims", help="[tma] globalDim."),
    strides: Optional[str] = typer.Option(None, "--strides", help="[tma] globalStrides."),
    box: Optional[str] = typer.Option(None, "--box", help="[tma] boxDim."),
    elem_strides: Optional[str] = typer.Option(None, "--elem-strides", help="[tma] elementStrides."),
    interleave: Optional[str] = typer.Option(None, "--interleave", help="[tma] interleave."),
    l2: Optional[str] = typer.Option(None, "--l2", help="[tma] L2 promotion."),
    oob: Optional[str] = typer.Option(None, "--oob", help="[tma] OOB fill."),
    address: Optional[str] = typer.Option(None, "--address", help="[tma] globalAddress."),
    # map (fmhactl layout map)
    src: Optional[str] = typer.Option(None, "--from", help="[map] tmem:SHAPE:num=N."),
    dst: Optional[str] = typer.Option(None, "--to", help="[map] smem:MAJOR:SWIZZLE or tmem."),
    # checkpoints
    dump: Optional[str] = typer.Option(None, "--dump", metavar="FILE", help="[checkpoints] a file from `fmhactl dump "
                                                                            "... --out FILE`."),
    # results (fmhactl results)
    variant: Optional[str] = typer.Option(None, "--variant", help="[results] filter."),
    status: Optional[str] = typer.Option(None, "--status", help="[results] filter."),
    mode: Optional[str] = typer.Option(None, "--mode", help="[results] filter."),
    grid: Optional[str] = typer.Option(None, "--grid", help="[results] filter, and the grid verify/bench run."),
) -> None:
    """Interactive inspector: TMEM/accumulator/SMEM layouts, descriptors, TMA maps, the S->P map,
    checkpoint dumps and stored results (keys in the footer; Ctrl+P: command palette)."""
    from fmhactl.tui.deeplink import build, parse_size

    given = {"shape": shape, "num": num, "warp": warp, "pack": pack, "taddr": taddr, "cell": cell, "plan": plan,
             "head_dim": head_dim, "m": m, "n": n, "dtmem": dtmem, "cta_group": cta_group, "major": major,
             "swizzle": swizzle, "rows": rows, "cols": cols, "dtype": dtype, "lbo": lbo, "sbo": sbo, "base": base,
             "element": element, "kb": kb, "desc": desc, "kind": kind, "value": value, "rank": rank, "dims": dims,
             "strides": strides, "box": box, "elem_strides": elem_strides, "interleave": interleave, "l2": l2,
             "oob": oob, "address": address, "src": src, "dst": dst, "dump": dump, "variant": variant,
             "status": status, "mode": mode, "grid": grid}
    link = build(screen, given)
    width_height = parse_size(size)
    if press and screenshot is None:
        from fmhactl.errors import BadInput

        raise BadInput("--press only applies with --screenshot")
    if screenshot is not None:  # "" (an unset variable) is refused as a path, never the interactive app
        from fmhactl.tui.headless import check_svg_path, parse_keys, screenshot_app

        from fmhactl.services.common import output

        target = check_svg_path(screenshot)
        keys = parse_keys(press) if press else []
        output(target, "--screenshot")  # proved writable by writing, as every output path is (root too)
        screenshot_app(link, target, width_height, keys)
        err_console.print(f"wrote {target}")
        return
    from fmhactl.tui.app import FmhaApp

    FmhaApp(link.screen, link.options).run()
