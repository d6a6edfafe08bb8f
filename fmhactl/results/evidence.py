"""Evidence that travels with the repository: result rows as schema-versioned JSON lines.

The results store (`results/store.py`) is local and never committed; the milestone files are
computed from it *plus* the committed evidence folder (`evidence/*.jsonl`). One line is one
stored row (a verify config, a torch check, a build, ...) with everything a reader needs to trust
it: the source hash it was made from, GPU, driver, toolchain, seed, the command and the date.

Each record carries `record`, a content hash of the row (every field but the local DB id), so
the same row has the same id in every store it is imported into: import is idempotent, the status
files name records instead of DB row ids, and a hand-edited line no longer matches its id and is
refused. Lines that are not JSON, not fmhactl evidence, of a newer schema or otherwise malformed
are refused as bad input naming file:line, before anything is imported.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fmhactl import paths
from fmhactl.errors import BadInput, MissingEnvironment
from fmhactl.results.store import MAX_TIME, ResultRow, ResultStore, record_id, row_content
from fmhactl.schemas import shown

EVIDENCE_SCHEMA = 1
RECORD_TYPE = "fmhactl-evidence"
EVIDENCE_FILE = "records.jsonl"  # what `fmhactl results export` writes in the folder
MAX_LINE = 1_000_000  # characters; a longer line is refused, not parsed
MAX_RECORDS = 200_000

Text = Annotated[str, Field(max_length=20_000)]


class EvidenceRecord(BaseModel):
    """One line of an evidence file (every field required; unknown fields refused)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    type: Literal["fmhactl-evidence"]
    schema_version: Literal[1]
    record: Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
    date: Annotated[str, Field(max_length=40)]  # UTC, ISO 8601, from created_at: for readers
    kind: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]{0,31}$")]
    variant: Annotated[str, Field(min_length=1, max_length=200)]
    arch: Annotated[str, Field(max_length=32)]
    mode: Annotated[str, Field(max_length=32)]
    status: Annotated[str, Field(pattern=r"^[A-Z ]{1,16}$")]
    config_key: Annotated[str, Field(max_length=500)]
    config: dict[str, Any]
    metrics: dict[str, Any]
    source_hash: Annotated[str, Field(pattern=r"^([0-9a-f]{64})?$")]
    gpu: Text
    driver: Text
    toolchain: Text
    seed: int | None
    session: Annotated[str, Field(max_length=200)]
    command: Text
    created_at: Annotated[float, Field(ge=0, le=MAX_TIME)]  # a date utc_date can write
    row_schema_version: Annotated[int, Field(ge=1, le=1000)]


def evidence_dir() -> Path:
    """The committed evidence folder of the active project (project.evidence in its fmhactl.toml;
    the built-in project's is the checkout's evidence/, which FMHACTL_ROOT moves with it)."""
    from fmhactl.project.files import active_project

    project = active_project()
    return project.evidence if project is not None and project.evidence else paths.project_root() / "evidence"


