"""On a GPU: the reference kernel verifies, and a sweep survives a faulting and a hanging kernel."""

import pytest

from fmhactl.config import AttnConfig
from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.verify.grids import load_grid
from fmhactl.verify.sweep import run_verify

pytestmark = pytest.mark.gpu


def test_ref_passes_smoke_and_odd_shapes():
    configs = list(load_grid("smoke").configs) + [
        AttnConfig(batch=2, heads=8, heads_kv=2, seq_q=77, seq_k=239, head_dim=96, causal=True),
        AttnConfig(seq_q=300, seq_k=113, head_dim=128, causal=True, dtype="f16"),
    ]
    with ResultStore() as store:
        summary = run_verify([get_variant("ref")], configs, store=store)
    assert summary.counts["PASS"] == len(configs), [r.metrics for r in summary.rows if r.status != "PASS"]
    for row in summary.rows:
        assert row.mode == "native" and row.metrics["unwritten"] == 0 and row.metrics["cosine"] > 0.9999


def test_sweep_reports_crash_and_hang_and_finishes_the_rest():
    variants = [get_variant(n) for n in ("selftest_fault", "selftest_hang", "ref")]
    configs = list(load_grid("smoke").configs)
    with ResultStore() as store:
        summary = run_verify(variants, configs, store=store, timeout_s=15)
        stored = store.query(session=summary.session)
    by = {(r.variant, r.config["seq_q"], r.config.get("causal")): r.status for r in summary.rows}
    assert by[("selftest_fault", 3, False)] == "CRASH"
    assert by[("selftest_hang", 3, False)] == "HANG"
    others = [s for (v, t, _), s in by.items() if t != 3 or v == "ref"]
    assert others and all(s == "PASS" for s in others)
    assert len(stored) == len(variants) * len(configs)
