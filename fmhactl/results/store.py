"""The results store: every build, verify, bench and profile outcome, one row each, in SQLite.

Rows are written by the parent process only (never by a kernel worker), each in its own
transaction, so a crash mid-sweep loses nothing already stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import locks, paths
from fmhactl.errors import MissingEnvironment
from fmhactl.records import RECORD_SCHEMA

SCHEMA_VERSION = 3  # 2: every row carries the record schema_version it was written with; 3: and the command

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL,      -- build | verify | bench | profile
    variant      TEXT NOT NULL,
    arch         TEXT NOT NULL,      -- sm_80 | sm_90a | sm_100a
    mode         TEXT NOT NULL,      -- native | emulated | compile-only
    config_key   TEXT NOT NULL,      -- AttnConfig.key, '' for builds
    config       TEXT NOT NULL,      -- JSON
    status       TEXT NOT NULL,      -- PASS | FAIL | CRASH | HANG | UNSUPPORTED | OK | ERROR | SKIPPED
    metrics      TEXT NOT NULL,      -- JSON
    source_hash  TEXT NOT NULL,
    gpu          TEXT NOT NULL,
    driver       TEXT NOT NULL,
    toolchain    TEXT NOT NULL,
    seed         INTEGER,
    session      TEXT NOT NULL,      -- groups the rows of one command invocation
    created_at   REAL NOT NULL,
    schema_version INTEGER NOT NULL DEFAULT 1,
    command      TEXT NOT NULL DEFAULT ''  -- the command line that made the row (evidence for milestones)
);
CREATE INDEX IF NOT EXISTS results_by_variant ON results(variant, kind, mode);
CREATE INDEX IF NOT EXISTS results_by_session ON results(session);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


@dataclass
class ResultRow:
    kind: str
    variant: str
    arch: str
    mode: str
    status: str
    config_key: str = ""
    config: dict = field(default_factory=dict)
    metrics: dict = field(default_factory=dict)
    source_hash: str = ""
    gpu: str = ""
    driver: str = ""
    toolchain: str = ""
    seed: int | None = None
    session: str = ""
    created_at: float = 0.0
    id: int | None = None
    schema_version: int = RECORD_SCHEMA
    command: str = ""

    def to_dict(self) -> dict:
        return {
            "id": self.id, "kind": self.kind, "variant": self.variant, "arch": self.arch,
            "mode": self.mode, "status": self.status, "config_key": self.config_key,
            "config": self.config, "metrics": self.metrics, "source_hash": self.source_hash,
            "gpu": self.gpu, "driver": self.driver, "toolchain": self.toolchain,
            "seed": self.seed, "session": self.session, "created_at": self.created_at,
            "schema_version": self.schema_version, "command": self.command, "record": self.record,
        }

    @property
    def record(self) -> str:
        """The evidence record id: a content hash, the same in every store (results/evidence.py)."""
        return record_id(self)

    @property
    def typed_metrics(self):
        """The metrics as the record type of this row's kind (fmhactl.records)."""
        from fmhactl.records import metrics_of

        return metrics_of(self.kind, self.metrics)


MAX_COMMAND = 1000


def current_command() -> str:
    """This process's command line as a user would type it: `fmhactl verify ...`,
    `python -m fmhactl.torch.checks --record`, `pytest ...` (cut at MAX_COMMAND characters)."""
    import shlex
    import sys

    if not sys.argv or not sys.argv[0]:
        return ""
    program = Path(sys.argv[0])
    head = program.name
    try:
        inside = program.resolve().relative_to(paths.PACKAGE_DIR.parent)
    except (ValueError, OSError):
        inside = None
    if inside is not None and inside.suffix == ".py":
        parts = list(inside.with_suffix("").parts)
        if parts[-1] == "__main__":
            parts.pop()
        head = "fmhactl" if parts == ["fmhactl"] else "python -m " + ".".join(parts)
    return " ".join([head, shlex.join(sys.argv[1:])]).strip()[:MAX_COMMAND]


