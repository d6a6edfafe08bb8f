"""M6 is computed from recorded 'torch' / 'model-bench' rows (milestone `checks`), like the grid milestones."""

from __future__ import annotations

import pytest

from fmhactl.build.hashing import source_hash
from fmhactl.errors import BadInput
from fmhactl.registry import load_registry
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.status.compute import BLOCKED, DONE, IN_PROGRESS, STALE, compute_status
from fmhactl.status.milestones import load_milestones
from fmhactl.status.render import render_milestone

CHECKS = ("torch:opcheck", "torch:model-eager", "torch:model-compile", "torch:cuda-graph", "model-bench:llama-small")


@pytest.fixture
def store(tmp_path):
    with ResultStore(tmp_path / "results.sqlite") as s:
        yield s


def _record(store, check, status="PASS", hash_=None, variant="ref"):
    kind, key = check.split(":")
    hash_ = source_hash(load_registry()[variant].source_path) if hash_ is None else hash_
    store.add(ResultRow(kind=kind, variant=variant, arch="sm_90a", mode="native", status=status, config_key=key,
                        metrics={"error": "boom"} if status == "FAIL" else {}, source_hash=hash_))


def _m6(store):
    statuses = compute_status(load_milestones(), store)
    return next(s for s in statuses if s.milestone.id == "M6"), {s.milestone.id: s for s in statuses}


def test_m6_names_its_checks():
    m6 = next(m for m in load_milestones() if m.id == "M6")
    assert m6.checks == CHECKS and not m6.blocked


def _prove_m0(store):
    from fmhactl.verify.grids import load_grid

    ref_hash = source_hash(load_registry()["ref"].source_path)
    keys = {c.key: c for grid in ("seeds72", "awkward") for c in load_grid(grid).configs}
    for key, cfg in keys.items():
        store.add(ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="PASS",
                            config_key=key, config=cfg.to_dict(), metrics={"max_abs_err": 1e-3, "cosine": 1.0},
                            source_hash=ref_hash))


def test_m6_done_when_every_check_passes_in_a_mode(store):
    for check in CHECKS:
        _record(store, check, "OK" if check.startswith("model-bench") else "PASS")
    m6, by_id = _m6(store)
    # its own proof is complete, but M0 (its dependency) is not DONE: never DONE before M0
    assert m6.state == BLOCKED and m6.own_state == DONE and m6.reason == "by M0 (NOT RUN); own proof DONE"
    _prove_m0(store)
    m6, by_id = _m6(store)
    assert m6.state == DONE and m6.proved_in == ["sm90 native"]
    mode = m6.mode("sm90 native")
    assert (mode.passed, mode.required, mode.note) == (5, 5, "backend: ref")
    text = render_milestone(m6, by_id)
    assert "Status: M6 DONE (sm90 native)" in text and "check torch:cuda-graph" in text and "backend: ref" in text


def test_m6_in_progress_on_a_failing_or_missing_check_and_stale_on_changed_sources(store):
    for check in CHECKS[:-1]:
        _record(store, check)
    m6, _ = _m6(store)
    assert m6.state == IN_PROGRESS and m6.mode("sm90 native").missing == 1
    _record(store, CHECKS[-1], "OK")
    _record(store, "torch:cuda-graph", "FAIL")
    m6, _ = _m6(store)
    assert m6.state == IN_PROGRESS
    assert [(f.config_key, f.error) for f in m6.mode("sm90 native").failures] == [("torch:cuda-graph", "boom")]
    _record(store, "torch:cuda-graph", "PASS", hash_="old-sources")
    m6, _ = _m6(store)
    assert m6.state == STALE


def test_m6_without_rows_waits_for_m0(store):
    m6, _ = _m6(store)
    assert m6.state == BLOCKED and m6.reason.startswith("by M0 (NOT RUN)")


def test_malformed_checks_are_bad_input(tmp_path):
    path = tmp_path / "milestones.toml"
    path.write_text('[[milestone]]\nid = "X"\ntitle = "x"\nvariants = []\nchecks = ["torch"]\n')
    with pytest.raises(BadInput, match="checks must read kind:name"):
        load_milestones(path)
    path.write_text('[[milestone]]\nid = "X"\ntitle = "x"\nvariants = []\n')
    with pytest.raises(BadInput, match="no variants and no checks"):
        load_milestones(path)
