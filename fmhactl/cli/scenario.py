"""`fmhactl scenario list|run`: named step sequences with progress, JSON and JUnit XML output."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded, note, path_arg, print_json, table

scenario_app = typer.Typer(help="Run named scenarios (scenarios/*.toml): build, verify, bench, profile, checks.",
                           no_args_is_help=True)

_STYLE = {"PASS": "green", "FAIL": "red", "ERROR": "red", "SKIPPED": "yellow"}


def register(app: typer.Typer) -> None:
    app.add_typer(scenario_app, name="scenario", rich_help_panel="Results")


@scenario_app.command("list")
@guarded
def list_command(as_json: bool = typer.Option(False, "--json", help="Print as JSON on stdout.")) -> None:
    """List the scenarios and their steps."""
    from fmhactl import services

    scenarios = services.list_scenarios()
    if as_json:
        print_json([{"name": s.name, "description": s.description, "path": str(s.path),
                     "steps": [{"name": st.name, "type": st.type, "gpu": st.needs_gpu} for st in s.steps]}
                    for s in scenarios])
        return
    rows = [[s.path.stem, ", ".join(st.type for st in s.steps),
             f"{sum(st.needs_gpu for st in s.steps)}/{len(s.steps)}", s.description] for s in scenarios]
    table("fmhactl scenarios", ("scenario", "steps", "needs GPU", "description"), rows)


@scenario_app.command("run")
@guarded
def run_command(
    name: str = typer.Argument(..., help="Scenario name (see `fmhactl scenario list`) or path to a .toml."),
    as_json: bool = typer.Option(False, "--json", help="Print the run as JSON on stdout."),
    junit: Optional[Path] = typer.Option(None, "--junit", parser=path_arg, help="Write JUnit XML here."),
    json_out: Optional[Path] = typer.Option(None, "--json-out", parser=path_arg, help="Also write the JSON report here."),
    gpus: Optional[str] = typer.Option(None, "--gpus", help="verify/bench steps: all, N or 0,2,5 (one worker per GPU)."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="[ADDRESS]", help="verify/bench steps as Ray actors."),
) -> None:
    """Run a scenario; exit 1 when a step fails (SKIPPED steps do not fail it)."""
    from rich.markup import escape

    from fmhactl import services
    from fmhactl.errors import ExitCode

    total = {"n": 0}

    def started(index: int, step) -> None:
        note(f"[{index}/{total['n'] or '?'}] {step.name} ({step.type}) ...")

    def ended(index: int, result) -> None:
        style = _STYLE.get(result.status, "white")
        err_console.print(f"[{index}/{total['n'] or '?'}] [{style}]{result.status}[/{style}] {result.seconds:.1f} s  "
                          f"{escape(result.message)}".rstrip(), highlight=False, soft_wrap=True)

    scenario = services.load_scenario(name)
    total["n"] = len(scenario.steps)
    from fmhactl.services.placement import current_placement, placement_from_options

    token = current_placement.set(placement_from_options(gpus, ray))
    try:
        result = services.run_named_scenario(str(scenario.path), junit=junit, json_out=json_out, on_start=started,
                                             on_end=ended)
    finally:
        current_placement.reset(token)
    if as_json:
        print_json(result.to_dict())
    c = result.counts
    note(f"scenario {result.scenario}: {c['PASS']} passed, {c['FAIL']} failed, "
         f"{c['ERROR']} errors, {c['SKIPPED']} skipped in {result.seconds:.1f} s")
    if not result.ok:
        raise typer.Exit(int(ExitCode.CHECK_FAILED))
