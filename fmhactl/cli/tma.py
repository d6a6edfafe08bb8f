"""`fmhactl tma check`: name every cuTensorMapEncodeTiled requirement a call breaks.

The driver only says CUDA_ERROR_INVALID_VALUE; this says which documented rule failed, and with
--driver asks the real driver (cuda-python, needs a GPU) and prints both verdicts.
Exit codes: 0 valid, 1 a rule is violated (or the driver refused), 2 bad input, 3 --driver
without a usable CUDA driver.
"""

from __future__ import annotations

import typer

from fmhactl.cli.common import err_console, guarded, out_console, print_json

tma_app = typer.Typer(no_args_is_help=True, add_completion=False,
                      help="TMA tensor maps: check cuTensorMapEncodeTiled parameters against every documented rule.")


def register(app: typer.Typer) -> None:
    app.add_typer(tma_app, name="tma", rich_help_panel="Layouts",
                  help="TMA tensor maps: cuTensorMapEncodeTiled parameter checks (exit 1: a rule is violated).")


def _ints(text: str | None, what: str) -> list[int] | None:
    from fmhactl.layout.common import parse_int

    if text is None:
        return None
    text = text.strip().strip("{}[]()")
    return [parse_int(x, what) for x in text.replace(" ", ",").split(",") if x.strip()]


_STATUS = {"ok": "[green]ok[/]", "violated": "[bold red]VIOLATED[/]", "warning": "[yellow]warning[/]",
           "n/a": "[dim]n/a[/]"}


