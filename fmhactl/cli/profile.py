"""`fmhactl profile`: one launch under Nsight Compute, restricted to its NVTX range."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded, out_console, print_json


def register(app: typer.Typer) -> None:
    app.command("profile", rich_help_panel="Kernels")(profile_command)


@guarded
def profile_command(
    variant: str = typer.Argument(..., help="Variant to profile (see `fmhactl list`)."),
    shape: str = typer.Option(..., "--shape", help="One config, e.g. 'b=8,h=16,t=4096,s=4096,d=128'."),
    recipe: str = typer.Option("default", "--recipe", help="profiles/<NAME>.toml: default, memory, tensor, stalls."),
    clock_control: str = typer.Option("none", "--clock-control",
                                      help="ncu --clock-control: none (production clocks) or base (locked)."),
    warmup: int = typer.Option(2, "--warmup", help="Launches in the range before the profiled one."),
    seed: int = typer.Option(0, "--seed", help="Input seed."),
    png: Optional[Path] = typer.Option(None, "--png", help="Also draw the run on a roofline into this PNG."),
    timeout: float = typer.Option(600.0, "--timeout", help="Seconds before ncu is given up on."),
    as_json: bool = typer.Option(False, "--json", help="Print the stored row as JSON on stdout."),
) -> None:
    """Profile one launch with ncu (NVTX-filtered); keep the .ncu-rep, store its metrics, print a summary."""
    from fmhactl.config import parse_shape
    from fmhactl.profile.recipes import load_recipe
    from fmhactl.profile.report import summary_lines
    from fmhactl.profile.service import run_profile
    from fmhactl.registry import get_variant
    from fmhactl.results.store import ResultStore

    cfg = parse_shape(shape)
    chosen = get_variant(variant)
    loaded = load_recipe(recipe)
    with ResultStore() as store:
        result = run_profile(chosen, cfg, loaded, store=store, clock_control=clock_control, warmup=warmup,
                             seed=seed, timeout_s=timeout)
    drawn = None
    if png is not None:
        from fmhactl.profile.roofline import draw_roofline

        drawn = draw_roofline(result.summary, png)
    if as_json:
        data = result.row.to_dict()
        data["metrics"] = {k: v for k, v in data["metrics"].items() if k not in ("ncu", "units")}
        if drawn:
            data["roofline"] = drawn
        print_json(data)
        return
    row = result.row
    out_console.print(f"[bold]fmhactl profile[/bold] {row.variant} {row.config_key}  "
                      f"({row.arch} {row.mode}, recipe {loaded.name}, clock-control {clock_control}, "
                      f"filter {row.metrics['filter']}: {row.metrics['nvtx_include'] if row.metrics['filter'] == 'nvtx' else ''})")
    for line in summary_lines(result.summary):
        out_console.print(line, markup=False)
    if drawn:
        out_console.print(f"roofline          {png}: intensity {drawn['arith_intensity']:.1f} FLOP/B, "
                          f"attainable {drawn['attainable_tflops']:.0f} TFLOP/s, ridge {drawn['ridge_flop_per_byte']:.0f} FLOP/B",
                          markup=False)
    out_console.print(f"report            {result.report}", markup=False)
    for note in result.notes:
        err_console.print(f"note: {note}", markup=False)
    err_console.print(f"stored as result {row.id} (session {row.session})", markup=False)
