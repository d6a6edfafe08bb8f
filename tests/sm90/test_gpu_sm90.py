"""On a Hopper GPU: every SM90 variant verifies natively (O and LSE) on awkward shapes, and bench
times it beside cuDNN. Skips without a GPU, and on GPUs other than compute capability 9.x."""

import pytest

from fmhactl.config import AttnConfig
from fmhactl.registry import load_registry
from fmhactl.results.store import ResultStore
from fmhactl.verify.sweep import run_verify

pytestmark = pytest.mark.gpu

SM90 = [v for v in load_registry().values() if v.launcher == "sm90"]
CONFIGS = [
    AttnConfig(batch=2, heads=8, heads_kv=2, seq_q=77, seq_k=239, head_dim=128, causal=True),
    AttnConfig(seq_q=300, seq_k=113, head_dim=64, causal=True, dtype="f16"),
    AttnConfig(batch=1, heads=4, heads_kv=1, seq_q=1, seq_k=1023, head_dim=256),
    AttnConfig(seq_q=129, seq_k=4224, head_dim=128),
]


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("the SM90 family runs natively only on compute capability 9.x")


def test_every_sm90_variant_verifies_natively():
    with ResultStore() as store:
        summary = run_verify(SM90, CONFIGS, store=store)
    # UNSUPPORTED only where the registry says so (sm90_persistent stops at hd128).
    expected = {(v.name, cfg.key): "PASS" if v.unsupported_reason(cfg) is None else "UNSUPPORTED"
                for v in SM90 for cfg in CONFIGS}
    got = {(r.variant, r.config_key): r.status for r in summary.rows}
    assert got == expected, [(key, got.get(key), want) for key, want in expected.items() if got.get(key) != want]
    for row in summary.rows:
        if row.status == "UNSUPPORTED":
            continue
        assert row.mode == "native"
        assert row.metrics["unwritten"] == 0 and row.metrics["lse_unwritten"] == 0
        assert row.metrics["lse_max_err"] is not None


def test_bench_reports_a_cudnn_ratio():
    from fmhactl.bench.service import run_bench

    cfg = AttnConfig(batch=2, heads=8, seq_q=1024, seq_k=1024, head_dim=128)
    with ResultStore() as store:
        rows = run_bench(load_registry()["sm90_pingpong"], [cfg], store=store, warmup=2, iters=5)
    metrics = rows[0].metrics
    assert rows[0].status == "OK" and metrics["kernel"]["tflops"] > 0
    cudnn = metrics["baselines"]["cudnn"]
    assert not cudnn.get("available") or cudnn["ratio"] > 0


def test_persistent_scheduler_claims_every_tile_and_resets_its_counter():
    """More tiles than SMs, so CTAs claim tiles from the counter: back-to-back launches on one
    stream (each relying on the previous one's reset) and on a second stream all verify, and
    every counter is zero afterwards."""
    import torch

    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.runtime.execute import Executor
    from fmhactl.runtime.jobs import make_job
    from fmhactl.verify.job import verify_job

    variant = load_registry()["sm90_persistent"]
    built = build(variant, BuildTarget("sm_90a"))
    executor = Executor()
    shapes = [AttnConfig(batch=2, heads=16, heads_kv=4, seq_q=1000, seq_k=1100, head_dim=64, causal=True),
              AttnConfig(batch=3, heads=12, seq_q=700, seq_k=500, head_dim=128, causal=True),  # rows with no key
              AttnConfig(batch=2, heads=20, seq_q=640, seq_k=640, head_dim=128)]
    assert all(variant.unsupported_reason(cfg) is None for cfg in shapes)
    assert min(-(-cfg.seq_q // 128) * cfg.heads * cfg.batch for cfg in shapes) > torch.cuda.get_device_properties(
        0).multi_processor_count
    side = torch.cuda.Stream()
    try:
        for stream in (torch.cuda.current_stream(), side, torch.cuda.current_stream()):
            with torch.cuda.stream(stream):
                for seed, cfg in enumerate(shapes * 2):
                    job = make_job("verify", variant, built, cfg, 500 + seed, "native")
                    result = verify_job(executor, job)
                    assert result["status"] == "PASS", (cfg.key, result["metrics"])
                    assert result["metrics"]["unwritten"] == 0
        torch.cuda.synchronize()
        counters = executor.__dict__["_tile_counters"]
        assert len(counters) == 2
        for counter in counters.values():
            assert counter.tolist() == [0, 0]
    finally:
        executor.close()
