"""The torch reference's feature rules (docs/features.md) against a per-row loop written here:
window, sinks, top-k (duplicates twice, -1 and out-of-range skipped, causal/window still apply),
K = V. (tests/verify/test_verify_job_lse.py: verify passes a kernel that honours them and fails
one that drops one.)"""

import math

import pytest

torch = pytest.importorskip("torch")

from fmhactl.config import AttnConfig, parse_shape  # noqa: E402
from fmhactl.runtime.features import make_feature_inputs  # noqa: E402
from fmhactl.verify.reference import attention, attention_for, visibility_mask  # noqa: E402


def loop_attention(cfg: AttnConfig, q, k, v, sinks=None, topk_idx=None):
    """One row at a time in fp64: the keys the row sees as a Python list (a top-k entry once per
    listing), then softmax with the sink's exp in the denominator only."""
    b_, t_, h_, d_ = q.shape
    group = cfg.heads // cfg.heads_kv
    off = cfg.seq_k - cfg.seq_q
    out = torch.zeros(b_, t_, h_, d_, dtype=torch.float64)
    lse = torch.full((b_, h_, t_), float("-inf"), dtype=torch.float64)
    for b in range(b_):
        for h in range(h_):
            hk = h // group
            for i in range(t_):
                def sees(j: int) -> bool:
                    if cfg.causal and j > i + off:
                        return False
                    if cfg.window_right >= 0 and j > i + off + cfg.window_right:
                        return False
                    return not (cfg.window_left >= 0 and j < i + off - cfg.window_left)
                if topk_idx is None:
                    keys = [j for j in range(cfg.seq_k) if sees(j)]
                else:
                    keys = [int(j) for j in topk_idx[b, i, hk] if 0 <= int(j) < cfg.seq_k and sees(int(j))]
                logits = [float(q[b, i, h].double() @ k[b, j, hk].double()) / math.sqrt(d_) for j in keys]
                terms = list(logits) + ([float(sinks[h])] if sinks is not None else [])
                finite = [x for x in terms if x != float("-inf")]
                if not finite:
                    continue
                m = max(finite)
                denom = sum(math.exp(x - m) for x in finite)
                lse[b, h, i] = m + math.log(denom)
                for j, s in zip(keys, logits):
                    out[b, i, h] += math.exp(s - m) / denom * v[b, j, hk].double()
    return out, lse


SHAPES = [
    "b=1,h=2,t=9,s=13,d=8,wl=3,wr=2",
    "b=1,h=2,t=9,s=13,d=8,wl=0,wr=0",  # the diagonal key only
    "b=1,h=3,hkv=1,t=12,s=7,d=8,wl=2,causal,sink",  # T > S: rows with no key
    "b=2,h=4,hkv=2,t=6,s=20,d=8,causal,wl=4,sink,kvshared",
    "b=1,h=3,hkv=1,t=5,s=11,d=8,topk=9,sink",
    "b=1,h=2,hkv=1,t=7,s=6,d=8,topk=14,causal,wl=2",  # k > s: duplicates for sure
]


def _inputs(cfg: AttnConfig, seed: int = 3):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, generator=gen, dtype=torch.float64)
    k = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, cfg.head_dim, generator=gen, dtype=torch.float64)
    v = k if cfg.kv_shared else torch.randn(k.shape, generator=gen, dtype=torch.float64)
    return q, k, v


@pytest.mark.parametrize("shape", SHAPES)
def test_reference_matches_the_per_row_loop(shape):
    cfg = parse_shape(shape)
    q, k, v = _inputs(cfg)
    feats = make_feature_inputs(cfg, seed=5, device="cpu")
    out, lse = attention_for(cfg, q, k, v, feats, compute_dtype=torch.float64)
    want_out, want_lse = loop_attention(cfg, q, k, v, feats.sinks if cfg.sink else None,
                                        feats.topk_idx if cfg.topk else None)
    assert torch.allclose(out, want_out, atol=1e-12)
    assert torch.equal(torch.isneginf(lse), torch.isneginf(want_lse))
    finite = torch.isfinite(want_lse)
    assert torch.allclose(lse[finite], want_lse[finite], atol=1e-12)


def test_window_mask_is_bottom_right_aligned_and_causal_caps_the_right_side():
    mask = visibility_mask(3, 5, False, "cpu", window_left=1, window_right=0)
    assert mask.int().tolist() == [[0, 1, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 1, 1]]
    assert torch.equal(visibility_mask(4, 4, True, "cpu", window_right=-1), visibility_mask(4, 4, False, "cpu", -1, 0))
    assert torch.equal(visibility_mask(4, 9, True, "cpu", window_left=100), visibility_mask(4, 9, True, "cpu"))


