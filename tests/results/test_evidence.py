"""Evidence files: export -> import round trip, idempotent import, corrupt or foreign lines refused
naming file:line, record ids independent of DB row ids."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fmhactl.build.hashing import source_hash
from fmhactl.errors import BadInput
from fmhactl.registry import load_registry
from fmhactl.results.evidence import (EVIDENCE_FILE, import_rows, read_evidence, read_file, record_id,
                                      to_record, write_records)
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.verify.grids import load_grid


@pytest.fixture
def committed(empty_evidence):
    """The checkout's evidence/ folder, empty, in a temp dir."""
    return empty_evidence


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _m0_rows(status: str = "PASS") -> list[ResultRow]:
    ref_hash = source_hash(load_registry()["ref"].source_path)
    keys = {c.key: c for grid in ("seeds72", "awkward") for c in load_grid(grid).configs}
    return [ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status=status, config_key=key,
                      config=cfg.to_dict(), metrics={"max_abs_err": 1e-3, "cosine": 0.99999, "lse_max_err": 1e-6},
                      source_hash=ref_hash, gpu="NVIDIA H100 80GB HBM3", driver="580.159.04", toolchain="nvrtc 13.0",
                      seed=23 + i, session="s1", command="fmhactl scenario run proof-m0", created_at=1_790_000_000.0 + i)
            for i, (key, cfg) in enumerate(sorted(keys.items()))]


def _export(runner, out=None):
    from fmhactl.cli.app import app

    args = ["results", "export"] + (["--out", str(out)] if out else [])
    return runner.invoke(app, args)


def test_record_id_is_a_content_hash_not_the_db_id(tmp_path):
    row = _m0_rows()[0]
    with ResultStore(tmp_path / "a.sqlite") as a, ResultStore(tmp_path / "b.sqlite") as b:
        a.add(ResultRow(kind="build", variant="ref", arch="sm_80", mode="compile-only", status="OK"))
        a.add(ResultRow(**{**row.__dict__}), as_recorded=True)
        b.add(ResultRow(**{**row.__dict__}), as_recorded=True)
        got_a, got_b = a.query(kind="verify")[0], b.query(kind="verify")[0]
    assert got_a.id != got_b.id and record_id(got_a) == record_id(got_b) == record_id(row)
    assert record_id(ResultRow(**{**row.__dict__, "status": "FAIL"})) != record_id(row)


def test_the_store_records_the_command_line(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.argv", ["/x/bin/fmhactl", "verify", "ref", "--grid", "smoke"])
    with ResultStore(tmp_path / "r.sqlite") as store:
        store.add(ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="PASS"))
        assert store.query()[0].command == "fmhactl verify ref --grid smoke"


def test_export_import_round_trip_is_idempotent(tmp_path, committed, home):
    rows = _m0_rows()
    with ResultStore() as store:
        for row in rows:
            store.add(row, as_recorded=True)
        store.add(ResultRow(kind="verify", variant="sm100_tma_s2_tmem_ex2", arch="sm_90a", mode="emulated", status="PASS",
                            config_key="not-a-milestone-row"))
    runner = CliRunner()
    exported = _export(runner)
    assert exported.exit_code == 0, exported.output
    path = committed / EVIDENCE_FILE
    lines = path.read_text().splitlines()
    assert len(lines) == len(rows)  # only the rows the milestones read
    first = json.loads(lines[0])
    assert first["type"] == "fmhactl-evidence" and first["schema_version"] == 1
    for field in ("source_hash", "gpu", "driver", "command", "date", "record"):
        assert first[field], field
    assert first["date"].endswith("Z") and first["command"] == "fmhactl scenario run proof-m0"
    before = path.read_bytes()
    assert _export(runner).exit_code == 0 and path.read_bytes() == before  # byte-identical re-export

    # a fresh store (a fresh clone) imports them; importing again adds nothing
    from fmhactl.cli.app import app

    fresh = tmp_path / "fresh"
    env = {"FMHACTL_HOME": str(fresh)}
    first_import = runner.invoke(app, ["results", "import", str(path), "--json"], env=env)
    assert first_import.exit_code == 0, first_import.output
    assert json.loads(first_import.stdout)["added"] == len(rows)
    again = runner.invoke(app, ["results", "import", str(committed), "--json"], env=env)
    assert json.loads(again.stdout)["added"] == 0 and json.loads(again.stdout)["already_present"] == len(rows)
    with ResultStore(fresh / "results.sqlite") as store:
        back = store.query(newest_first=False)
    assert sorted(record_id(r) for r in back) == sorted(record_id(r) for r in rows)
    assert {r.command for r in back} == {"fmhactl scenario run proof-m0"}


