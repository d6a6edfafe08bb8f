"""Corruption fuzz of the results store (FMHACTL_HOME/results.sqlite).

A valid store is made by the product (evidence imported, rows added), then damaged: bytes flipped,
cut or appended, rows and tables tampered with through SQLite (values of another type, JSON
columns that are not objects, constraints gone, meta rows edited), or the file replaced by a
folder or a symlink loop. Whatever the damage, the readers (`results`, `status`, `results
export`, `results import`) either work on what is there or refuse with exit 3 in one
`fmhactl: error:` line; a refused store is never written to.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")
from hypothesis import given, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402
from fmhactl.results.evidence import read_file, record_id, to_record  # noqa: E402
from fmhactl.results.store import ResultRow, ResultStore  # noqa: E402
from tests.corruption import (FS_OPS, Artifact, SQL_SAFE_VALUES, assert_clean_outcome, damage_path,  # noqa: E402
                              fuzz_settings, mutate_bytes, mutate_tree)

REPO = Path(__file__).resolve().parents[2]
DB = "results.sqlite"
COLUMNS = ("kind", "variant", "arch", "mode", "config_key", "config", "status", "metrics", "source_hash", "gpu",
           "driver", "toolchain", "seed", "session", "created_at", "schema_version", "command", "checksum")


def sample_evidence(folder: Path, count: int = 14) -> Path:
    """A few real records of the checkout's evidence: one of every (kind, mode), then some more."""
    picked: dict[tuple, str] = {}
    extra: list[str] = []
    with open(REPO / "evidence" / "records.jsonl", encoding="utf-8") as handle:
        for line in handle:
            data = json.loads(line)
            key = (data["kind"], data["mode"], data["status"])
            if key not in picked:
                picked[key] = line
            elif len(extra) < count:
                extra.append(line)
    path = folder / "sample.jsonl"
    path.write_text("".join([*picked.values(), *extra]), encoding="utf-8")
    return path


def _local_rows() -> list[ResultRow]:
    """Rows of the kinds the evidence lacks (run, dump, failures), as the commands store them."""
    return [
        ResultRow("run", "ref", "sm_90a", "native", "OK", "b1h1-t8s8-d64-bf16", {"batch": 1},
                  {"elapsed_ms": 0.1, "unwritten": 0}, session="s1"),
        ResultRow("dump", "sm100_tma_tmem", "sm_90a", "emulated", "FAIL", "b1h1-t128s128-d64-bf16", {},
                  {"elements": 10, "mismatches": 2, "window": [["1", "2"]], "rows_with_errors": [3]}, session="s1"),
        ResultRow("verify", "ref", "sm_90a", "native", "FAIL", "b1h1-t8s8-d64-bf16", {"batch": 1},
                  {"max_abs_err": 1.0, "max_err_at": [0, 0, 1, 2], "reasons": ["too big"]}, seed=7, session="s2"),
        ResultRow("build", "ref", "sm_80", "compile-only", "ERROR", "", {}, {"error": "compile failed:\nx"}),
    ]


@pytest.fixture(scope="module")
def valid_home(tmp_path_factory) -> Artifact:
    """A home holding a valid store (.home), the evidence sample in it (.evidence), its bytes (.db)."""
    from fmhactl.services.results import import_evidence

    home = tmp_path_factory.mktemp("valid-home")
    evidence = sample_evidence(tmp_path_factory.mktemp("evidence"))
    with ResultStore(home / DB) as store:
        import_evidence([evidence], store=store)
        for row in _local_rows():
            store.add(row)
    return Artifact("results store", home=home, evidence=evidence, db=(home / DB).read_bytes())


def _fresh_home(valid: bytes) -> Path:
    home = Path(tempfile.mkdtemp(prefix="fmhactl-fuzz-home-"))
    (home / DB).write_bytes(valid)
    return home


def _sql_value(value):
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return value


