"""Status generation from a seeded results DB: DONE numbers, IN PROGRESS, BLOCKED, STALE, --check."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from fmhactl import paths
from fmhactl.build.hashing import source_hash
from fmhactl.errors import BadInput
from fmhactl.registry import load_registry
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.status.compute import BLOCKED, DONE, IN_PROGRESS, NOT_RUN, STALE, compute_status
from fmhactl.status.milestones import load_milestones
from fmhactl.status.service import run_status
from fmhactl.verify.grids import load_grid


def _m0_configs():
    configs = []
    for grid in ("seeds72", "awkward"):
        configs += [c for c in load_grid(grid).configs if c not in configs]
    return configs


def _verify_row(cfg, *, status="PASS", err=1e-3, cos=0.999999, hash_="", mode="native", arch="sm_90a",
                variant="ref", error_map=""):
    metrics = {"max_abs_err": err, "cosine": cos, "lse_max_err": 1e-6,
               "reasons": [] if status == "PASS" else [f"max|out-ref| {err:.3e} > tolerance 1.000e-03"],
               "error_map": error_map}
    return ResultRow(kind="verify", variant=variant, arch=arch, mode=mode, status=status, config_key=cfg.key,
                     config=cfg.to_dict(), metrics=metrics, source_hash=hash_, gpu="NVIDIA H100 80GB HBM3",
                     session="s1")


def _seed_m0(store: ResultStore, hash_: str, *, worst_err=4.5e-3):
    configs = _m0_configs()
    for i, cfg in enumerate(configs):
        err = worst_err if i == 7 else 1e-3
        cos = 0.9999901 if i == 11 else 0.9999995
        store.add(_verify_row(cfg, err=err, cos=cos, hash_=hash_))
    return configs


@pytest.fixture(autouse=True)
def no_committed_evidence(empty_evidence):
    """These tests compute from the rows they seed, not from the checkout's evidence/."""
    return empty_evidence


@pytest.fixture
def store(tmp_path):
    with ResultStore(tmp_path / "results.sqlite") as s:
        yield s


@pytest.fixture
def ref_hash():
    return source_hash(load_registry()["ref"].source_path)


def _m0(statuses):
    return next(s for s in statuses if s.milestone.id == "M0")


def test_milestones_file_names_the_seed_milestones():
    ids = [m.id for m in load_milestones()]
    assert ids[:1] == ["M0"]
    assert {"M1", "M2", "M3", "M4", "M5", "M6", "SMEM-P"} <= set(ids)
    m0 = next(m for m in load_milestones() if m.id == "M0")
    assert m0.variants == ("ref",) and m0.grids == ("seeds72", "awkward")


def test_done_numbers_match_the_db(store, ref_hash, tmp_path):
    configs = _seed_m0(store, ref_hash)
    bench_cfg = configs[0]
    store.add(ResultRow(kind="bench", variant="ref", arch="sm_90a", mode="native", status="OK",
                        config_key=bench_cfg.key, config=bench_cfg.to_dict(), source_hash=ref_hash,
                        metrics={"kernel": {"tflops": 42.25, "median_ms": 0.5},
                                 "baselines": {"cudnn": {"tflops": 400.0, "ratio": 0.105625, "available": True}}}))
    report = run_status(out_dir=tmp_path / "out", store=store)
    m0 = _m0(report.statuses)
    sm90 = m0.mode("sm90 native")
    assert m0.state == DONE and m0.proved_in == ["sm90 native"]
    assert sm90.state == DONE and sm90.passed == sm90.required == len(configs)
    assert sm90.max_abs_err == pytest.approx(4.5e-3) and sm90.min_cosine == pytest.approx(0.9999901)
    assert m0.mode("sm100 native").state == NOT_RUN
    text = (tmp_path / "out" / "STATUS.md").read_text()
    assert f"DONE {len(configs)}/{len(configs)}" in text
    assert "max err 4.50e-03" in text and "min cos 0.999990" in text
    assert "42.2 (" in text and "0.11x cudnn" in text
    assert f"0 evidence records (`evidence/*.jsonl`) and {len(configs) + 1} rows found only in the local" in text
    milestone = (tmp_path / "out" / "milestones" / "M0.md").read_text()
    assert milestone.startswith("# M0 — ") and "Status: M0 DONE (sm90 native)" in milestone
    assert f"sources {ref_hash[:12]}" in milestone


def test_in_progress_lists_failing_configs_with_their_error_map(store, ref_hash, tmp_path):
    configs = _seed_m0(store, ref_hash)
    bad = configs[3]
    store.add(_verify_row(bad, status="FAIL", err=0.25, cos=0.91, hash_=ref_hash,
                          error_map="rows x cols\n..X.\n...."))
    report = run_status(out_dir=tmp_path, store=store)
    sm90 = _m0(report.statuses).mode("sm90 native")
    assert sm90.state == IN_PROGRESS and sm90.passed == len(configs) - 1
    assert [f.config_key for f in sm90.failures] == [bad.key]
    text = (tmp_path / "milestones" / "M0.md").read_text()
    assert f"{bad.key}: FAIL (max err 2.50e-01, cos 0.910000)" in text
    assert "  ..X." in text
    # a config that passed before and fails now is a regression
    assert any(bad.key in r for r in report.regressions)