@tma_app.command("check")
@guarded
def check(
    dtype: str = typer.Option(None, "--dtype", help="tensorDataType: bf16, f16, f32, tf32, u8, ... or the CUDA name "
                                                    "(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16) or its number."),
    rank: int = typer.Option(None, "--rank", help="tensorRank (default: the number of --dims)."),
    address: str = typer.Option(None, "--address", help="globalAddress (default: an aligned address)."),
    dims: str = typer.Option(None, "--dims", help="globalDim, innermost first: e.g. 128,128,1."),
    strides: str = typer.Option(None, "--strides", help="globalStrides in bytes, rank-1 entries: e.g. 256,32768."),
    box: str = typer.Option(None, "--box", help="boxDim, innermost first: e.g. 16,128,1."),
    elem_strides: str = typer.Option(None, "--elem-strides", help="elementStrides (default: all 1)."),
    interleave: str = typer.Option("none", "--interleave", help="none, 16B or 32B."),
    swizzle: str = typer.Option("none", "--swizzle", help="none, 32B, 64B, 128B, 128B_atom_32B, "
                                                          "128B_atom_32B_flip_8B, 128B_atom_64B."),
    l2: str = typer.Option("none", "--l2", help="L2 promotion: none, 64B, 128B, 256B."),
    oob: str = typer.Option("none", "--oob", help="OOB fill: none or nan."),
    map_address: str = typer.Option(None, "--map-address", help="Address of the CUtensorMap object (64-B rule)."),
    preset: str = typer.Option(None, "--preset", help="seed002: create_tma_desc_2d_bf16 for Q (T=128, HD=128, "
                                                      "tile 128x16); other flags override its values."),
    driver: bool = typer.Option(False, "--driver", help="Also call the real cuTensorMapEncodeTiled (needs a GPU)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON on stdout."),
    svg: str = typer.Option(None, "--svg", metavar="FILE", help="Draw the box as one load writes it to shared "
                                                                "memory (valid maps)."),
) -> None:
    """Check cuTensorMapEncodeTiled parameters (as the driver takes them) rule by rule.

    Seed 002's call: --dtype bf16 --rank 3 --dims 128,128,1 --strides 256,32768 --box 16,128,1
    --elem-strides 1,1,1 (or --preset seed002). Exit 1 if any rule is violated.
    """
    from dataclasses import replace

    from fmhactl.layout import tensormap as tm
    from fmhactl.layout.common import LayoutError, parse_int

    if preset is not None:
        if preset.lower() != "seed002":
            raise LayoutError(f"unknown --preset {preset!r} (known: seed002)")
        p = tm.seed002_params()
        over = {}
        if dtype is not None:
            over["dtype"] = int(tm.make_params(dtype, [1], [], [16]).dtype)
        for key, text in (("global_dim", dims), ("global_strides", strides), ("box_dim", box),
                          ("element_strides", elem_strides)):
            vals = _ints(text, key)
            if vals is not None:
                over[key] = tuple(vals)
        if rank is not None:
            over["rank"] = rank
        if address is not None:
            over["global_address"] = parse_int(address, "--address")
        p = replace(p, **over)
        extra = tm.make_params(p.dtype, [1], [], [1], interleave=interleave, swizzle=swizzle, l2_promotion=l2,
                               oob_fill=oob)
        p = replace(p, interleave=extra.interleave, swizzle=extra.swizzle, l2_promotion=extra.l2_promotion,
                    oob_fill=extra.oob_fill, map_address=None if map_address is None
                    else parse_int(map_address, "--map-address"))
    else:
        missing = [flag for flag, v in (("--dtype", dtype), ("--dims", dims), ("--box", box)) if v is None]
        if missing:
            raise LayoutError(f"missing {', '.join(missing)} (or use --preset seed002)")
        gdim = _ints(dims, "--dims") or []
        r = len(gdim) if rank is None else rank
        gstr = _ints(strides, "--strides")
        if gstr is None:
            if r > 1:
                raise LayoutError(f"missing --strides: a rank-{r} map needs {r - 1} byte strides")
            gstr = []
        p = tm.make_params(dtype, gdim, gstr, _ints(box, "--box") or [], _ints(elem_strides, "--elem-strides"),
                           rank, 0x7F0000000000 if address is None else parse_int(address, "--address"),
                           interleave, swizzle, l2, oob,
                           None if map_address is None else parse_int(map_address, "--map-address"))
    results = tm.check_rules(p)
    problems = tm.validate(p)
    model_ok = not any(pr.severity == "error" for pr in problems)
    summary = tm.box_summary(p) if model_ok else None
    report = None
    if driver:
        from fmhactl.layout.tensormap_driver import DriverSession, build

        session = DriverSession(buffer_bytes=1 << 20)  # MissingEnvironment -> exit 3
        try:
            report = build(p, session)
        finally:
            session.close()
    if as_json:
        print_json({"schema": "fmhactl.tma.check/1", "params": p.as_dict(), "c_call": p.c_call(), "valid": model_ok,
                    "rules": [r.as_dict() for r in results], "box": summary.as_dict() if summary else None,
                    "driver": None if report is None else report.as_dict()})
    else:
        from rich.table import Table

        out_console.print(p.c_call(), style="bold", markup=False)
        table = Table(header_style="bold", show_lines=False)
        for name in ("rule", "parameter", "requirement", "status"):
            table.add_column(name)
        from rich.markup import escape

        for r in results:
            if r.status == "n/a":
                continue
            status = _STATUS[r.status] + (f": {escape(r.detail)}" if r.detail else "")
            table.add_row(r.rule, r.param, escape(r.statement), status)
        out_console.print(table)
        skipped = [r.rule for r in results if r.status == "n/a"]
        if skipped:
            out_console.print(f"[dim]not applicable here: {', '.join(skipped)}[/]")
        if model_ok:
            out_console.print("[bold green]VALID[/]: every documented requirement is met.")
            if summary:
                out_console.print(f"one load moves {summary.box_bytes} B (elements per dim "
                                  f"{list(summary.elements_per_dim)}): arm the mbarrier with expect_tx "
                                  f"{summary.box_bytes}, even when part of the box is out of bounds; put the "
                                  f"shared-memory destination on a {summary.smem_alignment}-byte boundary.")
            out_console.print("[dim]If the driver still answers CUDA_ERROR_INVALID_VALUE, look at what these "
                              "parameters cannot show: the CUtensorMap object must be 64-byte aligned (use cuda.h's "
                              "type, not a home-made struct), the strides array must hold rank-1 byte strides "
                              "(dimension 0's is implicit), the arrays must really have rank entries, and the "
                              "device must be sm_90 or newer. Re-run with --driver on a GPU to compare.[/]")
        else:
            bad = [r for r in results if r.status == "violated"]
            out_console.print(f"[bold red]INVALID[/]: {len(bad)} documented requirement(s) violated "
                              f"({', '.join(r.rule for r in bad)}); the driver answers CUDA_ERROR_INVALID_VALUE.")
        if report is not None:
            if report.driver is None:
                err_console.print(f"driver: {report.driver_note}")
            else:
                agree = "agrees" if report.agree else "[bold red]DISAGREES[/]"
                out_console.print(f"driver: {report.driver.name} - {agree} with the model ({report.driver_note})")
    if svg:
        from fmhactl.layout import views
        from fmhactl.layout.render import write_svg

        grid, why = views.tma_box_grid(p)
        if grid is None:
            err_console.print(why)
        else:
            write_svg(svg, grid.to_svg("row = 16-byte chunks of one box row after the swizzle; colour = box row mod 8"))
            err_console.print(f"wrote {svg}")
    if not model_ok or (report is not None and report.driver is not None and not report.driver.ok):
        raise typer.Exit(1)
