"""`fmhactl status`: milestones computed from the results DB; STATUS.md and milestones/*.md."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import err_console, guarded, out_console, print_json


def register(app: typer.Typer) -> None:
    app.command("status", rich_help_panel="Results")(status_command)


_STYLE = {"DONE": "green", "STALE": "yellow", "IN PROGRESS": "cyan", "BLOCKED": "red", "NOT RUN": "dim"}


@guarded
def status_command(
    out: Optional[Path] = typer.Option(None, "--out", help="Folder for STATUS.md and milestones/ (default: the checkout)."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 on a regression (a config that passed "
                                                      "and now fails, or a mode that was DONE in milestones/status.json "
                                                      "and is IN PROGRESS now)."),
    milestones: Optional[Path] = typer.Option(None, "--milestones", help="Milestones file (default scenarios/milestones.toml)."),
    as_json: bool = typer.Option(False, "--json", help="Print the computed status as JSON on stdout."),
) -> None:
    """Compute every milestone per execution mode from the results DB and write STATUS.md (deterministic)."""
    from fmhactl.errors import ExitCode
    from fmhactl.status.compute import MODES
    from fmhactl.status.render import mode_cell
    from fmhactl.status.service import run_status

    report = run_status(out_dir=out, write=not check, milestones_file=milestones)
    if as_json:
        print_json(report.to_dict())
    else:
        from rich.table import Table

        table = Table(title=f"fmhactl status ({report.db_rows} results, newest id {report.newest_id})")
        for col in ("milestone", "overall", *(spec.label for spec in MODES), "why"):
            table.add_column(col)
        for s in report.statuses:
            style = _STYLE.get(s.state, "white")
            cells = [mode_cell(s.mode(spec.label)) for spec in MODES]
            reason = s.reason if len(s.reason) <= 48 else s.reason[:47] + "…"
            table.add_row(s.milestone.id, f"[{style}]{s.state}[/{style}]", *cells, reason)
        out_console.print(table)
    for path in report.written:
        err_console.print(f"wrote {path}", markup=False)
    for regression in report.regressions:
        err_console.print(f"regression: {regression}", markup=False)
    if check and report.regressions:
        raise typer.Exit(int(ExitCode.VERIFY_FAILED))