def test_blocked_when_variants_are_missing_dependencies_wait_or_work_is_outside(store, tmp_path):
    path = tmp_path / "milestones.toml"
    path.write_text('''
[[milestone]]
id = "A"
title = "needs a kernel nobody wrote"
variants = ["ref", "sm100_not_written_yet"]
grids = ["smoke"]
[[milestone]]
id = "B"
title = "builds on A"
variants = ["ref"]
grids = ["smoke"]
depends = ["A"]
[[milestone]]
id = "C"
title = "elsewhere"
variants = ["ref"]
blocked = "outside this repository"
''')
    by_id = {s.milestone.id: s for s in compute_status(load_milestones(path), store)}
    assert by_id["A"].state == BLOCKED
    assert by_id["A"].reason == "variants not in kernels/family.toml: sm100_not_written_yet"
    assert by_id["B"].state == BLOCKED and by_id["B"].reason == "by A (BLOCKED); own proof NOT RUN"
    assert by_id["C"].state == BLOCKED and by_id["C"].reason == "outside this repository"
    shipped = {s.milestone.id: s for s in compute_status(load_milestones(), store)}
    assert shipped["M6"].state == BLOCKED and shipped["M0"].state == NOT_RUN


def test_stale_when_the_sources_change_after_the_passing_run(store, tmp_path, monkeypatch):
    root = tmp_path / "checkout"
    shutil.copytree(paths.kernels_dir(), root / "kernels")
    shutil.copytree(paths.scenarios_dir(), root / "scenarios")
    monkeypatch.setenv("FMHACTL_ROOT", str(root))
    ref = load_registry()["ref"]
    before = source_hash(ref.source_path)
    _seed_m0(store, before)
    assert _m0(compute_status(load_milestones(), store)).state == DONE
    header = root / "kernels" / "ref" / "fmha_ref.cuh"
    header.write_text(header.read_text() + "\n// touched\n")
    after = source_hash(ref.source_path)
    assert after != before
    m0 = _m0(compute_status(load_milestones(), store))
    assert m0.state == STALE and m0.mode("sm90 native").state == STALE
    assert m0.mode("sm90 native").stale == [f"ref: passed with sources {before[:12]}, sources now {after[:12]}"]
    # a fresh passing run at the new hash makes it DONE again
    for cfg in _m0_configs():
        store.add(_verify_row(cfg, hash_=after))
    assert _m0(compute_status(load_milestones(), store)).state == DONE


def test_compile_only_mode_from_build_rows(store, ref_hash):
    for arch in ("sm_80", "sm_90a"):
        store.add(ResultRow(kind="build", variant="ref", arch=arch, mode="compile-only", status="OK",
                            source_hash=ref_hash))
    co = _m0(compute_status(load_milestones(), store)).mode("compile-only")
    assert co.state == IN_PROGRESS and co.passed == 2 and co.missing == 1
    store.add(ResultRow(kind="build", variant="ref", arch="sm_100a", mode="compile-only", status="OK",
                        source_hash="0" * 64))
    co = _m0(compute_status(load_milestones(), store)).mode("compile-only")
    assert co.state == STALE and co.passed == 3


def test_output_is_deterministic(store, ref_hash, tmp_path):
    _seed_m0(store, ref_hash)
    run_status(out_dir=tmp_path / "a", store=store)
    run_status(out_dir=tmp_path / "b", store=store)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert len(files) == 1 + len(load_milestones()) + 1
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()


def test_check_fails_on_regression_and_writes_nothing(tmp_path, monkeypatch, ref_hash):
    home = tmp_path / "home"
    monkeypatch.setenv("FMHACTL_HOME", str(home))
    out = tmp_path / "out"
    from fmhactl.cli.app import app

    runner = CliRunner()
    with ResultStore() as store:
        configs = _seed_m0(store, ref_hash)
    missing = runner.invoke(app, ["status", "--check", "--with-local", "--out", str(out)])
    assert missing.exit_code == 1 and "status.json: missing" in missing.output, missing.output
    assert not out.exists()
    written = runner.invoke(app, ["status", "--out", str(out)])
    assert written.exit_code == 0 and (out / "STATUS.md").is_file()
    ok = runner.invoke(app, ["status", "--check", "--with-local", "--out", str(out)])
    assert ok.exit_code == 0, ok.output
    assert json.loads((out / "milestones" / "status.json").read_text())["M0"]["modes"]["sm90 native"] == DONE
    # --check alone compares with the committed evidence, which lacks the local rows
    alone = runner.invoke(app, ["status", "--check", "--out", str(out)])
    assert alone.exit_code == 1 and "differ from what the committed evidence computes" in alone.output
    with ResultStore() as store:
        store.add(_verify_row(configs[5], status="FAIL", err=1.0, cos=0.5, hash_=ref_hash))
    failed = runner.invoke(app, ["status", "--check", "--with-local", "--out", str(out)])
    assert failed.exit_code == 1
    assert "passed before" in failed.output and "now FAIL" in failed.output
    assert "DONE before, IN PROGRESS now" in failed.output


def test_bad_milestones_file_is_bad_input(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text('[[milestone]]\nid = "X"\ntitle = "t"\nvariants = ["ref"]\ndepends = ["Y"]\n')
    with pytest.raises(BadInput, match="unknown Y"):
        load_milestones(path)
    from fmhactl.cli.app import app

    result = CliRunner().invoke(app, ["status", "--milestones", str(path), "--out", str(tmp_path)])
    assert result.exit_code == 2
