"""`fmhactl layout plan VARIANT --head-dim D`: the TMEM plan (S, P inside S, O, co-resident CTAs)
and SMEM per stage, as text, JSON and SVG, with the documented exit codes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fmhactl.cli.app import app

runner = CliRunner()


@pytest.mark.parametrize("d, arithmetic", [
    (64, "S 128 + O 64 = 192 columns"),
    (128, "S 128 + O 128 = 256 columns"),
    (256, "S 64 + O 256 = 320 columns"),
    (512, "S 32 + O 256 (512 / 2 passes over D) = 288 columns"),
])
def test_text_states_the_column_arithmetic(d, arithmetic):
    result = runner.invoke(app, ["layout", "plan", "sm100_tma_s2_tmem", "--head-dim", str(d)],
                           env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert arithmetic in result.output
    assert "inside S" in result.output and "residency:" in result.output


def test_json_and_svg(tmp_path):
    svg = tmp_path / "plan.svg"
    result = runner.invoke(app, ["layout", "plan", "sm100_direct_tmem", "-d", "64", "--json", "--svg", str(svg)])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert (doc["tmem_columns"], doc["tmem_alloc"], doc["ctas_per_sm"], doc["col_p"], doc["col_o"]) == (192, 256, 2, 0, 128)
    names = [(r["memory"], r["name"]) for r in doc["records"]]
    assert ("tmem", "S") in names and ("tmem", "P") in names and ("smem", "pad") in names
    content = svg.read_text()
    assert content.startswith("<svg") and ">P0 0<" in content and ">O1 384<" in content


def test_unsupported_plan_exits_1_with_the_reason():
    result = runner.invoke(app, ["layout", "plan", "sm100_tma_s2_smem", "--head-dim", "512"], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    assert "UNSUPPORTED: SMEM needs 246864 B" in result.output


@pytest.mark.parametrize("args", [["ref", "-d", "64"], ["sm100_tma_s2_tmem", "-d", "100"],
                                  ["sm100_tma_s2_tmem", "-d", "1024"], ["nope", "-d", "64"]])
def test_bad_input_exits_2(args):
    result = runner.invoke(app, ["layout", "plan", *args])
    assert result.exit_code == 2
