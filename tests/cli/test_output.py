"""Output fit for pipes, JSON with a schema version, and a --help that imports nothing heavy."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from fmhactl.cli.app import app


def test_tables_are_tsv_when_stdout_is_not_a_terminal():
    result = CliRunner().invoke(app, ["list"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == ["variant", "archs", "emulated on", "dtypes", "head dims", "indexing", "features",
                                     "description"]
    rows = [line.split("\t") for line in lines[1:]]
    assert all(len(r) == 8 for r in rows) and any(r[0] == "ref" for r in rows)
    assert "│" not in result.stdout and "━" not in result.stdout  # no box drawing, nothing wrapped


def test_scenario_list_and_results_are_tsv_too():
    listed = CliRunner().invoke(app, ["scenario", "list"])
    assert listed.stdout.splitlines()[0] == "scenario\tsteps\tneeds GPU\tdescription"
    results = CliRunner().invoke(app, ["results", "--limit", "3"])
    assert results.stdout.splitlines()[0].startswith("id\twhen\tkind\tvariant")


def test_json_outputs_carry_the_schema_version():
    from fmhactl.records import RECORD_SCHEMA

    listed = json.loads(CliRunner().invoke(app, ["list", "--json"]).stdout)
    assert listed and all(v["schema_version"] == RECORD_SCHEMA for v in listed)
    scenarios = json.loads(CliRunner().invoke(app, ["scenario", "list", "--json"]).stdout)
    assert all(s["schema_version"] == RECORD_SCHEMA for s in scenarios)


def test_help_imports_no_heavy_module():
    code = ("import sys\nsys.argv = ['fmhactl', '--help']\nfrom fmhactl.cli.app import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "heavy = ('torch', 'rich', 'pydantic', 'matplotlib', 'textual', 'cuda', 'numpy')\n"
            "print('HEAVY', sorted(m for m in heavy if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "HEAVY []" in proc.stdout, proc.stdout[-500:] + proc.stderr[-500:]
    assert "Exit codes: 0 success" in proc.stdout


def test_results_says_on_stderr_when_the_limit_cuts_the_list(tmp_path, monkeypatch):
    from fmhactl.results.store import ResultRow, ResultStore

    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path))
    with ResultStore() as store:
        for i in range(4):
            store.add(ResultRow(kind="build", variant="ref", arch="sm_90a", mode="compile-only", status="OK",
                                config_key=f"k{i}"))
    for args in (["results", "--limit", "3"], ["results", "--limit", "3", "--json"]):
        cut = CliRunner().invoke(app, args)
        assert cut.exit_code == 0
        assert "showing the newest 3 rows" in cut.stderr and "--limit 0 for all" in cut.stderr
        assert "showing" not in cut.stdout
    json.loads(CliRunner().invoke(app, ["results", "--limit", "3", "--json"]).stdout)  # stdout stays JSON
    whole = CliRunner().invoke(app, ["results", "--limit", "0"])
    assert whole.exit_code == 0 and "showing" not in whole.stderr and len(whole.stdout.splitlines()) == 5


def test_list_prints_head_dims_unambiguously():
    lines = CliRunner().invoke(app, ["list"]).stdout.splitlines()
    rows = {r.split("\t")[0]: r.split("\t") for r in lines[1:]}
    assert rows["ref"][4] == "multiples of 8 up to 512"
    assert rows["sm90_persistent"][4] == "64,128"
    assert not any("k.." in r[4] for r in rows.values())


def test_list_shows_each_variants_indexing():
    lines = CliRunner().invoke(app, ["list"]).stdout.splitlines()
    rows = {r.split("\t")[0]: r.split("\t") for r in lines[1:]}
    assert rows["sm90_mqa_decode"][5] == "64-bit" and rows["sm90_persistent"][5] == "64-bit"
    assert rows["sm100_tma_s2_tmem"][5] == "32-bit"
    listed = {v["name"]: v for v in json.loads(CliRunner().invoke(app, ["list", "--json"]).stdout)}
    assert listed["ref"]["index64"] is True and listed["sm100_direct_tmem"]["index64"] is False
