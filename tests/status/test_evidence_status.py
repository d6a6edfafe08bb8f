"""The committed status files against the committed evidence, in a copy of the checkout (a fresh
clone: empty local store): --check passes, names each milestone's record/date/GPU/source hash,
fails on a hand edit, turns STALE when a kernel source changes; the dependency rule; strict only."""

from __future__ import annotations

import shutil

import pytest
from typer.testing import CliRunner

from fmhactl import paths
from fmhactl.build.hashing import source_hash
from fmhactl.registry import load_registry
from fmhactl.results.evidence import record_id, write_records
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.status.compute import BLOCKED, DONE, NOT_RUN, STALE, compute_status
from fmhactl.status.milestones import load_milestones
from fmhactl.verify.grids import load_grid

GPU = "NVIDIA H100 80GB HBM3"


@pytest.fixture
def clone(tmp_path, monkeypatch):
    """A copy of the checkout's kernels/, scenarios/ and status files, with FMHACTL_ROOT on it and
    an empty FMHACTL_HOME: what CI sees after `git clone`."""
    root = tmp_path / "clone"
    for name in ("kernels", "scenarios", "milestones"):
        shutil.copytree(paths.project_root() / name, root / name)
    shutil.copy(paths.project_root() / "STATUS.md", root / "STATUS.md")
    monkeypatch.setenv("FMHACTL_ROOT", str(root))
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "home"))
    return root


def _verify_rows(variant: str, grids: tuple[str, ...], *, arch="sm_90a", mode="native", emulation="",
                 start=1_790_000_000.0) -> list[ResultRow]:
    v = load_registry()[variant]
    h = source_hash(v.source_path)
    configs = {c.key: c for g in grids for c in load_grid(g).configs if not v.unsupported_reason(c)}
    metrics = {"max_abs_err": 2e-3, "cosine": 0.99999, "lse_max_err": 1e-6}
    if emulation:
        metrics["emulation"] = emulation
    return [ResultRow(kind="verify", variant=variant, arch=arch, mode=mode, status="PASS", config_key=k,
                      config=c.to_dict(), metrics=metrics, source_hash=h, gpu=GPU, driver="580.159.04",
                      toolchain="nvrtc 13.0", seed=i, session="s", command=f"fmhactl verify {variant}",
                      created_at=start + i) for i, (k, c) in enumerate(sorted(configs.items()))]


def _status(*args: str):
    from fmhactl.cli.app import app

    return CliRunner().invoke(app, ["status", *args])


def test_fresh_clone_check_passes_on_files_the_evidence_computes(clone):
    rows = _verify_rows("ref", ("seeds72", "awkward"))
    write_records(rows, clone / "evidence")
    assert _status("--check").exit_code == 1  # the committed files do not show this evidence yet
    written = _status("--evidence-only")
    assert written.exit_code == 0, written.output
    check = _status("--check")
    assert check.exit_code == 0, check.output
    text = (clone / "STATUS.md").read_text()
    newest = max(rows, key=lambda r: r.created_at)
    h = source_hash(load_registry()["ref"].source_path)[:12]
    assert f"| M0 | DONE | {len(rows)} | `{record_id(newest)}` | 2026-09-21T" in text
    assert f"| {GPU} | {h} | {h} |" in text
    assert f"{len(rows)} evidence records" in text
    m0 = (clone / "milestones" / "M0.md").read_text()
    assert "Status: M0 DONE (sm90 native)" in m0 and f"newest `{record_id(newest)}`" in m0
    # deterministic: a second run writes the same bytes, whatever the local store's row ids
    before = {p: p.read_bytes() for p in (clone / "milestones").iterdir()}
    assert _status("--evidence-only").exit_code == 0
    assert before == {p: p.read_bytes() for p in (clone / "milestones").iterdir()}


def test_check_detects_a_hand_edit_of_status_md(clone):
    write_records(_verify_rows("ref", ("seeds72", "awkward")), clone / "evidence")
    assert _status("--evidence-only").exit_code == 0
    status_md = clone / "STATUS.md"
    status_md.write_text(status_md.read_text().replace("| M0 | DONE |", "| M0 | DONE! |"))
    check = _status("--check")
    assert check.exit_code == 1
    assert "STATUS.md differs from what the evidence computes" in check.output and "DONE!" in check.output


def test_a_changed_kernel_source_makes_its_milestones_stale_and_check_fail(clone):
    write_records(_verify_rows("ref", ("seeds72", "awkward")), clone / "evidence")
    assert _status("--evidence-only").exit_code == 0
    header = clone / "kernels" / "ref" / "fmha_ref.cuh"
    header.write_text(header.read_text() + "\n// touched\n")
    check = _status("--check")
    assert check.exit_code == 1 and "M0.md differs" in check.output and "M0: DONE -> STALE" in check.output
    assert _status("--evidence-only").exit_code == 0
    assert "Status: M0 STALE (sm90 native)" in (clone / "milestones" / "M0.md").read_text()
    assert "| M0 | STALE |" in (clone / "STATUS.md").read_text()
    assert _status("--check").exit_code == 0  # the regenerated files say STALE: that is what CI compares


def test_a_milestone_is_never_done_while_its_dependency_is_not(tmp_path):
    with ResultStore(tmp_path / "r.sqlite") as store:
        for row in _verify_rows("sm100_tma_tmem", ("seeds72",), mode="emulated", emulation="strict"):
            store.add(row, as_recorded=True)
        by_id = {s.milestone.id: s for s in compute_status(load_milestones(), store)}
        m2 = by_id["M2"]
        assert by_id["M1"].state == NOT_RUN
        assert m2.state == BLOCKED and m2.own_state == DONE and m2.reason == "by M1 (NOT RUN); own proof DONE"
        for row in _verify_rows("sm100_direct_tmem", ("seeds72",), mode="emulated", emulation="fast"):
            store.add(row, as_recorded=True)
        by_id = {s.milestone.id: s for s in compute_status(load_milestones(), store)}
        assert by_id["M1"].state == NOT_RUN  # the fast emulator proves nothing
        for row in _verify_rows("sm100_direct_tmem", ("seeds72",), mode="emulated", emulation="strict",
                                start=1_790_100_000.0):
            store.add(row, as_recorded=True)
        by_id = {s.milestone.id: s for s in compute_status(load_milestones(), store)}
        assert by_id["M1"].state == DONE and by_id["M1"].proved_in == ["sm100 emulated"]
        assert by_id["M2"].state == DONE
        assert by_id["M3"].state == NOT_RUN and by_id["M3"].reason == ""  # its dependency is DONE now


def test_every_milestone_scenario_verifies_its_variants_on_its_grids(tmp_path):
    from fmhactl.errors import BadInput

    for m in load_milestones():
        assert m.scenario or m.checks, m.id
    path = tmp_path / "m.toml"
    path.write_text('[[milestone]]\nid = "M1"\ntitle = "t"\nvariants = ["sm100_direct_tmem"]\n'
                    'grids = ["seeds72"]\nscenario = "gpu-smoke"\n')
    with pytest.raises(BadInput, match="'gpu-smoke' does not verify sm100_direct_tmem on grid seeds72"):
        load_milestones(path)


def test_the_committed_status_files_are_what_the_committed_evidence_computes():
    """What .ci/run's `fmhactl status --check` gates, as a test: regenerate with
    `fmhactl status --evidence-only` after changing evidence/, a kernel source or milestones.toml."""
    from fmhactl.status.service import run_status

    report = run_status(write=False, use_local=False)
    assert report.differences == []
