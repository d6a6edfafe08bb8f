"""`fmhactl init DIR` then `fmhactl build --all` inside it: every scaffolded variant compiles for
each arch it declares (NVRTC on the CPU; the raw-PTX kernel's Hopper build goes through the PTX path)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fmhactl.cli.app import app


def run(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.mark.slow
def test_init_then_build_all(tmp_path, monkeypatch):
    folder = tmp_path / "attn"
    result = run("init", str(folder), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["name"] == "attn"
    monkeypatch.chdir(folder / "kernels")  # found from a subfolder, as pytest finds its rootdir
    listed = json.loads(run("list", "--json").stdout)
    names = {v["name"]: v for v in (listed["variants"] if isinstance(listed, dict) else listed)}
    assert set(names) == {"sm90_start", "sm100_tc5", "sm100_raw_ptx"}
    built = run("build", "--all", "--jobs", "2", "--json")
    assert built.exit_code == 0, built.output
    rows = json.loads(built.stdout)
    rows = rows["builds"] if isinstance(rows, dict) else rows
    targets = {(r["variant"], r["arch"], r["emulated"]) for r in rows}
    assert targets == {("sm90_start", "sm_90a", False), ("sm100_tc5", "sm_100a", False),
                       ("sm100_tc5", "sm_90a", True), ("sm100_raw_ptx", "sm_100a", False),
                       ("sm100_raw_ptx", "sm_90a", True)}
    kernels = {(r["variant"], r["arch"], r["emulated"]): {k["kernel"] for k in r["kernels"]} for r in rows}
    assert {"raw_attn_bf16", "raw_attn_f16"} <= kernels[("sm100_raw_ptx", "sm_90a", True)]  # PTX path, linked
    assert {"fmha_ref_bf16", "fmha_ref_f16"} <= kernels[("sm90_start", "sm_90a", False)]


def test_init_refuses_to_overwrite_and_bad_targets(tmp_path):
    assert run("init", str(tmp_path / "p")).exit_code == 0
    again = run("init", str(tmp_path / "p"))
    assert again.exit_code == 2 and "already exists (--force overwrites)" in again.stderr
    assert run("init", str(tmp_path / "p"), "--force").exit_code == 0
    (tmp_path / "file").write_text("x")
    assert run("init", str(tmp_path / "file")).exit_code == 2
    bad = run("init", str(tmp_path / "q"), "--name", "bad name!")
    assert bad.exit_code == 2 and "--name" in bad.stderr and not (tmp_path / "q").exists()