def _tamper(data: st.DataObject, db: Path) -> str:
    """One edit of the store through SQLite itself (the file stays a well-formed database)."""
    op = data.draw(st.sampled_from(["set", "json", "null", "delete", "duplicate", "meta", "drop", "extra_table",
                                    "blob"]), label="sql op")
    conn = sqlite3.connect(db)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM results")]
        row = data.draw(st.sampled_from(ids), label="row")
        column = data.draw(st.sampled_from(COLUMNS), label="column")
        if op == "set":
            value = data.draw(st.sampled_from(SQL_SAFE_VALUES), label="value")
            try:
                conn.execute(f"UPDATE results SET {column} = ? WHERE id = ?", (_sql_value(value), row))
            except sqlite3.IntegrityError:
                return "no-op (constraint)"
            what = f"results[{row}].{column} = {value!r:.50}"
        elif op == "json":
            column = data.draw(st.sampled_from(["config", "metrics"]))
            text = data.draw(st.sampled_from(["[1, 2]", "5", "null", '"text"', "{", "", "NaN", '{"a": NaN}',
                                              '{"max_err_at": ["x"]}', '{"kernels": 5}', '{"top_stalls": [1]}',
                                              '{"summary": {"top_stalls": [[1, 2, 3]]}}', '{"baselines": []}',
                                              '{"kernel": {"median_ms": "x"}}', '{"rows_with_errors": 7}',
                                              '{"emulation": ["strict"]}', "[" * 5000]), label="json")
            conn.execute(f"UPDATE results SET {column} = ? WHERE id = ?", (text, row))
            what = f"results[{row}].{column} = {text[:40]!r}"
        elif op == "null":
            # a store whose table lost its NOT NULL constraints, then a NULL where text belongs
            conn.executescript("CREATE TABLE t2 AS SELECT * FROM results; DROP TABLE results; "
                               "ALTER TABLE t2 RENAME TO results;")
            conn.execute(f"UPDATE results SET {column} = NULL WHERE id = ?", (row,))
            what = f"constraints dropped; results[{row}].{column} = NULL"
        elif op == "blob":
            blob = data.draw(st.binary(max_size=20), label="blob")
            conn.execute(f"UPDATE results SET {column} = ? WHERE id = ?", (blob, row))
            what = f"results[{row}].{column} = {blob!r}"
        elif op == "delete":
            conn.execute("DELETE FROM results WHERE id = ?", (row,))
            what = f"delete row {row}"
        elif op == "duplicate":
            cols = ", ".join(COLUMNS)
            conn.execute(f"INSERT INTO results({cols}) SELECT {cols} FROM results WHERE id = ?", (row,))
            what = f"duplicate row {row}"
        elif op == "meta":
            value = data.draw(st.sampled_from(["0", "-1", "99", "x", "", "3", "2"]), label="version")
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (value,))
            what = f"meta schema_version = {value!r}"
        elif op == "drop":
            target = data.draw(st.sampled_from(["meta", "results", "results_by_variant", "results_by_session"]))
            kind = "INDEX" if target.startswith("results_by") else "TABLE"
            conn.execute(f"DROP {kind} {target}")
            what = f"drop {target}"
        else:
            conn.execute("CREATE TABLE notes (x TEXT)")
            what = "extra table"
        conn.commit()
        return what
    finally:
        conn.close()


READERS = {
    "list": ["results", "--limit", "0"],
    "list-json": ["results", "--limit", "0", "--json"],
    "list-verify": ["results", "--kind", "verify", "--status", "pass"],
    "status": ["status", "--with-local", "--json"],
    "export": ["results", "export"],
    "import": ["results", "import"],
}


def _run(home: Path, reader: str, evidence: Path, work: Path) -> object:
    args = list(READERS[reader])
    empty = work / "no-evidence"
    empty.mkdir(parents=True, exist_ok=True)
    if reader == "status":
        args += ["--out", str(work / "status"), "--evidence", str(empty)]
    elif reader == "export":
        args += ["--out", str(work / "export"), "--evidence", str(empty)]
    elif reader == "import":
        args += [str(evidence)]
    return CliRunner().invoke(app, args, env={"FMHACTL_HOME": str(home), "FMHACTL_ASSUME_NO_GPU": "1"})


def _snapshot(home: Path) -> bytes | None:
    db = home / DB
    return db.read_bytes() if db.is_file() else None


@fuzz_settings(60)
@given(data=st.data())
def test_damaged_store_is_read_or_refused(valid_home, data):
    evidence, valid = valid_home.evidence, valid_home.db
    home = _fresh_home(valid)
    try:
        kind = data.draw(st.sampled_from(["bytes", "sql", "fs"]), label="damage")
        if kind == "bytes":
            what, damaged = mutate_bytes(data, valid)
            (home / DB).write_bytes(damaged)
        elif kind == "sql":
            what = _tamper(data, home / DB)
        else:
            target = data.draw(st.sampled_from([DB, DB + ".lock", DB + "-wal"]), label="where")
            what = damage_path(data.draw(st.sampled_from(FS_OPS[:3]), label="fs op"), home / target)
        reader = data.draw(st.sampled_from(sorted(READERS)), label="reader")
        before = _snapshot(home)
        result = _run(home, reader, evidence, home / "work")
        assert_clean_outcome(result, (0, 3), f"{what}; {reader}", reader)
        if result.exit_code == 3:
            assert _snapshot(home) == before, f"{what}; {reader}: a refused store was written to"
        elif reader == "import":
            _check_import_kept_everything(home, evidence, what)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _check_import_kept_everything(home: Path, evidence: Path, what: str) -> None:
    """After an import into a store that was accepted: every evidence record is there."""
    with ResultStore(home / DB) as store:
        ids = {record_id(r) for r in store.query()}
    assert {record_id(r) for r in read_file(evidence)} <= ids, what


