"""`fmhactl status`: compute milestones from the results DB, write the files, check for regressions."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput, CheckFailed, warn
from fmhactl.results.store import ResultStore
from fmhactl.status.compute import MilestoneStatus, compute_status, state_map, state_regressions
from fmhactl.status.milestones import load_milestones
from fmhactl.status.render import write_status


@dataclass
class StatusReport:
    statuses: list[MilestoneStatus]
    db_rows: int
    newest_id: int
    written: list[Path] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"db_rows": self.db_rows, "newest_id": self.newest_id, "written": [str(p) for p in self.written],
                "regressions": self.regressions, "milestones": [s.to_dict() for s in self.statuses]}


def _previous_states(out_dir: Path, statuses: list[MilestoneStatus], *, check: bool) -> dict:
    """milestones/status.json as written last time, validated.

    For --check (the gate) a missing status file or milestone page fails the check (exit 1) and
    an empty or unparsable one is bad input (exit 2). Otherwise a damaged file is reported in one
    warning line and rewritten.
    """
    from fmhactl.schemas import StatusFile, read_json

    folder = out_dir / "milestones"
    state_file = folder / "status.json"
    if check:
        if not state_file.is_file():
            raise CheckFailed(f"{state_file}: missing; `fmhactl status` writes it")
        for s in statuses:
            page = folder / f"{s.milestone.id}.md"
            if not page.is_file():
                raise CheckFailed(f"{page}: missing; `fmhactl status` writes it")
            if not page.read_bytes().strip():
                raise CheckFailed(f"{page}: empty; `fmhactl status` rewrites it")
        return StatusFile.parse(read_json(state_file, "status file"), state_file)
    if not state_file.is_file():
        return {}
    try:
        return StatusFile.parse(read_json(state_file, "status file"), state_file)
    except BadInput as exc:
        warn(f"{exc}; rewriting it")
        return {}


def default_out_dir() -> Path:
    return paths.project_root()


def run_status(*, out_dir: Path | None = None, write: bool = True, milestones_file: Path | None = None,
               store: ResultStore | None = None) -> StatusReport:
    out_dir = out_dir or default_out_dir()
    milestones = load_milestones(milestones_file)
    owned = store is None
    store = store or ResultStore()
    try:
        statuses = compute_status(milestones, store)
        rows = store.query()
    finally:
        if owned:
            store.close()
    report = StatusReport(statuses, len(rows), int(rows[0].id or 0) if rows else 0)
    report.regressions = [r for s in statuses for r in s.regressions]
    previous = _previous_states(out_dir, statuses, check=not write)
    report.regressions += state_regressions(previous, state_map(statuses))
    if write:
        report.written = write_status(statuses, out_dir, report.db_rows, report.newest_id)
    return report