def utc_date(created_at: float) -> str:
    return datetime.datetime.fromtimestamp(created_at, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def to_record(row: ResultRow) -> dict:
    return {"type": RECORD_TYPE, "schema_version": EVIDENCE_SCHEMA, "record": record_id(row),
            "date": utc_date(row.created_at), **row_content(row)}


def _row_of(record: EvidenceRecord) -> ResultRow:
    return ResultRow(kind=record.kind, variant=record.variant, arch=record.arch, mode=record.mode,
                     status=record.status, config_key=record.config_key, config=record.config,
                     metrics=record.metrics, source_hash=record.source_hash, gpu=record.gpu, driver=record.driver,
                     toolchain=record.toolchain, seed=record.seed, session=record.session,
                     created_at=record.created_at, schema_version=record.row_schema_version, command=record.command)


def _first_problem(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "record"
    return f"{where}: {err.get('msg', 'invalid')}"


def parse_line(text: str, where: str) -> ResultRow:
    """One evidence line -> a row; BadInput naming `where` (file:line) and the rule otherwise."""
    return _parse_record(text, where)[1]


def _parse_record(text: str, where: str) -> tuple[str, ResultRow]:
    """parse_line's work, with the record id it checked the row's content against."""
    if len(text) > MAX_LINE:
        raise BadInput(f"{where}: line longer than {MAX_LINE} characters; not fmhactl evidence")
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise BadInput(f"{where}: not JSON ({exc.__class__.__name__}: {str(exc)[:80]})") from None
    if not isinstance(data, dict) or data.get("type") != RECORD_TYPE:
        raise BadInput(f"{where}: not an fmhactl evidence record (a JSON object with \"type\": \"{RECORD_TYPE}\")")
    version = data.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > EVIDENCE_SCHEMA:
        raise BadInput(f"{where}: evidence schema_version {version}; this fmhactl reads {EVIDENCE_SCHEMA}")
    try:
        record = EvidenceRecord.model_validate(data)
    except ValidationError as exc:
        raise BadInput(f"{where}: {_first_problem(exc)}") from None
    row = _row_of(record)
    if record_id(row) != record.record:
        raise BadInput(f"{where}: record {record.record} does not match its content (edited by hand?); "
                       "re-export it with `fmhactl results export`")
    if record.date != utc_date(record.created_at):
        raise BadInput(f"{where}: date {record.date!r} is not created_at {record.created_at} in UTC")
    return record.record, row


def read_file(path: Path) -> list[ResultRow]:
    """Every record of one evidence file, validated line by line (blank lines allowed)."""
    return [row for _, row in _read_records(path)]


def _read_records(path: Path) -> list[tuple[str, ResultRow]]:
    """read_file's work, each row with its checked record id."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BadInput(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise BadInput(f"{path}:{line}: not UTF-8 text; not fmhactl evidence") from None
    rows: list[tuple[str, ResultRow]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(rows) >= MAX_RECORDS:
            raise BadInput(f"{path}:{number}: more than {MAX_RECORDS} records in one file")
        rows.append(_parse_record(line, f"{path}:{number}"))
    return rows


def evidence_files(source: Path) -> list[Path]:
    """A file, or every *.jsonl of a folder (sorted); a missing folder has none."""
    try:  # is_dir/is_file raise, not answer False, on a name too long for the file system
        if source.is_dir():
            return sorted(p for p in source.glob("*.jsonl") if p.is_file())
        if source.is_file():
            return [source]
        if source == evidence_dir() and not source.exists():
            return []  # a checkout without evidence yet
    except OSError as exc:
        raise BadInput(f"evidence {shown(str(source))}: cannot be read ({exc.strerror or exc})") from None
    raise BadInput(f"evidence {source}: no such file or folder")


def read_evidence(source: Path | None = None) -> list[ResultRow]:
    """The rows of every evidence file under source (default: the checkout's evidence/), each
    record once, oldest first (created_at, then record id: the order the status reads them in)."""
    source = source if source is not None else evidence_dir()
    seen: dict[str, ResultRow] = {}
    for path in evidence_files(source):
        for rid, row in _read_records(path):  # each id checked against its row's content on reading
            seen.setdefault(rid, row)
    return [row for _, row in sorted(seen.items(), key=lambda kv: (kv[1].created_at, kv[0]))]


def merged_store(local: ResultStore | None, evidence: list[ResultRow]) -> ResultStore:
    """An in-memory store holding the evidence rows and the local store's rows, each record once,
    inserted oldest first so that "newest first" (by id) is by date."""
    rows: dict[str, ResultRow] = {record_id(r): r for r in evidence}
    if local is not None:
        for row in local.query(newest_first=False):
            rows.setdefault(record_id(row), row)
    merged = ResultStore(Path(":memory:"))
    for key, row in sorted(rows.items(), key=lambda kv: (kv[1].created_at, kv[0])):
        copy = ResultRow(**{**row.__dict__, "id": None})
        merged.add(copy, as_recorded=True)
    return merged


def write_records(rows: list[ResultRow], folder: Path) -> Path:
    """Write rows to folder/records.jsonl, one record a line, sorted (so that a re-export of the
    same rows is byte-identical), atomically."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MissingEnvironment(f"evidence folder {folder} cannot be created ({exc.strerror or exc})") from None
    unique = {record_id(r): r for r in rows}
    ordered = sorted(unique.values(), key=lambda r: (r.kind, r.variant, r.arch, r.mode, r.config_key,
                                                     r.created_at, record_id(r)))
    text = "".join(json.dumps(to_record(r), sort_keys=True, allow_nan=True) + "\n" for r in ordered)
    target = folder / EVIDENCE_FILE
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".records-", suffix=".tmp")
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # a file to commit, not mkstemp's private 0600
        os.replace(tmp, target)
    except OSError as exc:
        raise MissingEnvironment(f"evidence file {target} cannot be written ({exc.strerror or exc})") from None
    return target


def import_rows(rows: list[ResultRow], store: ResultStore) -> tuple[int, int]:
    """Add the rows the store lacks (by record id): (added, already there)."""
    present = {record_id(r) for r in store.query()}
    added = 0
    for row in rows:
        if record_id(row) in present:
            continue
        store.add(ResultRow(**{**row.__dict__, "id": None}), as_recorded=True)
        present.add(record_id(row))
        added += 1
    return added, len(rows) - added
