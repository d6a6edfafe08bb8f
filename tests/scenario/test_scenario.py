"""The scenario runner on CPU: the `cpu` scenario end to end, step outcomes, JUnit XML, CLI exits."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from typer.testing import CliRunner

from fmhactl.errors import BadInput
from fmhactl.results.store import ResultStore
from fmhactl.scenario.junit import junit_xml
from fmhactl.scenario.model import available_scenarios, load_scenario
from fmhactl.services.scenario import run_scenario

NO_GPU = (None, "no GPU in this test")


@pytest.fixture
def store(tmp_path):
    with ResultStore(tmp_path / "results.sqlite") as s:
        yield s


def _write(tmp_path, body: str, name: str = "t.toml"):
    path = tmp_path / name
    path.write_text(body)
    return path


def test_shipped_scenarios_parse():
    names = available_scenarios()
    assert {"cpu", "gpu-smoke"} <= set(names) and "milestones" not in names
    smoke = load_scenario("gpu-smoke")
    assert [s.type for s in smoke.steps] == ["build", "verify", "bench", "profile"]
    assert all(s.needs_gpu for s in smoke.steps)
    bench = smoke.steps[2]
    assert bench.options["baseline"] == "cudnn" and bench.options["min_ratio"] > 0


@pytest.mark.slow
def test_cpu_scenario_runs_and_records_builds(store):
    """What CI runs: the CPU scenario; builds for sm_90a and sm_100a land in the store."""
    result = run_scenario(load_scenario("cpu"), store=store, gpu=NO_GPU)
    by_type = {}
    for step in result.steps:
        by_type.setdefault(step.type, []).append(step)
    assert result.ok, [s.to_dict() for s in result.steps]
    assert [s.status for s in by_type["build"]] == ["PASS", "PASS"]
    assert by_type["verify"][0].status == "SKIPPED" and "needs a GPU" in by_type["verify"][0].message
    builds = store.query(kind="build", variant="ref", status="OK")
    assert {r.arch for r in builds} == {"sm_90a", "sm_100a"}
    assert all(r.mode == "compile-only" for r in builds)


def test_command_steps_check_exit_code_and_text(tmp_path, store):
    path = _write(tmp_path, """
name = "t"
[[step]]
name = "finds ref"
type = "fmhactl"
args = ["list", "--json"]
expect_text = ['"name": "ref"']
[[step]]
name = "wrong text"
type = "fmhactl"
args = ["list", "--json"]
expect_text = "no such variant anywhere"
[[step]]
name = "bad input exits 2"
type = "fmhactl"
args = ["profile", "ref", "--shape", "d=63"]
expect_exit = 2
[[step]]
name = "needs a missing group"
type = "fmhactl"
args = ["nonexistent-group", "x"]
requires_command = "nonexistent-group"
""")
    result = run_scenario(load_scenario(str(path)), store=store, gpu=NO_GPU)
    assert [s.status for s in result.steps] == ["PASS", "FAIL", "PASS", "SKIPPED"]
    assert "lacks" in result.steps[1].message
    assert not result.ok


def test_gpu_steps_skip(tmp_path, store):
    path = _write(tmp_path, """
[[step]]
type = "profile"
variant = "ref"
shape = "d=64"
""")
    result = run_scenario(load_scenario(str(path)), store=store, gpu=NO_GPU)
    assert [s.status for s in result.steps] == ["SKIPPED"]


@pytest.mark.parametrize("step, message", [
    ('type = "build"\nvariants = ["no_such_variant"]', "unknown variant 'no_such_variant'"),
    ('type = "verify"\nvariants = ["ref"]\ngrid = "no_such_grid"', "unknown grid 'no_such_grid'"),
    ('type = "profile"\nvariant = "ref"\nshape = "d=64"\nrecipe = "nope"', "unknown profile recipe"),
    ('type = "verify"\nvariants = ["ref"]\nshapes = ["d=64"]\ngpu = "false"', "step[0].gpu: Input should be a valid boolean"),
    ('type = "bench"\nvariant = "ref"\nshapes = ["d=64,hkv=0"]', "heads_kv must be a positive integer"),
    ('type = "verify"\nvariants = ["ref"]\nshapes = ["d=64"]\ntimeout_s = 0', "greater than 0"),
    ('type = "verify"\nvariants = ["ref"]\nshapes = ["d=64"]\nspeed = 3', "step[0].speed: unknown field"),
])
def test_broken_steps_are_refused_at_load_never_skipped(tmp_path, step, message):
    """A GPU step naming something that does not exist must not become SKIPPED on a CPU machine."""
    path = _write(tmp_path, f"[[step]]\n{step}\n")
    with pytest.raises(BadInput, match=re.escape(message)):
        load_scenario(str(path))


def test_junit_xml_reports_every_step(tmp_path, store):
    path = _write(tmp_path, """
