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
    bad = [(r.variant, r.config_key, r.status, r.metrics.get("reasons")) for r in summary.rows if r.status != "PASS"]
    assert not bad, bad
    for row in summary.rows:
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
