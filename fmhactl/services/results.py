"""results: what build/run/verify/bench/profile/dump recorded, filtered."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.services.kernels import _store

KINDS = ("build", "run", "verify", "bench", "profile", "dump")
STATUSES = ("PASS", "FAIL", "CRASH", "HANG", "UNSUPPORTED", "OK", "ERROR", "SKIPPED")
MODES = ("native", "emulated", "compile-only")
MAX_LIMIT = 1_000_000


@dataclass(frozen=True)
class ResultsFilter:
    """Every field optional; given fields must all match. Dates are ISO (2026-11-23 or
    2026-11-23T14:00), local time; `since` is inclusive, `until` exclusive."""

    kind: str | None = None
    variant: str | None = None
    status: str | None = None
    mode: str | None = None
    grid: str | None = None  # only configs of this grid (scenarios/grids/<name>.toml)
    session: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int = 50  # newest N rows; 0 = all


def _date(text: str | None, option: str) -> float | None:
    if text is None:
        return None
    from fmhactl.schemas import shown

    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError, OSError):
        raise BadInput(f"{option} must be an ISO date such as 2026-11-23 or 2026-11-23T14:00, got {shown(text)}") from None


def query(flt: ResultsFilter, *, store: ResultStore | None = None) -> list[ResultRow]:
    """Stored rows matching flt, newest first."""
    from fmhactl.schemas import check_name, int_in_range, shown

    def choice(value: str | None, allowed: tuple[str, ...], option: str, upper: bool = False) -> str | None:
        if value is None:
            return None
        v = value.upper() if upper else value
        if v not in allowed:
            raise BadInput(f"{option} must be one of {', '.join(allowed)}, got {shown(value)}")
        return v

    kind = choice(flt.kind, KINDS, "--kind")
    status = choice(flt.status, STATUSES, "--status", upper=True)
    mode = choice(flt.mode, MODES, "--mode")
    if isinstance(flt.limit, int) and flt.limit < 0:
        raise BadInput("--limit must be >= 0")
    int_in_range(flt.limit, "--limit", 0, MAX_LIMIT)
    if flt.variant is not None:
        check_name(flt.variant, "--variant")
    if flt.session is not None and (len(flt.session) > 64 or not flt.session.isprintable()):
        raise BadInput(f"--session {shown(flt.session)} is not a session id")
    since, until = _date(flt.since, "--since"), _date(flt.until, "--until")
    if since is not None and until is not None and since >= until:
        raise BadInput("--since must be earlier than --until")
    keys = None
    if flt.grid is not None:
        from fmhactl.verify.grids import load_grid

        keys = [c.key for c in load_grid(flt.grid).configs]
    with _store(store) as s:
        return s.query(kind=kind, variant=flt.variant, status=status, mode=mode, session=flt.session,
                       config_keys=keys, since=since, until=until, limit=flt.limit or None)


@dataclass(frozen=True)
class ExportOutcome:
    path: Path  # the evidence file written
    records: int  # records in it
    from_local: int  # of those, rows that were only in the local store before

    def to_dict(self) -> dict:
        return {"path": str(self.path), "records": self.records, "from_local_store": self.from_local}


@dataclass(frozen=True)
class ImportOutcome:
    files: list[Path]
    added: int
    already_present: int

    def to_dict(self) -> dict:
        return {"files": [str(p) for p in self.files], "added": self.added, "already_present": self.already_present}


def export_evidence(out: Path | None = None, *, evidence: Path | None = None,
                    milestones_file: Path | None = None) -> ExportOutcome:
    """Write the rows that prove (or disprove) the milestones, from the local store plus the
    evidence already in `evidence` (default: the checkout's evidence/), to OUT/records.jsonl
    (default: the evidence folder itself). Only rows the status computation reads are written,
    so superseded rows drop out and a re-export of the same rows is byte-identical."""
    from fmhactl.paths import check_output_path
    from fmhactl.results.evidence import EVIDENCE_FILE, evidence_dir, read_evidence, record_id, write_records
    from fmhactl.status.service import compute_report

    folder = Path(out) if out is not None else evidence_dir()
    if paths.exists(folder, "--out") and not folder.is_dir():
        raise BadInput(f"--out {folder}: not a folder")
    check_output_path(folder / EVIDENCE_FILE, "--out")
    report = compute_report(milestones_file=milestones_file, evidence=evidence, use_local=True)
    rows = report.consulted
    known = {record_id(r) for r in read_evidence(evidence)}
    path = write_records(rows, folder)
    return ExportOutcome(path, len(rows), sum(1 for r in rows if record_id(r) not in known))


def import_evidence(sources: list[Path], *, store: ResultStore | None = None) -> ImportOutcome:
    """Add the records of evidence files (or folders of *.jsonl) to the local store, each once:
    importing twice adds nothing. Every file is validated before anything is stored."""
    from fmhactl.results.evidence import evidence_dir, evidence_files, import_rows, read_file

    files: list[Path] = []
    for source in sources or [evidence_dir()]:
        files += evidence_files(Path(source))
    rows = [row for path in files for row in read_file(path)]
    with _store(store) as s:
        added, present = import_rows(rows, s)
    return ImportOutcome(files, added, present)
