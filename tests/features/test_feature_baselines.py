"""bench's feature baselines compute what the reference computes (CPU, fp32): SDPA with an
explicit mask and a sink column, and FlexAttention (eager here) with a block mask, a top-k score
mod and the sink applied from its LSE."""

import pytest

torch = pytest.importorskip("torch")

from fmhactl.bench.feature_baselines import FEATURE_BASELINES, prepare  # noqa: E402
from fmhactl.config import parse_shape  # noqa: E402
from fmhactl.runtime.features import make_feature_inputs  # noqa: E402
from fmhactl.verify.reference import attention_for  # noqa: E402

SHAPES = [
    "b=1,h=4,hkv=1,t=20,s=70,d=16,causal,wl=15,sink,kvshared",
    "b=2,h=2,t=40,s=30,d=16,wl=5,wr=3",  # T > S: rows with no key
    "b=1,h=4,hkv=2,t=9,s=50,d=16,topk=24,sink",
    "b=1,h=2,t=33,s=33,d=16,causal",
    "b=1,h=2,t=12,s=5,d=16,causal,sink",  # empty rows under a -inf sink (head 0) and a finite one
    "b=4,h=4,hkv=2,t=24,s=24,d=16,causal,kvr",  # key ranges: all, none, left and right padding
    "b=5,h=2,t=6,s=40,d=16,kvr,sink",
]


@pytest.mark.parametrize("name", FEATURE_BASELINES)
@pytest.mark.parametrize("shape", SHAPES)
def test_feature_baselines_match_the_reference(name, shape):
    import warnings

    cfg = parse_shape(shape)
    gen = torch.Generator().manual_seed(1)
    q = torch.randn(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, generator=gen)
    k = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, cfg.head_dim, generator=gen)
    v = k if cfg.kv_shared else torch.randn(k.shape, generator=gen)
    feats = make_feature_inputs(cfg, 4, device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # flex_attention warns when it runs uncompiled
        out = prepare(name, cfg, feats, "cpu", torch.float32, compiled=False)(q, k, v)
    want, _ = attention_for(cfg, q.double(), k.double(), v.double(), feats, compute_dtype=torch.float64)
    assert torch.allclose(out.permute(0, 2, 1, 3).double(), want, atol=2e-5), float((out.permute(0, 2, 1, 3) - want).abs().max())
