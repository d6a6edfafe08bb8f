"""`fmhactl status`: compute milestones from the results DB, write the files, check for regressions."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import paths
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
    previous_file = out_dir / "milestones" / "status.json"
    if previous_file.is_file():
        try:
            previous = json.loads(previous_file.read_text())
        except json.JSONDecodeError:
            previous = {}
        report.regressions += state_regressions(previous, state_map(statuses))
    if write:
        report.written = write_status(statuses, out_dir, report.db_rows, report.newest_id)
    return report
