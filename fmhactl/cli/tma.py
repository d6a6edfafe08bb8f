"""`fmhactl tma check`: name every cuTensorMapEncodeTiled requirement a call breaks.

The driver only says CUDA_ERROR_INVALID_VALUE; this says which documented rule failed, and with
--driver asks the real driver (cuda-python, needs a GPU) and prints both verdicts.
Exit codes: 0 valid, 1 a rule is violated (or the driver refused), 2 bad input, 3 --driver
without a usable CUDA driver.
"""

from __future__ import annotations

import typer

from fmhactl.cli import common

tma_app = typer.Typer(no_args_is_help=True, add_completion=False,
                      help="TMA tensor maps: check cuTensorMapEncodeTiled parameters against every documented rule.")


def register(app: typer.Typer) -> None:
    app.add_typer(tma_app, name="tma", rich_help_panel="Layouts",
                  help="TMA tensor maps: cuTensorMapEncodeTiled parameter checks (exit 1: a rule is violated).")


def _ints(text: str | None, what: str) -> list[int] | None:
    from fmhactl.services.layout_views import parse_int_list

    return None if text is None else parse_int_list(text, what)


@tma_app.command("check")
@common.guarded
def check(
    dtype: str = typer.Option(None, "--dtype", help="tensorDataType: bf16, f16, f32, tf32, u8, ... or the CUDA name "
                                                    "(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16) or its number."),
    rank: str = typer.Option(None, "--rank", help="tensorRank (default: the number of --dims)."),
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
    from fmhactl.present import report_tma
    from fmhactl.services.layout_views import LayoutError, parse_int
    from fmhactl.services import tma as svc

    if svg is not None:  # "" (an unset variable) is refused by the check, not ignored
        from fmhactl.present.report import check_writable

        check_writable(svg)
    n_rank = None if rank is None else parse_int(rank, "--rank")
    addr = None if address is None else parse_int(address, "--address")
    maddr = None if map_address is None else parse_int(map_address, "--map-address")
    if preset is not None:
        enums = svc.enum_values(dtype=dtype, interleave=interleave, swizzle=swizzle, l2_promotion=l2, oob_fill=oob)
        p = svc.preset_params(preset, global_dim=_ints(dims, "--dims"), global_strides=_ints(strides, "--strides"),
                              box_dim=_ints(box, "--box"), element_strides=_ints(elem_strides, "--elem-strides"),
                              rank=n_rank, global_address=addr, map_address=maddr, **enums)
    else:
        missing = [flag for flag, v in (("--dtype", dtype), ("--dims", dims), ("--box", box)) if v is None]
        if missing:
            raise LayoutError(f"missing {', '.join(missing)} (or use --preset seed002)")
        p = svc.tensor_map_params(dtype, _ints(dims, "--dims") or [], _ints(strides, "--strides"),
                                  _ints(box, "--box") or [], _ints(elem_strides, "--elem-strides"), n_rank, addr,
                                  interleave, swizzle, l2, oob, maddr)
    result = svc.check_tensor_map(p)
    report = svc.driver_verdict(p) if driver else None  # MissingEnvironment -> exit 3
    if svg is not None:
        grid, why = report_tma.box_grid(p)
        if grid is None:
            common.note(why)
        else:
            from fmhactl.present.render import write_svg

            write_svg(svg, grid.to_svg("row = 16-byte chunks of one box row after the swizzle; colour = box row mod 8"))
            common.note(f"wrote {svg}")
    if as_json:
        common.print_json({**result.as_dict(), "driver": None if report is None else report.as_dict()})
    else:
        common.say(result.c_call, "bold")
        common.text_table(report_tma.rules_table(result))
        for line in report_tma.verdict_lines(result, report):
            common.say(line)
    if not result.valid or (report is not None and report.driver is not None and not report.driver.ok):
        raise typer.Exit(1)


@tma_app.command("maps")
@common.guarded
def maps(
    variant: str = typer.Argument(..., help="A variant whose launch passes tensor maps: a project kernel's tmap / "
                                            "tmap_ptr params fields, or the sm90 / sm100 (TMA) launchers' maps."),
    shape: str = typer.Option(..., "--shape", help="The config, e.g. b=1,h=8,t=300,s=77,d=64 (as verify takes it)."),
    layout: str = typer.Option("bshd", "--layout", help="The memory layout of q/k/v/o: bshd or bhsd (verify "
                                                        "draws both)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON on stdout."),
) -> None:
    """The tensor maps a variant's launch passes (a project kernel's declared fields, or a built-in
    launcher's maps), as fmhactl would encode them for one config, checked rule by rule (no GPU).
    Exit 1 if any map breaks a rule."""
    from fmhactl.present import report_tma
    from fmhactl.services import tma as svc

    result = svc.variant_maps(variant, shape, layout)
    if as_json:
        common.print_json(result.as_dict())
    else:
        for c in result.maps:
            common.say(f"{c.field}: {c.kind} of {c.tensor}", "bold")
            common.say(c.check.c_call)
            common.text_table(report_tma.rules_table(c.check))
            for line in report_tma.verdict_lines(c.check, None):
                common.say(line)
    if not result.valid:
        raise typer.Exit(1)
