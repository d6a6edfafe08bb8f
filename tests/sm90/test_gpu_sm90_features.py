"""On a Hopper GPU: the SM90 variants that build the features (sm90_persistent_feat, sm90_pingpong_feat,
sm90_persistent_m192_feat) pass window, sink and K = V shapes natively against the reference, O and LSE, including the
corners docs/features.md defines (diagonal-only window, rows with no key, a window wider than the
keys, tiles left of the window skipped over several ring wraps); top-k and hd512 are UNSUPPORTED."""

import pytest

from fmhactl.config import parse_shape
from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.verify.sweep import run_verify

pytestmark = pytest.mark.gpu

SHAPES = [
    "b=1,h=8,hkv=1,t=130,s=300,d=128,causal,wl=127,sink",          # the model's layer, tiles left of the window skipped
    "b=1,h=8,hkv=1,t=1000,s=1000,d=64,causal,wl=127,sink,kvshared",  # many query tiles, V read from K's stage
    "b=1,h=4,hkv=1,t=384,s=2048,d=256,causal,wl=300,sink,kvshared",  # hd256 (BN 64): window edges inside tiles
    "b=1,h=4,t=200,s=150,d=64,wl=0,wr=0,sink",                     # diagonal only; rows with no key: LSE = sink
    "b=2,h=4,hkv=2,t=513,s=700,d=128,wl=40,wr=30",                 # both sides bounded, non-causal, GQA
    "b=1,h=4,t=100,s=333,d=128,causal,wl=100000",                  # a window wider than the keys is no window
    "b=1,h=4,t=256,s=256,d=128,causal,sink",                       # sinks alone
    "b=1,h=4,t=300,s=1200,d=128,kvshared",                         # K = V alone over many ring wraps
    # hd64 for the 192-row tile: its causal first tile starts before row 0 (spare WGs pass), and a
    # WG passes the leading KV tiles its rows mask whole (window right edge, causal diagonal)
    "b=2,h=4,t=577,s=577,d=64,causal,wl=200,sink",
    "b=1,h=4,t=700,s=500,d=64,causal,sink",                        # T > S: rows with no key, LSE = sink
    "b=1,h=4,hkv=2,t=640,s=1500,d=64,wl=100,wr=150,kvshared",      # non-causal window, both sides
]
UNSUPPORTED = ["b=1,h=8,hkv=1,t=16,s=300,d=128,topk=32", "b=1,h=8,hkv=1,t=64,s=257,d=512,causal,wl=127,kvshared"]


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("the SM90 family runs natively only on compute capability 9.x")


@pytest.mark.parametrize("name", ["sm90_persistent_feat", "sm90_pingpong_feat", "sm90_persistent_m192_feat"])
def test_sm90_feature_variant_passes_window_sink_and_kv_shared(name):
    variant = get_variant(name)
    configs = [parse_shape(s) for s in SHAPES + UNSUPPORTED]
    with ResultStore() as store:
        summary = run_verify([variant], configs, store=store, timeout_s=120)
    want = {c.key: "PASS" if variant.unsupported_reason(c) is None else "UNSUPPORTED" for c in configs}
    assert [want[parse_shape(s).key] for s in UNSUPPORTED] == ["UNSUPPORTED"] * len(UNSUPPORTED)
    got = {row.config_key: row.status for row in summary.rows}
    assert got == want, [(r.config_key, r.status, r.metrics.get("reasons")) for r in summary.rows
                         if r.status != want[r.config_key]]
    for row in summary.rows:
        if row.status == "PASS":
            assert row.metrics.get("lse_max_err") is not None, f"{row.config_key}: LSE not checked"
