"""`fmhactl results`: list and filter what build/verify/bench/profile recorded."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Optional

import typer

from fmhactl.cli.common import guarded, note, path_arg, print_json, table


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="List stored results; export/import the evidence that proves milestones.",
                        no_args_is_help=False)
    group.callback(invoke_without_command=True)(results_command)
    group.command("export")(export_command)
    group.command("import")(import_command)
    app.add_typer(group, name="results", rich_help_panel="Results")


@guarded
def results_command(
    ctx: typer.Context,
    kind: Optional[str] = typer.Option(None, "--kind", help="build, run, verify, bench, profile or dump."),
    variant: Optional[str] = typer.Option(None, "--variant"),
    status: Optional[str] = typer.Option(None, "--status", help="PASS, FAIL, CRASH, HANG, UNSUPPORTED, OK, ERROR."),
    mode: Optional[str] = typer.Option(None, "--mode", help="native, emulated or compile-only."),
    grid: Optional[str] = typer.Option(None, "--grid", help="Only configs of this grid."),
    since: Optional[str] = typer.Option(None, "--since", help="Rows made at or after this ISO date/time."),
    until: Optional[str] = typer.Option(None, "--until", help="Rows made before this ISO date/time."),
    session: Optional[str] = typer.Option(None, "--session"),
    limit: int = typer.Option(50, "--limit", help="Newest N rows (0: all); when the limit cuts the list, "
                                                 "stderr says so."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List stored results, newest first (`results export` / `results import`: the committed evidence)."""
    if ctx.invoked_subcommand:
        return
    from fmhactl import services
    from fmhactl.records import summary_text

    rows = services.query_results(services.ResultsFilter(kind=kind, variant=variant, status=status, mode=mode,
                                                         grid=grid, session=session, since=since, until=until,
                                                         limit=limit))
    if limit and len(rows) >= limit:  # stdout stays data; the cut is said on stderr
        note(f"showing the newest {limit} rows; older ones may exist (--limit N, --limit 0 for all)")
    if as_json:
        print_json([r.to_dict() for r in rows])
        return
    lines = [[r.id, datetime.datetime.fromtimestamp(r.created_at).strftime("%m-%d %H:%M:%S"), r.kind, r.variant,
              r.arch, r.mode, r.config_key, r.status, summary_text(r.kind, r.metrics)] for r in rows]
    table(f"fmhactl results ({len(rows)} rows)",
          ("id", "when", "kind", "variant", "arch", "mode", "config", "status", "summary"), lines)


@guarded
def export_command(
    out: Optional[Path] = typer.Option(None, "--out", parser=path_arg, help="Folder for records.jsonl (default: the checkout's evidence/)."),
    evidence: Optional[Path] = typer.Option(None, "--evidence", parser=path_arg, help="Evidence already committed, merged in "
                                                                      "(default: the checkout's evidence/)."),
    milestones: Optional[Path] = typer.Option(None, "--milestones", parser=path_arg, help="Milestones file (default scenarios/milestones.toml)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Write the rows that prove the milestones (local store + committed evidence) as JSON lines."""
    from fmhactl import services

    outcome = services.export_evidence(out, evidence=evidence, milestones_file=milestones)
    if as_json:
        print_json(outcome.to_dict())
    note(f"wrote {outcome.path}: {outcome.records} records ({outcome.from_local} from the local store)")


@guarded
def import_command(
    sources: Optional[list[Path]] = typer.Argument(None, parser=path_arg, help="Evidence files or folders (default: the checkout's evidence/)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Add evidence records to the local results store (each once; a bad line is refused, naming file:line)."""
    from fmhactl import services

    outcome = services.import_evidence(list(sources or []))
    if as_json:
        print_json(outcome.to_dict())
    note(f"imported {outcome.added} records from {len(outcome.files)} files ({outcome.already_present} already present)")