name = "mixed"
[[step]]
name = "ok"
type = "fmhactl"
args = ["list"]
[[step]]
name = "fails"
type = "fmhactl"
args = ["list"]
expect_exit = 5
[[step]]
name = "gpu"
type = "verify"
variants = ["ref"]
shapes = ["d=64"]
[[step]]
name = "broken"
type = "fmhactl"
args = ["list"]
timeout_s = 0.001
""")
    result = run_scenario(load_scenario(str(path)), store=store, gpu=NO_GPU)
    root = ET.fromstring(junit_xml(result))
    suite = root.find("testsuite")
    assert suite.get("name") == "fmhactl.scenario.mixed"
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "2", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["01 ok", "02 fails", "03 gpu", "04 broken"]
    assert cases[0].find("failure") is None and cases[0].find("skipped") is None
    assert "expected 5" in cases[1].find("failure").get("message")
    assert cases[2].find("skipped") is not None
    assert "timed out" in cases[3].find("failure").get("message")


@pytest.mark.parametrize("body, message", [
    ("", "at least one"),
    ('[[step]]\ntype = "dance"\n', "type must be one of"),
    ('[[step]]\ntype = "verify"\nvariants = ["ref"]\n', "exactly one of grid or shapes"),
    ('[[step]]\ntype = "bench"\nvariant = "ref"\n', "needs 'shapes'"),
    ('[[step]]\ntype = "fmhactl"\nargs = "list"\n', "valid list"),
    ('[[step]\n', "malformed"),
])
def test_malformed_scenarios_are_bad_input(tmp_path, body, message):
    with pytest.raises(BadInput, match=message):
        load_scenario(str(_write(tmp_path, body)))


def test_cli_run_writes_junit_and_json_and_exits_1_on_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FMHACTL_ASSUME_NO_GPU", "1")
    from fmhactl.cli.app import app

    path = _write(tmp_path, '[[step]]\ntype = "fmhactl"\nargs = ["list"]\nexpect_text = "zzz-not-there"\n'
                            '[[step]]\ntype = "verify"\nvariants = ["ref"]\ngrid = "smoke"\n')
    junit, report = tmp_path / "out" / "junit.xml", tmp_path / "out" / "run.json"
    result = CliRunner().invoke(app, ["scenario", "run", str(path), "--junit", str(junit), "--json-out", str(report)])
    assert result.exit_code == 1
    assert "[1/2]" in result.output and "FAIL" in result.output
    data = json.loads(report.read_text())
    assert data["counts"] == {"PASS": 0, "FAIL": 1, "SKIPPED": 1, "ERROR": 0} and data["ok"] is False
    assert ET.parse(junit).getroot().find("testsuite").get("failures") == "1"


def test_cli_list_and_unknown_scenario():
    from fmhactl.cli.app import app

    runner = CliRunner()
    listed = runner.invoke(app, ["scenario", "list", "--json"])
    assert listed.exit_code == 0
    assert {"cpu", "gpu-smoke"} <= {s["name"] for s in json.loads(listed.stdout)}
    unknown = runner.invoke(app, ["scenario", "run", "no-such-scenario"])
    assert unknown.exit_code == 2 and "unknown scenario" in unknown.output


@pytest.mark.gpu
def test_gpu_smoke_scenario_end_to_end(tmp_path):
    """On a GPU machine: build, verify ref on smoke, bench vs cuDNN, profile (SKIPPED if ncu is absent)."""
    with ResultStore(tmp_path / "results.sqlite") as store:
        result = run_scenario(load_scenario("gpu-smoke"), store=store)
        assert result.ok, [s.to_dict() for s in result.steps]
        assert [s.status for s in result.steps[:3]] == ["PASS", "PASS", "PASS"]
        assert store.query(kind="verify", variant="ref", status="PASS")
        assert store.query(kind="bench", variant="ref", status="OK")


def test_pytest_steps_pass_and_fail_by_exit_code(tmp_path, store):
    (tmp_path / "test_tiny.py").write_text("def test_ok():\n    assert 1 + 1 == 2\n\ndef test_bad():\n    assert 0\n")
    path = _write(tmp_path, f"""
[[step]]
type = "pytest"
args = ["-q", "-p", "no:cacheprovider", "{tmp_path / 'test_tiny.py'}::test_ok"]
[[step]]
type = "pytest"
args = ["-q", "-p", "no:cacheprovider", "{tmp_path / 'test_tiny.py'}::test_bad"]
""")
    result = run_scenario(load_scenario(str(path)), store=store, gpu=NO_GPU)
    assert [s.status for s in result.steps] == ["PASS", "FAIL"]
    assert "exit 1, expected 0" in result.steps[1].message
