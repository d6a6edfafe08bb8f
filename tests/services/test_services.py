"""The service layer's conventions: typed results, progress events, cancel tokens, errors before work."""

from __future__ import annotations

import time

import pytest

from fmhactl import services
from fmhactl.records import BuildMetrics, ProgressEvent
from fmhactl.results.store import ResultRow, ResultStore


def test_build_reports_one_progress_event_per_build_and_typed_rows(tmp_path):
    events: list[ProgressEvent] = []
    with ResultStore(tmp_path / "r.sqlite") as store:
        results = services.build(["ref"], arch="sm_90a", store=store, progress=events.append)
        rows = store.query(kind="build")
    assert [(e.unit, e.done, e.total) for e in events] == [("build", 1, 1)]
    assert events[0].record is results[0]
    assert rows[0].schema_version >= 1
    facts = BuildMetrics.from_dict(rows[0].metrics)
    assert facts.kernels and facts.max_registers > 0
    kernel_rows = services.kernel_rows(results)
    assert kernel_rows[0].variant == "ref" and kernel_rows[0].registers == facts.max_registers


def test_a_cancelled_token_stops_before_the_next_unit_and_stores_nothing(tmp_path):
    token = services.CancelToken()
    token.cancel()
    with ResultStore(tmp_path / "r.sqlite") as store:
        with pytest.raises(services.Cancelled):
            services.build(["ref"], arch="sm_90a", store=store, cancel=token)
        assert store.query() == []


def test_scenario_progress_is_one_event_per_step(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text('[[step]]\ntype = "fmhactl"\nargs = ["list", "--json"]\n'
                    '[[step]]\ntype = "verify"\nvariants = ["ref"]\ngrid = "smoke"\n')
    events: list[ProgressEvent] = []
    with ResultStore(tmp_path / "r.sqlite") as store:
        result = services.run_scenario(services.load_scenario(str(path)), store=store, gpu=(None, "test"),
                                       progress=events.append)
    assert [(e.unit, e.done, e.total) for e in events] == [("step", 1, 2), ("step", 2, 2)]
    assert [s.status for s in result.steps] == ["PASS", "SKIPPED"]


def test_gpu_services_answer_missing_environment_at_once(monkeypatch):
    monkeypatch.setenv("FMHACTL_ASSUME_NO_GPU", "1")
    assert services.gpu_status().available is False
    started = time.monotonic()
    with pytest.raises(services.MissingEnvironment, match="no GPU"):
        services.verify(["ref"], grid="smoke")
    assert time.monotonic() - started < 30  # no worker was started and waited for


def test_bad_arguments_are_bad_input_before_work():
    with pytest.raises(services.BadInput, match="--timeout"):
        services.verify(["ref"], shapes=["d=64"], timeout_s=float("nan"))
    with pytest.raises(services.BadInput, match="exactly one of"):
        services.verify(["ref"], grid="smoke", shapes=["d=64"])
    with pytest.raises(services.BadInput, match="unknown baseline"):
        services.bench("ref", ["d=64"], baselines=["turbo"])


def test_results_filters_by_grid_and_date(tmp_path):
    from fmhactl.verify.grids import load_grid

    smoke_key = load_grid("smoke").configs[0].key
    with ResultStore(tmp_path / "r.sqlite") as store:
        store.add(ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="PASS",
                            config_key=smoke_key, created_at=1_700_000_000.0))
        store.add(ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="FAIL",
                            config_key="not-in-any-grid", created_at=1_800_000_000.0))
        in_grid = services.query_results(services.ResultsFilter(grid="smoke"), store=store)
        recent = services.query_results(services.ResultsFilter(since="2025-01-01"), store=store)
        failing = services.query_results(services.ResultsFilter(status="fail"), store=store)
    assert [r.config_key for r in in_grid] == [smoke_key]
    assert [r.status for r in recent] == ["FAIL"]
    assert [r.config_key for r in failing] == ["not-in-any-grid"]