def new_session_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S") + f"-{time.time_ns() % 1_000_000:06d}"


_COLUMNS = {"id", "kind", "variant", "arch", "mode", "config_key", "config", "status", "metrics",
            "source_hash", "gpu", "driver", "toolchain", "seed", "session", "created_at"}


class ResultStore:
    """The SQLite results store. A file that is not an fmhactl store (corrupt, foreign, newer) is
    refused with MissingEnvironment (exit 3) naming it, and is never written to."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.results_db_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise MissingEnvironment(f"results store {self.path}: folder cannot be created: {exc}") from None
        # One process at a time creates or checks the schema (locks.py says why).
        in_memory = str(self.path) == ":memory:"
        with contextlib.nullcontext() if in_memory else locks.exclusive(
                self.path.with_name(self.path.name + ".lock"), f"results store {self.path}"):
            existing = self.path.is_file() and self.path.stat().st_size > 0
            try:
                self._conn = sqlite3.connect(self.path, timeout=30.0)
            except sqlite3.Error as exc:
                raise MissingEnvironment(f"results store {self.path} cannot be opened: {exc}") from None
            self._conn.row_factory = sqlite3.Row
            try:
                if existing:
                    self._check_existing()
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.executescript(_SCHEMA)
                self._conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                                   (str(SCHEMA_VERSION),))
                self._migrate()
                self._conn.commit()
            except sqlite3.DatabaseError as exc:
                self._conn.close()
                raise MissingEnvironment(f"results store {self.path} is unusable ({exc}); move it aside or set "
                                         "FMHACTL_HOME to another folder") from None
            except MissingEnvironment:
                self._conn.close()
                raise

    def _check_existing(self) -> None:
        """Refuse, without writing, a file that is not an fmhactl results store of a known schema."""
        try:
            tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise MissingEnvironment(f"results store {self.path} is not an SQLite database ({exc}); "
                                     "move it aside or set FMHACTL_HOME to another folder") from None
        foreign = tables - {"results", "meta", "sqlite_sequence"}
        if foreign:
            raise MissingEnvironment(f"results store {self.path} is an SQLite file but not an fmhactl results "
                                     f"store (tables: {', '.join(sorted(tables))}); refusing to write to it")
        if "results" in tables:
            columns = {r[1] for r in self._conn.execute("PRAGMA table_info(results)")}
            if not _COLUMNS <= columns:
                raise MissingEnvironment(f"results store {self.path}: table results lacks columns "
                                         f"{', '.join(sorted(_COLUMNS - columns))}; refusing to write to it")
        if "meta" not in tables:
            return  # a fresh file another process is creating right now: the schema script completes it
        row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        try:
            version = int(row[0]) if row else 0
        except (TypeError, ValueError):
            version = -1
        if row is None:
            return
        if not 1 <= version <= SCHEMA_VERSION:
            raise MissingEnvironment(f"results store {self.path} has schema version {row[0] if row else 'none'}; "
                                     f"this fmhactl reads 1..{SCHEMA_VERSION}")
        try:
            (check,) = self._conn.execute("PRAGMA quick_check").fetchone()
        except sqlite3.DatabaseError as exc:
            raise MissingEnvironment(f"results store {self.path} is corrupt ({exc})") from None
        if check != "ok":
            raise MissingEnvironment(f"results store {self.path} is corrupt (quick_check: {str(check)[:120]})")

    def _migrate(self) -> None:
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(results)")}
        for column, decl in (("schema_version", "INTEGER NOT NULL DEFAULT 1"), ("command", "TEXT NOT NULL DEFAULT ''")):
            if column in columns:
                continue
            try:
                self._conn.execute(f"ALTER TABLE results ADD COLUMN {column} {decl}")
            except sqlite3.OperationalError as exc:  # another process migrated it a moment ago
                if "duplicate column" not in str(exc):
                    raise
        self._conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version' AND CAST(value AS INTEGER) < ?",
                           (str(SCHEMA_VERSION), SCHEMA_VERSION))

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, row: ResultRow, *, as_recorded: bool = False) -> int:
        """Store a new row, dated now and with this process's command line unless it has them;
        as_recorded (evidence import) stores the row exactly as it was recorded elsewhere."""
        if not as_recorded:
            row.created_at = row.created_at or time.time()
            row.command = row.command or current_command()
        try:
            return self._insert(row)
        except sqlite3.DatabaseError as exc:
            raise MissingEnvironment(f"results store {self.path}: cannot store a row ({exc})") from None

    def _insert(self, row: ResultRow) -> int:
        with self._conn:
            cur = self._conn.execute(
                "INSERT INTO results(kind, variant, arch, mode, config_key, config, status, metrics,"
                " source_hash, gpu, driver, toolchain, seed, session, created_at, schema_version, command)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (row.kind, row.variant, row.arch, row.mode, row.config_key,
                 json.dumps(row.config, sort_keys=True), row.status,
                 json.dumps(row.metrics, sort_keys=True), row.source_hash, row.gpu, row.driver,
                 row.toolchain, row.seed, row.session, row.created_at, row.schema_version, row.command))
        row.id = int(cur.lastrowid or 0)
        return row.id

    def query(self, *, kind: str | None = None, variant: str | None = None,
              mode: str | None = None, status: str | None = None, arch: str | None = None,
              session: str | None = None, config_key: str | None = None,
              limit: int | None = None, newest_first: bool = True,
              config_keys: list[str] | tuple[str, ...] | None = None,
              since: float | None = None, until: float | None = None) -> list[ResultRow]:
        """Rows matching every given filter; since/until are Unix times (created_at)."""
        clauses: list[str] = []
        args: list[object] = []
        for column, value in (("kind", kind), ("variant", variant), ("mode", mode),
                              ("status", status), ("arch", arch), ("session", session),
                              ("config_key", config_key)):
            if value is not None:
                clauses.append(f"{column} = ?")
                args.append(value)
        if config_keys is not None:
            clauses.append(f"config_key IN ({','.join('?' * len(config_keys))})" if config_keys else "0")
            args.extend(config_keys)
        if since is not None:
            clauses.append("created_at >= ?")
            args.append(since)
        if until is not None:
            clauses.append("created_at < ?")
            args.append(until)
        sql = "SELECT * FROM results"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY id " + ("DESC" if newest_first else "ASC")
        if limit:
            sql += " LIMIT ?"
            args.append(limit)
        try:
            return [_row_from_sql(r) for r in self._conn.execute(sql, args)]
        except (sqlite3.DatabaseError, json.JSONDecodeError) as exc:
            raise MissingEnvironment(f"results store {self.path}: cannot read rows ({exc})") from None


def _row_from_sql(r: sqlite3.Row) -> ResultRow:
    return ResultRow(
        id=r["id"], kind=r["kind"], variant=r["variant"], arch=r["arch"], mode=r["mode"],
        status=r["status"], config_key=r["config_key"], config=json.loads(r["config"]),
        metrics=json.loads(r["metrics"]), source_hash=r["source_hash"], gpu=r["gpu"],
        driver=r["driver"], toolchain=r["toolchain"], seed=r["seed"], session=r["session"],
        created_at=r["created_at"], schema_version=r["schema_version"], command=r["command"])


def row_content(row: ResultRow) -> dict:
    """What a row says (its evidence content), without the store's own id."""
    return {"kind": row.kind, "variant": row.variant, "arch": row.arch, "mode": row.mode, "status": row.status,
            "config_key": row.config_key, "config": row.config, "metrics": row.metrics,
            "source_hash": row.source_hash, "gpu": row.gpu, "driver": row.driver, "toolchain": row.toolchain,
            "seed": row.seed, "session": row.session, "command": row.command, "created_at": row.created_at,
            "row_schema_version": row.schema_version}


def _canonical(data: dict) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=True)


def record_id(row: ResultRow) -> str:
    """Content hash of a row (not its DB id): the same in every store and file."""
    return hashlib.sha256(_canonical(row_content(row)).encode()).hexdigest()[:16]
