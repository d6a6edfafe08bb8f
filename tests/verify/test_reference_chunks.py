"""The reference computes long sequences in row chunks and GQA without repeating K/V: the result
is the one-pass result (every feature: window, causal, top-k, sinks, a key mask)."""

import pytest

torch = pytest.importorskip("torch")

from fmhactl.config import parse_shape  # noqa: E402
from fmhactl.runtime.features import make_feature_inputs  # noqa: E402
from fmhactl.verify import reference  # noqa: E402


@pytest.mark.parametrize("shape", [
    "b=2,h=6,hkv=2,t=37,s=50,d=16,causal,wl=7,sink,topk=20",
    "b=1,h=8,hkv=1,t=40,s=30,d=8,wl=3,wr=2,sink",
    "b=1,h=3,t=25,s=25,d=8,causal",
])
def test_row_chunks_give_the_one_pass_result(shape, monkeypatch):
    cfg = parse_shape(shape)
    gen = torch.Generator().manual_seed(3)
    q = torch.randn(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, generator=gen, dtype=torch.float64)
    k = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, cfg.head_dim, generator=gen, dtype=torch.float64)
    v = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, cfg.head_dim, generator=gen, dtype=torch.float64)
    features = make_feature_inputs(cfg, 5, device="cpu")
    key_mask = torch.rand(cfg.seq_k, generator=gen) < 0.8
    whole_o, whole_lse = reference.attention_for(cfg, q, k, v, features, key_mask=key_mask)
    monkeypatch.setattr(reference, "REF_SCORE_ELEMENTS", cfg.batch * cfg.heads * (cfg.seq_k + 1) * 4)  # 4 rows a pass
    o, lse = reference.attention_for(cfg, q, k, v, features, key_mask=key_mask)
    assert torch.allclose(o, whole_o, atol=1e-12) and torch.equal(torch.isinf(lse), torch.isinf(whole_lse))
    finite = torch.isfinite(whole_lse)
    assert torch.allclose(lse[finite], whole_lse[finite], atol=1e-12)
    if cfg.topk == 0:  # GQA against K/V repeated per query head (lists are per KV head: not for top-k)
        group = cfg.heads // cfg.heads_kv
        mha_o, _ = reference.attention_for(cfg, q, k.repeat_interleave(group, 2), v.repeat_interleave(group, 2),
                                           features, key_mask=key_mask)
        assert torch.allclose(o, mha_o, atol=1e-12)
