"""On a GPU: sm100_tma_s2_tmem (strict emulation on sm_90, native on sm_100) passes every feature
it builds on a few dsv4-like shapes (top-k included), and the feature baselines of `bench`
match the reference on the GPU (flex compiled)."""

import pytest

from fmhactl.config import parse_shape
from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.verify.sweep import run_verify

pytestmark = pytest.mark.gpu

SHAPES = [
    "b=1,h=8,hkv=1,t=130,s=300,d=128,causal,wl=127,sink",  # the model's layer, tiles left of the window skipped
    "b=1,h=4,hkv=1,t=64,s=257,d=512,causal,wl=127,sink,kvshared",  # hd512: V from K's atoms 4..7
    "b=1,h=4,t=200,s=150,d=64,wl=0,wr=0,sink",  # diagonal only; rows with no key get the sink as LSE
]


def test_sm100_pipelined_variant_passes_window_sink_kv_shared_and_topk(prebuilt_home):
    configs = [parse_shape(s) for s in SHAPES] + [parse_shape("b=1,h=2,hkv=1,t=16,s=300,d=64,topk=32")]
    with ResultStore() as store:
        summary = run_verify([get_variant("sm100_tma_s2_tmem")], configs, store=store, timeout_s=120)
    status = {row.config_key: row.status for row in summary.rows}
    assert [status[c.key] for c in configs] == ["PASS"] * (len(SHAPES) + 1), \
        [(r.config_key, r.status, r.metrics.get("reasons")) for r in summary.rows]


@pytest.mark.parametrize("shape", ["b=1,h=8,hkv=1,t=256,s=512,d=128,causal,wl=127,sink,topk=64",
                                   "b=4,h=8,hkv=2,t=256,s=256,d=128,causal,kvr"])
@pytest.mark.parametrize("name", ["sdpa-mask", "flex"])
def test_feature_baselines_match_the_reference_on_the_gpu(name, shape):
    torch = pytest.importorskip("torch")
    from fmhactl.bench.feature_baselines import prepare
    from fmhactl.runtime.features import make_feature_inputs
    from fmhactl.verify.reference import attention_for

    cfg = parse_shape(shape)
    gen = torch.Generator(device="cuda").manual_seed(3)
    q = torch.randn(cfg.batch, cfg.seq_q, cfg.heads, 128, device="cuda", generator=gen).bfloat16()
    k = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, 128, device="cuda", generator=gen).bfloat16()
    v = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, 128, device="cuda", generator=gen).bfloat16()
    feats = make_feature_inputs(cfg, 5)
    out = prepare(name, cfg, feats, "cuda", torch.bfloat16)(q, k, v).permute(0, 2, 1, 3).float()
    want, _ = attention_for(cfg, q, k, v, feats, compute_dtype=torch.float32)
    low, _ = attention_for(cfg, q, k, v, feats, compute_dtype=torch.bfloat16)
    tolerance = 2 * float((low.float() - want).abs().max()) + 1e-3
    assert float((out - want).abs().max()) <= tolerance
