"""The bench job's stage reports (fmhactl.runtime.stage): each baseline is announced with the result
so far, the one being timed marked unfinished, so a HANG row keeps the kernel and the baselines done."""

import json
from types import SimpleNamespace

from fmhactl.bench import job as bench
from fmhactl.config import parse_shape
from fmhactl.runtime import stage


def test_each_baseline_is_announced_with_the_result_so_far(monkeypatch):
    reports: list[dict] = []
    stage.bind(lambda report: reports.append(json.loads(json.dumps(report))))  # the wire form, sent at once
    timing = {"median_ms": 2.0, "tflops": 100.0}
    monkeypatch.setattr(bench, "input_sets", lambda executor, cfg, seed, opts: [("set",)])
    monkeypatch.setattr(bench, "_flops", lambda cfg, seed: 1.0)
    monkeypatch.setattr(bench, "_timed", lambda fn, sets, warmup, iters, flops: dict(timing))
    monkeypatch.setattr(bench, "_time_baseline", lambda name, *a: {"available": True, "tflops": 50.0, "median_ms": 4.0})
    executor = SimpleNamespace(prepared_launch=lambda job, cfg, *s: (lambda: None), synchronize=lambda job: None)
    job = SimpleNamespace(config=parse_shape("b=1,h=2,t=128,s=128,d=64"), seed=1,
                          options={"bench": {"baselines": ["cudnn", "flash"]}})
    try:
        reply = bench.bench_job(executor, job)
    finally:
        stage.bind(None)
    assert [r["stage"] for r in reports] == ["the kernel", "baseline cudnn", "baseline flash"]
    cudnn_running = reports[1]["partial"]
    assert cudnn_running["kernel"] == timing
    assert cudnn_running["baselines"] == {"cudnn": {"available": False, "reason": "did not finish before the watchdog"}}
    flash_running = reports[2]["partial"]["baselines"]
    assert flash_running["cudnn"]["available"] and flash_running["cudnn"]["ratio"] == 2.0
    assert not flash_running["flash"]["available"]
    assert reply["status"] == "OK" and reply["metrics"]["baselines"]["flash"]["ratio"] == 2.0
