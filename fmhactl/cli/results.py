"""`fmhactl results`: list and filter what build/verify/bench/profile recorded."""

from __future__ import annotations

import datetime
from typing import Optional

import typer

from fmhactl.cli.common import guarded, out_console, print_json


def register(app: typer.Typer) -> None:
    app.command("results", rich_help_panel="Results")(results_command)


@guarded
def results_command(
    kind: Optional[str] = typer.Option(None, "--kind", help="build, verify, bench or profile."),
    variant: Optional[str] = typer.Option(None, "--variant"),
    status: Optional[str] = typer.Option(None, "--status", help="PASS, FAIL, CRASH, HANG, UNSUPPORTED, OK, ERROR."),
    mode: Optional[str] = typer.Option(None, "--mode", help="native, emulated or compile-only."),
    session: Optional[str] = typer.Option(None, "--session"),
    limit: int = typer.Option(50, "--limit", help="Newest N rows (0: all)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """List stored results, newest first."""
    from fmhactl.errors import BadInput
    from fmhactl.results.store import ResultStore

    if limit < 0:
        raise BadInput("--limit must be >= 0")
    with ResultStore() as store:
        rows = store.query(kind=kind, variant=variant, status=status.upper() if status else None,
                           mode=mode, session=session, limit=limit or None)
    if as_json:
        print_json([r.to_dict() for r in rows])
        return
    from rich.table import Table

    table = Table(title=f"fmhactl results ({len(rows)} rows)")
    for col in ("id", "when", "kind", "variant", "arch", "mode", "config", "status", "summary"):
        table.add_column(col)
    for r in rows:
        when = datetime.datetime.fromtimestamp(r.created_at).strftime("%m-%d %H:%M:%S")
        table.add_row(str(r.id), when, r.kind, r.variant, r.arch, r.mode, r.config_key, r.status, _summary(r))
    out_console.print(table)


def _summary(r) -> str:
    m = r.metrics
    if r.kind == "verify" and "max_abs_err" in m:
        return f"err {m['max_abs_err']:.1e} cos {m['cosine']:.6f}"
    if r.kind == "bench" and "kernel" in m:
        return f"{m['kernel']['tflops']:.1f} TFLOP/s"
    if r.kind == "build" and "kernels" in m:
        regs = max((k["registers"] for k in m["kernels"]), default=0)
        return f"{regs} regs{' (cache)' if m.get('cache_hit') else ''}"
    return str(m.get("reason") or m.get("error") or "")[:60]
