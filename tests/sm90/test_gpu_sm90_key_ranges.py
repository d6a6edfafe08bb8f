"""On a Hopper GPU: the SM90 feature kernels with per-batch key ranges (a padded batch in one
launch, docs/features.md) against the reference, O and LSE, over the `padded` grid: rows with all
keys, no key (O = 0, LSE = -inf), left and right padding, ranges crossing KV tiles, causal
bottom-right aligned to the whole tensors, hd 64/128/256, with the window on top; every output
element written. The SM100 family reports key ranges UNSUPPORTED."""

import pytest

from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.verify.grids import load_grid
from fmhactl.verify.sweep import run_verify

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if not torch.cuda.is_available() or torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("the SM90 family runs natively only on compute capability 9.x")


@pytest.mark.parametrize("name", ["sm90_persistent_feat", "sm90_pingpong_feat"])
def test_sm90_feature_variant_passes_key_ranges(name):
    variant = get_variant(name)
    configs = list(load_grid("padded").configs)
    with ResultStore() as store:
        summary = run_verify([variant], configs, store=store, timeout_s=120)
    want = {c.key: "PASS" if variant.unsupported_reason(c) is None else "UNSUPPORTED" for c in configs}
    assert sum(status == "PASS" for status in want.values()) >= 10  # hd256 is sm90_pingpong_feat's only
    got = {row.config_key: row.status for row in summary.rows}
    assert got == want, [(r.config_key, r.status, r.metrics.get("reasons"), r.metrics.get("error"))
                         for r in summary.rows if r.status != want[r.config_key]]
    for row in summary.rows:
        if row.status == "PASS":
            assert row.metrics.get("lse_max_err") is not None, f"{row.config_key}: LSE not checked"
            assert row.metrics.get("unwritten", 0) == 0, row.config_key


def test_sm100_refuses_key_ranges():
    cfg = load_grid("padded").configs[0]
    assert "feature key_ranges not supported" in get_variant("sm100_tma_s2_tmem").unsupported_reason(cfg)