def test_the_valid_store_reads_back_every_row(valid_home):
    home, evidence = valid_home.home, valid_home.evidence
    with ResultStore(home / DB) as store:
        rows = store.query()
    assert {record_id(r) for r in read_file(evidence)} <= {record_id(r) for r in rows}
    assert all(to_record(r)["record"] == record_id(r) for r in rows)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                                       max_size=4),
                           max_leaves=12)


@fuzz_settings(300)
@given(data=st.data())
def test_typed_metrics_read_any_json_a_row_may_hold(valid_home, data):
    """records.py is the one reader of a row's metrics (status, tables, plots): whatever JSON object
    an evidence record or a row holds, the typed view is made, never an exception."""
    from fmhactl.records import _BY_KIND, metrics_of, summary_text

    rows = [*read_file(valid_home.evidence), *_local_rows()]
    metrics = data.draw(st.sampled_from(rows), label="row").metrics
    for _ in range(data.draw(st.integers(1, 3), label="damages")):
        _, metrics = mutate_tree(data, metrics, json_values)
    if not isinstance(metrics, dict):
        metrics = {"value": metrics}
    for kind in [*_BY_KIND, "torch", ""]:
        metrics_of(kind, metrics)
        assert isinstance(summary_text(kind, metrics), str)


# ---- regressions: each failed before the fix it names -----------------------------------------

def _store_with_rows(home: Path, count: int = 30) -> Path:
    with ResultStore(home / DB) as store:
        for i in range(count):
            store.add(ResultRow("verify", "ref", "sm_90a", "native", "PASS", f"b1h1-t{i + 1}s8-d64-bf16",
                                {"batch": 1}, {"max_abs_err": 0.125, "note": "x" * 200}, session="s"))
    return home / DB


def _results(home: Path, *args: str):
    return CliRunner().invoke(app, ["results", "--limit", "0", *args], env={"FMHACTL_HOME": str(home)})


def test_a_value_changed_on_disk_is_detected_not_served(tmp_path):
    """A flipped digit inside a stored value leaves a well-formed SQLite file (quick_check: ok); it
    was served as a result (0.125 read as 0.925). Each row's checksum now catches it: exit 3."""
    db = _store_with_rows(tmp_path)
    blob = db.read_bytes()
    assert blob.count(b'"max_abs_err": 0.125') == 30
    damaged = blob.replace(b'"max_abs_err": 0.125', b'"max_abs_err": 0.925', 1)
    db.write_bytes(damaged)
    assert sqlite3.connect(db).execute("PRAGMA quick_check").fetchone()[0] == "ok"
    result = _results(tmp_path, "--json")
    assert_clean_outcome(result, (3,), "a digit flipped")
    assert result.exit_code == 3 and "checksum" in result.stderr and str(db) in result.stderr
    assert "0.925" not in result.stdout
    assert db.read_bytes() == damaged


def test_a_results_table_without_its_constraints_is_refused_untouched(tmp_path):
    """A results table rebuilt without NOT NULL (a NULL kind in it) was served as rows with
    kind None, and the store was written to (indexes made again)."""
    db = _store_with_rows(tmp_path, 3)
    with sqlite3.connect(db) as conn:
        conn.executescript("CREATE TABLE t2 AS SELECT * FROM results; DROP TABLE results; "
                           "ALTER TABLE t2 RENAME TO results; UPDATE results SET kind = NULL WHERE id = 2;")
    before = db.read_bytes()
    result = _results(tmp_path)
    assert result.exit_code == 3 and "not declared as fmhactl declares it" in result.stderr, result.stderr
    assert db.read_bytes() == before


