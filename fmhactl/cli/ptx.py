"""`fmhactl ptx scan|rewrite|link`: the PTX-level tcgen05 emulator (docs/ptx-emulation.md)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from fmhactl.cli.common import guarded, note, path_arg, print_json, table

EMULATE_HELP = ("What an SM100 variant runs as on Hopper: tc5 (default) builds the tc5:: emulated backend; "
                "native rewrites the native backend's sm_100a PTX (the code a B200 would run) into emulator "
                "calls (docs/ptx-emulation.md), under --emulation strict or fast.")

ptx_app = typer.Typer(help="Run sm_100a PTX (tcgen05) on Hopper through the PTX-level emulator.",
                      no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(ptx_app, name="ptx", rich_help_panel="Kernels")


def use_emulate(source: str) -> None:
    """--emulate tc5|native: which backend an emulated SM100 build compiles (the build reads it)."""
    from fmhactl.services.modes import EMULATE_ENV, EMULATE_SOURCES
    from fmhactl.errors import BadInput
    from fmhactl.schemas import shown

    if source not in EMULATE_SOURCES:
        raise BadInput(f"--emulate {shown(source)}: choose tc5 or native")
    os.environ[EMULATE_ENV] = source


_SOURCE_HELP = "A .ptx file (sm_100a/sm_100f), or an sm100 variant name (its native build's PTX)."


@ptx_app.command("scan")
@guarded
def scan_command(
    source: str = typer.Argument(..., help=_SOURCE_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on stdout."),
) -> None:
    """List the tcgen05 forms the PTX uses (count, first PTX line, .loc source line) and whether each is emulated.
    Exit 1 when one is not."""
    from fmhactl import services
    from fmhactl.errors import CheckFailed

    report = services.ptx.scan(source)
    if as_json:
        print_json(report.to_dict())
    else:
        table(f"tcgen05 forms in {report.origin} (PTX {report.version}, {', '.join(report.targets)})",
              ("form", "status", "entry point / rule", "count", "first PTX line", "source"),
              [(u.form, u.status, u.target, u.count, u.first_ptx_line, u.source or "-") for u in report.uses],
              right=("count", "first PTX line"))
    rejected = [u for u in report.uses if u.status != "emulated"]
    if rejected:
        raise CheckFailed(f"{report.origin}: {len(rejected)} tcgen05 form(s) not emulated: "
                          + ", ".join(f"{u.form} ({u.target}, PTX line {u.first_ptx_line})" for u in rejected[:5]))
    if not as_json:
        note(f"{report.instructions} tcgen05 instructions in {len(report.uses)} forms, all emulated")


_EMULATION_HELP = ("fast (default): MMAs complete at or soon after issue; strict: the strict emulator "
                   "(deferred MMAs, ld/st waits, fences; docs/emulation-strict.md).")


def _link_like(kind: str, source: str, out: Path, as_json: bool, emulation: str) -> None:
    from fmhactl import services
    from fmhactl.errors import BadInput
    from fmhactl.schemas import shown
    from fmhactl.services.modes import EMULATION_MODES

    if emulation not in EMULATION_MODES:
        raise BadInput(f"--emulation {shown(emulation)}: choose strict or fast")
    strict = emulation == "strict"
    report = (services.ptx.rewrite(source, out, strict=strict) if kind == "ptx"
              else services.ptx.link(source, out, strict=strict))
    if as_json:
        print_json(report.to_dict())
    else:
        note(f"{report.origin}: {report.instructions} tcgen05 instructions rewritten into calls of "
             f"{len(report.functions)} emulator entry points; wrote {report.out} ({report.size_bytes} bytes)")


@ptx_app.command("rewrite")
@guarded
def rewrite_command(
    source: str = typer.Argument(..., help=_SOURCE_HELP),
    out: Path = typer.Option(..., "-o", "--out", parser=path_arg, help="Write the rewritten sm_90a PTX here."),
    as_json: bool = typer.Option(False, "--json"),
    emulation: str = typer.Option("fast", "--emulation", help=_EMULATION_HELP),
) -> None:
    """Rewrite every tcgen05 instruction into an emulator call and retarget to sm_90a (linked to check it)."""
    _link_like("ptx", source, out, as_json, emulation)


@ptx_app.command("link")
@guarded
def link_command(
    source: str = typer.Argument(..., help=_SOURCE_HELP),
    out: Path = typer.Option(..., "-o", "--out", parser=path_arg, help="Write the linked sm_90a cubin here."),
    as_json: bool = typer.Option(False, "--json"),
    emulation: str = typer.Option("fast", "--emulation", help=_EMULATION_HELP),
) -> None:
    """Rewrite, compile the emulator (NVRTC) and link both for sm_90a with nvJitLink (no GPU needed)."""
    _link_like("cubin", source, out, as_json, emulation)
