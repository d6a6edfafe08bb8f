"""`fmhactl scenario list|run`: named step sequences with progress, JSON and JUnit XML output."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded, out_console, print_json

scenario_app = typer.Typer(help="Run named scenarios (scenarios/*.toml): build, verify, bench, profile, checks.",
                           no_args_is_help=True)

_STYLE = {"PASS": "green", "FAIL": "red", "ERROR": "red", "SKIPPED": "yellow"}


def register(app: typer.Typer) -> None:
    app.add_typer(scenario_app, name="scenario", rich_help_panel="Results")


@scenario_app.command("list")
@guarded
def list_command(as_json: bool = typer.Option(False, "--json", help="Print as JSON on stdout.")) -> None:
    """List the scenarios and their steps."""
    from fmhactl.scenario.model import available_scenarios, load_scenario

    scenarios = [load_scenario(n) for n in available_scenarios()]
    if as_json:
        print_json([{"name": s.name, "description": s.description, "path": str(s.path),
                     "steps": [{"name": st.name, "type": st.type, "gpu": st.needs_gpu} for st in s.steps]}
                    for s in scenarios])
        return
    from rich.table import Table

    table = Table(title="fmhactl scenarios")
    for col in ("scenario", "steps", "needs GPU", "description"):
        table.add_column(col)
    for s in scenarios:
        gpu = sum(st.needs_gpu for st in s.steps)
        table.add_row(s.path.stem, ", ".join(f"{st.type}" for st in s.steps), f"{gpu}/{len(s.steps)}", s.description)
    out_console.print(table)


@scenario_app.command("run")
@guarded
def run_command(
    name: str = typer.Argument(..., help="Scenario name (see `fmhactl scenario list`) or path to a .toml."),
    as_json: bool = typer.Option(False, "--json", help="Print the run as JSON on stdout."),
    junit: Optional[Path] = typer.Option(None, "--junit", help="Write JUnit XML here."),
    json_out: Optional[Path] = typer.Option(None, "--json-out", help="Also write the JSON report here."),
    gpus: Optional[str] = typer.Option(None, "--gpus", help="verify/bench steps: all, N or 0,2,5 (one worker per GPU)."),
    ray: Optional[str] = typer.Option(None, "--ray", metavar="[ADDRESS]", help="verify/bench steps as Ray actors."),
) -> None:
    """Run a scenario; exit 1 when a step fails (SKIPPED steps do not fail it)."""
    import json

    from fmhactl.errors import ExitCode
    from fmhactl.scenario.junit import junit_xml
    from fmhactl.scenario.model import load_scenario
    from fmhactl.scenario.runner import run_scenario

    scenario = load_scenario(name)
    total = len(scenario.steps)

    def started(index: int, step) -> None:
        err_console.print(f"[{index}/{total}] {step.name} ({step.type}) ...", markup=False, soft_wrap=True)

    from rich.markup import escape

    def ended(index: int, result) -> None:
        style = _STYLE.get(result.status, "white")
        err_console.print(f"[{index}/{total}] [{style}]{result.status}[/{style}] {result.seconds:.1f} s  "
                          f"{escape(result.message)}".rstrip(), highlight=False, soft_wrap=True)

    from fmhactl.sweep.service import current_placement, placement_from_options

    token = current_placement.set(placement_from_options(gpus, ray))
    try:
        result = run_scenario(scenario, on_start=started, on_end=ended)
    finally:
        current_placement.reset(token)
    data = result.to_dict()
    if junit:
        junit.parent.mkdir(parents=True, exist_ok=True)
        junit.write_text(junit_xml(result))
    if json_out:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n")
    if as_json:
        print_json(data)
    c = result.counts
    err_console.print(f"scenario {result.scenario}: {c['PASS']} passed, {c['FAIL']} failed, "
                      f"{c['ERROR']} errors, {c['SKIPPED']} skipped in {result.seconds:.1f} s", markup=False)
    if not result.ok:
        raise typer.Exit(int(ExitCode.VERIFY_FAILED))