def test_a_shifted_page_is_refused_before_anything_is_written(tmp_path):
    """A byte inserted at a page start shifts every page after it. With its schema_version row
    moved off, a store skipped PRAGMA quick_check and was written to (the meta row inserted again)
    before it failed reading rows. quick_check now always runs first: exit 3, the file untouched."""
    db = _store_with_rows(tmp_path)
    valid = db.read_bytes()
    page = int.from_bytes(valid[16:18], "big")
    for k in range(1, len(valid) // page):
        home = tmp_path / f"home{k}"
        home.mkdir()
        damaged = valid[:k * page + 1] + b"\0" + valid[k * page + 1:]
        (home / DB).write_bytes(damaged)
        result = _results(home)
        assert_clean_outcome(result, (3,), f"a byte inserted in page {k + 1}")
        assert (home / DB).read_bytes() == damaged, f"page {k + 1}: a refused store was written to"


def test_a_table_name_stored_as_a_blob_is_refused_in_one_line(tmp_path):
    """One flipped byte of a schema row's type left a table's name a BLOB in sqlite_master while
    PRAGMA quick_check still said ok (the CI fuzz, session 27): sorting the names for the message
    compared bytes with str, an internal error (exit 1). Now exit 3, one line naming the store."""
    db = _store_with_rows(tmp_path, 3)
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE extra(x)")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA writable_schema=ON")
        conn.execute("UPDATE sqlite_master SET name = CAST(name AS BLOB) WHERE name = 'extra'")
    before = db.read_bytes()
    result = _results(tmp_path)
    assert_clean_outcome(result, (3,), "a table name stored as a BLOB")
    assert "not an fmhactl results store" in result.stderr and str(db) in result.stderr, result.stderr
    assert db.read_bytes() == before


def test_schema_text_that_is_not_utf8_is_a_corrupt_store(tmp_path):
    """A byte of the results table's declaration (sqlite_master) turned into 0x80 raised
    UnicodeDecodeError from PRAGMA table_info: an internal error, exit 1. Now exit 3, one line."""
    db = _store_with_rows(tmp_path, 3)
    blob = bytearray(db.read_bytes())
    arch = blob.index(b"arch ", blob.index(b"CREATE TABLE results"))
    blob[blob.index(b"NOT NULL", arch) + 7] = 0x80  # arch TEXT NOT NUL\x80: a name PRAGMA table_info decodes
    db.write_bytes(bytes(blob))
    result = _results(tmp_path)
    assert_clean_outcome(result, (3,), "schema text not UTF-8")
    assert str(db) in result.stderr and db.read_bytes() == bytes(blob)


def test_a_store_of_the_previous_schema_gets_checksums_and_reads_back(tmp_path):
    """Schema 3 stores (no checksum column) are migrated: every row gets its checksum, nothing lost."""
    from fmhactl.results.store import _SCHEMA, SCHEMA_VERSION

    db = tmp_path / DB
    old_schema = re.sub(r"DEFAULT '',(\s*--[^\n]*)\n\s*checksum[^\n]*", r"DEFAULT ''\1", _SCHEMA)
    assert "checksum" not in old_schema
    rows = _local_rows()
    with sqlite3.connect(db) as conn:
        conn.executescript(old_schema)
        conn.execute("INSERT INTO meta VALUES ('schema_version', '3')")
        for row in rows:
            conn.execute("INSERT INTO results(kind, variant, arch, mode, config_key, config, status, metrics, "
                         "source_hash, gpu, driver, toolchain, seed, session, created_at, schema_version, command) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                         (row.kind, row.variant, row.arch, row.mode, row.config_key, json.dumps(row.config),
                          row.status, json.dumps(row.metrics), "", "", "", "", row.seed, row.session, 1.5e9, 1, ""))
    with ResultStore(db) as store:
        read = store.query(newest_first=False)
    assert [(r.kind, r.variant, r.metrics) for r in read] == [(r.kind, r.variant, r.metrics) for r in rows]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT value FROM meta").fetchone()[0] == str(SCHEMA_VERSION)
        assert all(len(c) == 16 for (c,) in conn.execute("SELECT checksum FROM results"))


def test_typed_metrics_of_odd_lists_and_huge_numbers():
    """max_err_at ["x"], kernels 5, top_stalls [[1, 2, 3]], 10**400 raised ValueError, TypeError or
    OverflowError in records.py, so `status` over such an evidence record was an internal error."""
    from fmhactl.records import BuildMetrics, DumpMetrics, ProfileMetrics, VerifyMetrics

    assert VerifyMetrics.from_dict({"max_err_at": ["x", None, [1], 2], "max_abs_err": 10**400}).max_err_at_bhtd == (2,)
    assert BuildMetrics.from_dict({"kernels": 5}).kernels == ()
    assert ProfileMetrics.from_dict({"summary": {"top_stalls": [[1, 2, 3], 7, ["a", 0.5]]}}).summary.top_stalls == \
        (("a", 0.5),)
    assert DumpMetrics.from_dict({"rows_with_errors": 7}).rows_with_errors == ()