def test_a_sink_joins_the_denominator_only_and_minus_inf_is_no_sink():
    cfg = parse_shape("b=1,h=2,t=4,s=6,d=8")
    q, k, v = _inputs(cfg)
    plain, plain_lse = attention(q, k, v, causal=False, compute_dtype=torch.float64)
    sinks = torch.tensor([float("-inf"), 1.5])
    out, lse = attention(q, k, v, causal=False, compute_dtype=torch.float64, sinks=sinks)
    assert torch.allclose(out[:, :, 0], plain[:, :, 0]) and torch.equal(lse[:, 0], plain_lse[:, 0])
    expected_lse = torch.logaddexp(plain_lse[:, 1], torch.tensor(1.5, dtype=torch.float64))
    assert torch.allclose(lse[:, 1], expected_lse)
    # out shrinks by sum / (sum + e^sink) = exp(plain_lse - lse)
    shrink = torch.exp(plain_lse[:, 1] - lse[:, 1]).permute(1, 0).unsqueeze(-1)
    assert torch.allclose(out[0, :, 1], plain[0, :, 1] * shrink[:, 0])


def test_a_row_with_no_key_gives_zero_and_the_sink_or_minus_inf():
    cfg = parse_shape("b=1,h=2,t=6,s=3,d=8,causal")  # rows 0-2 see no key
    q, k, v = _inputs(cfg)
    sinks = torch.tensor([float("-inf"), 0.25])
    out, lse = attention(q, k, v, causal=True, compute_dtype=torch.float64, sinks=sinks)
    assert bool((out[0, :3] == 0).all())
    assert bool(torch.isneginf(lse[0, 0, :3]).all()) and torch.equal(lse[0, 1, :3], torch.full((3,), 0.25).double())


def test_topk_duplicates_count_twice_and_bad_entries_are_skipped():
    cfg = parse_shape("b=1,h=1,t=1,s=4,d=8,topk=4")
    q, k, v = _inputs(cfg)
    twice = torch.tensor([[[[2, 2, -1, 9]]]], dtype=torch.int32)  # 9 >= s_k: skipped like -1
    once = torch.tensor([[[[2, -1, -5, 1]]]], dtype=torch.int32)
    out2, lse2 = attention(q, k, v, causal=False, compute_dtype=torch.float64, topk_idx=twice)
    out1, lse1 = attention(q, k, v, causal=False, compute_dtype=torch.float64, topk_idx=once[..., :2])
    assert torch.allclose(out2, v[:, 2:3].double())  # one key (listed twice): its V
    s2 = float(q[0, 0, 0].double() @ k[0, 2, 0].double()) / math.sqrt(8)
    assert math.isclose(float(lse2[0, 0, 0]), s2 + math.log(2), rel_tol=1e-12)
    assert math.isclose(float(lse1[0, 0, 0]), s2, rel_tol=1e-12)
    empty = torch.full((1, 1, 1, 4), -1, dtype=torch.int32)
    out0, lse0 = attention(q, k, v, causal=False, compute_dtype=torch.float64, topk_idx=empty)
    assert bool((out0 == 0).all()) and bool(torch.isneginf(lse0).all())


def test_generated_feature_inputs_cover_every_rule():
    cfg = parse_shape("b=2,h=4,hkv=1,t=40,s=50,d=8,topk=64,sink")
    feats = make_feature_inputs(cfg, seed=11, device="cpu")
    assert bool(torch.isneginf(feats.sinks[0])) and float(feats.sinks[1]) == 20.0
    idx = feats.topk_idx
    assert idx.dtype == torch.int32 and tuple(idx.shape) == (2, 40, 1, 64)
    assert bool((idx[:, 0] == -1).all())  # an empty row
    assert bool((idx >= cfg.seq_k).any()) and bool((idx < -1).any()) and bool((idx == -1).any())
    row = idx[0, 5, 0]
    valid = row[(row >= 0) & (row < cfg.seq_k)]
    assert valid.unique().numel() < valid.numel()  # duplicates
    again = make_feature_inputs(cfg, seed=11, device="cpu")
    assert torch.equal(again.topk_idx, idx)


def test_a_decode_step_keeps_its_top_k_list():
    """seq_q 1 (dsv4-long's top-k decode): the one row is not the planted empty row."""
    cfg = parse_shape("b=2,h=4,hkv=1,t=1,s=500,d=8,topk=64")
    idx = make_feature_inputs(cfg, seed=27, device="cpu").topk_idx
    assert bool(((idx >= 0) & (idx < cfg.seq_k)).sum(-1).min() > 32)
