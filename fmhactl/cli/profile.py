"""`fmhactl profile`: one launch under Nsight Compute, restricted to its NVTX range."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import guarded, note, out_console, path_arg, print_json


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
    png: Optional[Path] = typer.Option(None, "--png", parser=path_arg, help="Also draw a roofline (with cuDNN/flash SDPA timed in the same run) into this PNG."),
    timeout: float = typer.Option(600.0, "--timeout", help="Seconds before ncu is given up on."),
    as_json: bool = typer.Option(False, "--json", help="Print the stored row as JSON on stdout."),
) -> None:
    """Profile one launch with ncu (NVTX-filtered); keep the .ncu-rep, store its metrics, print a summary."""
    from fmhactl import services

    outcome = services.profile(variant, shape, recipe=recipe, clock_control=clock_control, warmup=warmup,
                               seed=seed, timeout_s=timeout, png=png)
    row, drawn = outcome.row, outcome.roofline
    if as_json:
        data = row.to_dict()
        data["metrics"] = {k: v for k, v in data["metrics"].items() if k not in ("ncu", "units")}
        if drawn:
            data["roofline"] = drawn
        print_json(data)
        return
    m = outcome.metrics

    def say(text: str) -> None:
        out_console.print(text, markup=False, highlight=False, soft_wrap=True)

    say(f"fmhactl profile {row.variant} {row.config_key}  ({row.arch} {row.mode}, recipe {outcome.recipe}, "
        f"clock-control {clock_control}, filter {m.filter}: {m.nvtx_include if m.filter == 'nvtx' else ''})")
    for line in outcome.summary_lines:
        say(line)
    if drawn:
        say(f"roofline          {png}: intensity {drawn['arith_intensity']:.1f} FLOP/B, "
            f"attainable {drawn['attainable_tflops']:.0f} TFLOP/s, ridge {drawn['ridge_flop_per_byte']:.0f} FLOP/B"
            + "".join(f", {b['label']} {b['tflops']:.1f} TFLOP/s" for b in drawn["baselines"]))
    say(f"report            {outcome.report}")
    for text in outcome.notes:
        note(f"note: {text}")
    note(f"stored as result {row.id} (session {row.session})")