def test_a_newer_failing_row_replaces_the_exported_pass_and_keeps_it_as_the_regression(committed, home):
    rows = _m0_rows()
    with ResultStore() as store:
        for row in rows:
            store.add(row, as_recorded=True)
        fail = ResultRow(**{**rows[3].__dict__, "status": "FAIL", "created_at": 1_800_000_000.0,
                            "metrics": {"max_abs_err": 0.5, "reasons": ["max|out-ref| 5.0e-01 > tolerance"]}})
        store.add(fail, as_recorded=True)
    assert _export(CliRunner()).exit_code == 0
    ids = {record_id(r) for r in read_evidence(committed)}
    assert record_id(fail) in ids and record_id(rows[3]) in ids and len(ids) == len(rows) + 1


@pytest.mark.parametrize("line, rule", [
    ("{not json", "not JSON"),
    ('{"type": "something-else"}', "not an fmhactl evidence record"),
    ('[1, 2]', "not an fmhactl evidence record"),
    ('{"type": "fmhactl-evidence", "schema_version": 9}', "evidence schema_version 9; this fmhactl reads 1"),
    ('{"type": "fmhactl-evidence", "schema_version": 1}', "record: Field required"),
])
def test_corrupt_or_foreign_lines_are_refused_naming_file_and_line(tmp_path, line, rule):
    good = json.dumps(to_record(_m0_rows()[0]))
    path = tmp_path / "e.jsonl"
    path.write_text(good + "\n\n" + line + "\n")
    with pytest.raises(BadInput) as info:
        read_file(path)
    assert str(info.value).startswith(f"{path}:3: ") and rule in str(info.value)


def test_a_hand_edited_record_no_longer_matches_its_id(tmp_path):
    record = to_record(_m0_rows()[0])
    record["status"] = "PASS" if record["status"] != "PASS" else "FAIL"
    path = tmp_path / "e.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(BadInput, match=r"e.jsonl:1: record [0-9a-f]{16} does not match its content"):
        read_file(path)


def test_import_refuses_bad_evidence_with_exit_2_and_imports_nothing(tmp_path, home):
    from fmhactl.cli.app import app

    good = tmp_path / "a.jsonl"
    write_records(_m0_rows()[:3], tmp_path / "out")
    good.write_text((tmp_path / "out" / EVIDENCE_FILE).read_text())
    bad = tmp_path / "b.jsonl"
    bad.write_bytes(b"\xff\xfe binary\n")
    result = CliRunner().invoke(app, ["results", "import", str(good), str(bad)])
    assert result.exit_code == 2
    assert f"{bad}:1: not UTF-8 text" in result.output and "Traceback" not in result.output
    missing = CliRunner().invoke(app, ["results", "import", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "no such file or folder" in missing.output
    with ResultStore() as store:
        assert store.query() == []


def test_import_rows_skips_what_the_store_has(tmp_path):
    rows = _m0_rows()[:4]
    with ResultStore(tmp_path / "r.sqlite") as store:
        assert import_rows(rows, store) == (4, 0)
        assert import_rows(rows + rows, store) == (0, 8)
