"""`fmhactl status`: compute milestones from the local results store plus the committed evidence,
write the status files, or check that the committed ones are what the evidence computes."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput, CheckFailed, warn
from fmhactl.results.evidence import merged_store, read_evidence, record_id
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.status.compute import MilestoneStatus, compute_status, state_map, state_regressions
from fmhactl.status.milestones import load_milestones
from fmhactl.status.render import render_files, write_status


@dataclass
class StatusReport:
    statuses: list[MilestoneStatus]
    evidence_records: int  # records read from the evidence folder
    local_only: int  # rows of the local store that are not in the evidence
    origin: str  # where the rows came from, in words (the first line of STATUS.md says it)
    written: list[Path] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)  # --check: committed files that differ, first line each
    state_changes: list[str] = field(default_factory=list)  # --check: "M1: DONE -> STALE" against status.json

    @property
    def consulted(self) -> list[ResultRow]:
        """Every row the computation read, each once (what `results export` writes)."""
        unique = {record_id(r): r for s in self.statuses for r in s.consulted}
        return [unique[k] for k in sorted(unique)]

    def to_dict(self) -> dict:
        return {"evidence_records": self.evidence_records, "local_only_rows": self.local_only,
                "origin": self.origin, "written": [str(p) for p in self.written],
                "regressions": self.regressions, "differences": self.differences,
                "state_changes": self.state_changes,
                "milestones": [s.to_dict() for s in self.statuses]}


def _previous_states(out_dir: Path, statuses: list[MilestoneStatus], *, check: bool) -> dict:
    """milestones/status.json as written last time, validated (for the DONE -> IN PROGRESS
    regressions).

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
    """STATUS.md and milestones/ are written into the active project's folder."""
    return paths.active_project_dir()


def _origin(evidence: int, local_only: int, use_local: bool) -> str:
    words = f"{evidence} evidence records (`evidence/*.jsonl`)"
    if use_local and local_only:
        words += f" and {local_only} rows found only in the local results store"
    return words


def _differences(files: dict[str, str], out_dir: Path) -> list[str]:
    """One line per committed file that is missing or differs from the computed text (the first
    differing line quoted)."""
    out = []
    for name, text in files.items():
        path = out_dir / name
        try:
            committed = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            out.append(f"{name}: missing; `fmhactl status` writes it")
            continue
        if committed == text:
            continue
        diff = [ln for ln in difflib.unified_diff(committed.splitlines(), text.splitlines(), lineterm="", n=0)
                if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        first = diff[0] if diff else "(whitespace)"
        out.append(f"{name} differs from what the evidence computes ({len(diff)} lines; first: {first[:160]!r})")
    return out


def compute_report(*, milestones_file: Path | None = None, store: ResultStore | None = None,
                   evidence: Path | None = None, use_local: bool = True) -> StatusReport:
    """Every milestone computed from the evidence folder plus (use_local) the local results store;
    nothing read from or written to the status files."""
    milestones = load_milestones(milestones_file)
    evidence_rows = read_evidence(evidence)
    owned = store is None and use_local
    local = (store or ResultStore()) if use_local else None
    try:
        merged = merged_store(local, evidence_rows)
    finally:
        if owned and local is not None:
            local.close()
    try:
        statuses = compute_status(milestones, merged)
        local_only = len(merged.query()) - len(evidence_rows)
    finally:
        merged.close()
    report = StatusReport(statuses, len(evidence_rows), local_only, _origin(len(evidence_rows), local_only, use_local))
    report.regressions = [r for s in statuses for r in s.regressions]
    return report


def run_status(*, out_dir: Path | None = None, write: bool = True, milestones_file: Path | None = None,
               store: ResultStore | None = None, evidence: Path | None = None,
               use_local: bool = True) -> StatusReport:
    """compute_report, then write the status files into out_dir, or (write=False: --check)
    compare the files in out_dir with what is computed, each difference in report.differences."""
    out_dir = out_dir or default_out_dir()
    report = compute_report(milestones_file=milestones_file, store=store, evidence=evidence, use_local=use_local)
    files = render_files(report.statuses, report.origin)
    previous = _previous_states(out_dir, report.statuses, check=not write)
    report.regressions += state_regressions(previous, state_map(report.statuses))
    if write:
        report.written = write_status(files, out_dir)
    else:
        report.differences = _differences(files, out_dir)
        now = state_map(report.statuses)
        report.state_changes = [f"{mid}: {previous.get(mid, {}).get('state', 'absent')} -> {now[mid]['state']}"
                                for mid in now if previous.get(mid, {}).get("state") != now[mid]["state"]]
    return report
