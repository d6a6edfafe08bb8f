"""The results store: every build, verify, bench and profile outcome, one row each, in SQLite.

Rows are written by the parent process only (never by a kernel worker), each in its own
transaction, so a crash mid-sweep loses nothing already stored.

Every row carries the checksum of its content (its evidence record id, `record_id`), checked
whenever it is read: SQLite checks its pages (PRAGMA quick_check at open) but not the values in
them, so a flipped byte inside a row would otherwise be served as a result. A row that does not
match its checksum, or whose columns do not have the types the schema declares, makes the store
corrupt (MissingEnvironment, exit 3), like a damaged page.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import locks, paths
from fmhactl.errors import MissingEnvironment
from fmhactl.records import RECORD_SCHEMA

SCHEMA_VERSION = 4  # 2: every row carries the record schema_version it was written with; 3: and the command;
#                    4: and the checksum of its content, checked on every read

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
    command      TEXT NOT NULL DEFAULT '',  -- the command line that made the row (evidence for milestones)
    checksum     TEXT NOT NULL DEFAULT ''   -- record_id of the row's content, checked on every read
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
# Columns later schemas added (_migrate), and their declarations.
_ADDED_COLUMNS = {"schema_version": "INTEGER NOT NULL DEFAULT 1", "command": "TEXT NOT NULL DEFAULT ''",
                  "checksum": "TEXT NOT NULL DEFAULT ''"}
MAX_TIME = 253402300799.0  # created_at: 9999-12-31T23:59:59Z, the last second a date can be written for
_TEXT = {"kind", "variant", "arch", "mode", "config_key", "config", "status", "metrics", "source_hash", "gpu",
         "driver", "toolchain", "session", "command", "checksum"}


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
        # Rows read back are checked against their checksum, except in an in-memory store (the
        # status' merge of evidence rows checked on reading): no other process or file can touch it,
        # and re-hashing its ~4,000 reads was a tenth of `status --check`.
        self._verify_reads = not in_memory
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
                self._conn.commit()
                self._migrate()
                self._conn.commit()
            except CorruptRow as exc:
                self._conn.close()
                raise MissingEnvironment(f"results store {self.path}: {exc}; move it aside or set FMHACTL_HOME "
                                         "to another folder") from None
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # text that is not UTF-8: a damaged page
                self._conn.close()
                raise MissingEnvironment(f"results store {self.path} is unusable ({_short(exc)}); move it aside or "
                                         "set FMHACTL_HOME to another folder") from None
            except MissingEnvironment:
                self._conn.close()
                raise

    def _check_existing(self) -> None:
        """Refuse, without writing, a file that is not an intact fmhactl results store of a known
        schema: not SQLite, foreign tables, a results table of other columns or constraints, a
        newer schema version, or pages that fail PRAGMA quick_check."""
        try:
            # a damaged schema row can hold a name as a BLOB (bytes): kept as its repr, never one of ours
            tables = {r[0] if isinstance(r[0], str) else repr(r[0])
                      for r in self._conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            (check,) = self._conn.execute("PRAGMA quick_check").fetchone()
        except sqlite3.DatabaseError as exc:
            raise MissingEnvironment(f"results store {self.path} is not an SQLite database or is corrupt ({exc}); "
                                     "move it aside or set FMHACTL_HOME to another folder") from None
        if check != "ok":
            raise MissingEnvironment(f"results store {self.path} is corrupt (quick_check: {str(check)[:120]}); "
                                     "move it aside or set FMHACTL_HOME to another folder")
        foreign = tables - {"results", "meta", "sqlite_sequence"}
        if foreign:
            raise MissingEnvironment(f"results store {self.path} is an SQLite file but not an fmhactl results "
                                     f"store (tables: {', '.join(sorted(tables))}); refusing to write to it")
        if "results" in tables:
            self._check_columns()
        if "meta" not in tables:
            return  # a fresh file another process is creating right now: the schema script completes it
        row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            return
        try:
            version = int(row[0])
        except (TypeError, ValueError):
            version = -1
        if not 1 <= version <= SCHEMA_VERSION:
            raise MissingEnvironment(f"results store {self.path} has schema version {str(row[0])[:40]}; "
                                     f"this fmhactl reads 1..{SCHEMA_VERSION}")

    def _check_columns(self) -> None:
        """The results table has the columns of _SCHEMA with its types and NOT NULL constraints
        (a table that lost them is not one fmhactl made: its rows cannot be trusted)."""
        declared = {r[1]: (str(r[2]).upper(), bool(r[3]), bool(r[5]))
                    for r in self._conn.execute("PRAGMA table_info(results)")}
        if not _COLUMNS <= set(declared):
            raise MissingEnvironment(f"results store {self.path}: table results lacks columns "
                                     f"{', '.join(sorted(_COLUMNS - set(declared)))}; refusing to write to it")
        for name, (kind, not_null, key) in declared.items():
            want_kind = "INTEGER" if name in ("id", "seed", "schema_version") else "REAL" if name == "created_at" \
                else "TEXT"
            if kind != want_kind or not_null != (name not in ("id", "seed")) or key != (name == "id"):
                raise MissingEnvironment(f"results store {self.path}: column results.{name} is not declared as "
                                         f"fmhactl declares it ({kind or 'no type'}"
                                         f"{' NOT NULL' if not_null else ''}); refusing to use it")

    def _migrate(self) -> None:
        """Add the columns older schemas lack, and the checksum of every row written before rows
        had one (in one transaction with the version bump, so a crash leaves the old schema)."""
        columns = {r[1] for r in self._conn.execute("PRAGMA table_info(results)")}
        if set(_ADDED_COLUMNS) <= columns:
            self._conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version' AND "
                               "CAST(value AS INTEGER) < ?", (str(SCHEMA_VERSION), SCHEMA_VERSION))
            return
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            columns = {r[1] for r in self._conn.execute("PRAGMA table_info(results)")}  # under the write lock
            for column, decl in _ADDED_COLUMNS.items():
                if column not in columns:
                    self._conn.execute(f"ALTER TABLE results ADD COLUMN {column} {decl}")
            rows = self._conn.execute("SELECT * FROM results WHERE checksum = ''").fetchall()
            for r in rows:
                row = _row_from_sql(r, verify=False)
                self._conn.execute("UPDATE results SET checksum = ? WHERE id = ?", (record_id(row), row.id))
            self._conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise

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
        config, metrics = json.dumps(row.config, sort_keys=True), json.dumps(row.metrics, sort_keys=True)
        # The checksum of the row as it will read back (JSON round trip, created_at a REAL).
        stored = dataclasses.replace(row, config=json.loads(config), metrics=json.loads(metrics),
                                     created_at=float(row.created_at))
        with self._conn:
            cur = self._conn.execute(
                "INSERT INTO results(kind, variant, arch, mode, config_key, config, status, metrics,"
                " source_hash, gpu, driver, toolchain, seed, session, created_at, schema_version, command,"
                " checksum) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (row.kind, row.variant, row.arch, row.mode, row.config_key, config, row.status,
                 metrics, row.source_hash, row.gpu, row.driver, row.toolchain, row.seed, row.session,
                 row.created_at, row.schema_version, row.command, record_id(stored)))
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
            return [_row_from_sql(r, verify=self._verify_reads) for r in self._conn.execute(sql, args)]
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            raise MissingEnvironment(f"results store {self.path}: cannot read rows ({_short(exc)}); move it aside "
                                     "or set FMHACTL_HOME to another folder") from None
        except CorruptRow as exc:
            raise MissingEnvironment(f"results store {self.path}: {exc}; move it aside or set FMHACTL_HOME "
                                     "to another folder") from None


def _short(exc: Exception) -> str:
    return str(exc)[:200]


class CorruptRow(Exception):
    """A stored row whose columns are not of their declared types or do not match its checksum."""


def _row_from_sql(r: sqlite3.Row, *, verify: bool = True) -> ResultRow:
    """The row, its columns checked against their declared types and (verify) its checksum."""
    where = f"row {r['id']!r:.20}"
    if not isinstance(r["id"], int):
        raise CorruptRow(f"{where}: id is not an integer")
    for name in _TEXT & set(r.keys()):
        if not isinstance(r[name], str):
            raise CorruptRow(f"{where}: {name} is {type(r[name]).__name__}, not text")
    documents = {}
    for name in ("config", "metrics"):
        try:
            documents[name] = json.loads(r[name])
        except (ValueError, RecursionError):
            raise CorruptRow(f"{where}: {name} is not JSON") from None
        if not isinstance(documents[name], dict):
            raise CorruptRow(f"{where}: {name} is not a JSON object")
    created_at = r["created_at"]
    if isinstance(created_at, bool) or not isinstance(created_at, (int, float)) or not 0 <= created_at <= MAX_TIME:
        raise CorruptRow(f"{where}: created_at is not a date (a number of seconds in 0..{MAX_TIME:.0f})")
    for name in ("seed", "schema_version"):
        if name in r.keys() and not (isinstance(r[name], int) or (name == "seed" and r[name] is None)):
            raise CorruptRow(f"{where}: {name} is {type(r[name]).__name__}, not an integer")
    row = ResultRow(
        id=r["id"], kind=r["kind"], variant=r["variant"], arch=r["arch"], mode=r["mode"],
        status=r["status"], config_key=r["config_key"], config=documents["config"],
        metrics=documents["metrics"], source_hash=r["source_hash"], gpu=r["gpu"],
        driver=r["driver"], toolchain=r["toolchain"], seed=r["seed"], session=r["session"],
        created_at=created_at, schema_version=r["schema_version"], command=r["command"])
    if verify and r["checksum"] != record_id(row):
        raise CorruptRow(f"{where}: its content does not match its checksum (changed on disk)")
    return row


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
