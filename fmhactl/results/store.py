"""The results store: every build, verify, bench and profile outcome, one row each, in SQLite.

Rows are written by the parent process only (never by a kernel worker), each in its own
transaction, so a crash mid-sweep loses nothing already stored.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import paths

SCHEMA_VERSION = 1

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
    created_at   REAL NOT NULL
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

    def to_dict(self) -> dict:
        return {
            "id": self.id, "kind": self.kind, "variant": self.variant, "arch": self.arch,
            "mode": self.mode, "status": self.status, "config_key": self.config_key,
            "config": self.config, "metrics": self.metrics, "source_hash": self.source_hash,
            "gpu": self.gpu, "driver": self.driver, "toolchain": self.toolchain,
            "seed": self.seed, "session": self.session, "created_at": self.created_at,
        }


def new_session_id() -> str:
    return time.strftime("%Y%m%dT%H%M%S") + f"-{time.time_ns() % 1_000_000:06d}"


class ResultStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.results_db_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=30.0)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(_SCHEMA)
        self._conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                           (str(SCHEMA_VERSION),))
        self._conn.commit()

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> "ResultStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, row: ResultRow) -> int:
        row.created_at = row.created_at or time.time()
        with self._conn:
            cur = self._conn.execute(
                "INSERT INTO results(kind, variant, arch, mode, config_key, config, status, metrics,"
                " source_hash, gpu, driver, toolchain, seed, session, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (row.kind, row.variant, row.arch, row.mode, row.config_key,
                 json.dumps(row.config, sort_keys=True), row.status,
                 json.dumps(row.metrics, sort_keys=True), row.source_hash, row.gpu, row.driver,
                 row.toolchain, row.seed, row.session, row.created_at))
        row.id = int(cur.lastrowid or 0)
        return row.id

    def query(self, *, kind: str | None = None, variant: str | None = None,
              mode: str | None = None, status: str | None = None, arch: str | None = None,
              session: str | None = None, config_key: str | None = None,
              limit: int | None = None, newest_first: bool = True) -> list[ResultRow]:
        clauses, args = [], []
        for column, value in (("kind", kind), ("variant", variant), ("mode", mode),
                              ("status", status), ("arch", arch), ("session", session),
                              ("config_key", config_key)):
            if value is not None:
                clauses.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT * FROM results"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY id " + ("DESC" if newest_first else "ASC")
        if limit:
            sql += " LIMIT ?"
            args.append(limit)
        return [_row_from_sql(r) for r in self._conn.execute(sql, args)]


def _row_from_sql(r: sqlite3.Row) -> ResultRow:
    return ResultRow(
        id=r["id"], kind=r["kind"], variant=r["variant"], arch=r["arch"], mode=r["mode"],
        status=r["status"], config_key=r["config_key"], config=json.loads(r["config"]),
        metrics=json.loads(r["metrics"]), source_hash=r["source_hash"], gpu=r["gpu"],
        driver=r["driver"], toolchain=r["toolchain"], seed=r["seed"], session=r["session"],
        created_at=r["created_at"])
