"""`fmhactl status`: milestones computed from the results DB; STATUS.md and milestones/*.md."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import guarded, note, path_arg, print_json, table


def register(app: typer.Typer) -> None:
    app.command("status", rich_help_panel="Results")(status_command)


_STYLE = {"DONE": "green", "STALE": "yellow", "IN PROGRESS": "cyan", "BLOCKED": "red", "NOT RUN": "dim"}


@guarded
def status_command(
    out: Optional[Path] = typer.Option(None, "--out", parser=path_arg, help="Folder for STATUS.md and milestones/ (default: the checkout)."),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 when STATUS.md, milestones/*.md or "
                                                      "milestones/status.json differ from what the committed evidence "
                                                      "computes (a hand edit, a changed kernel source: STALE, new evidence "
                                                      "not regenerated), or on a regression."),
    milestones: Optional[Path] = typer.Option(None, "--milestones", parser=path_arg, help="Milestones file (default scenarios/milestones.toml)."),
    evidence: Optional[Path] = typer.Option(None, "--evidence", parser=path_arg, help="Evidence file or folder (default: the checkout's evidence/)."),
    evidence_only: Optional[bool] = typer.Option(None, "--evidence-only/--with-local",
                                                 help="Leave the local results store out (default: out for --check, "
                                                      "in otherwise)."),
    as_json: bool = typer.Option(False, "--json", help="Print the computed status as JSON on stdout."),
) -> None:
    """Compute every milestone per execution mode from the local results store plus the committed
    evidence and write STATUS.md + milestones/ (deterministic)."""
    from fmhactl import services
    from fmhactl.services.status import MODES
    from fmhactl.services.status import mode_cell

    report = services.status(out_dir=out, check=check, milestones_file=milestones, evidence=evidence,
                             evidence_only=evidence_only)
    if as_json:
        print_json(report.to_dict())
    else:
        rows = []
        for s in report.statuses:
            reason = s.reason if len(s.reason) <= 48 else s.reason[:47] + "…"
            rows.append([s.milestone.id, s.state, *(mode_cell(s.mode(spec.label)) for spec in MODES), reason])
        table(f"fmhactl status ({report.origin})",
              ("milestone", "overall", *(spec.label for spec in MODES), "why"), rows,
              styles={1: lambda c: _STYLE.get(c, "")})
    for path in report.written:
        note(f"wrote {path}")
    if report.written and report.local_only:
        note(f"{report.local_only} rows came from the local store only: `fmhactl results export` puts them in "
             "evidence/, else `status --check` (evidence alone) disagrees with these files")
    for difference in report.differences:
        note(f"differs: {difference}")
    for regression in report.regressions:
        note(f"regression: {regression}")
    if check:
        services.status_gate(report)
