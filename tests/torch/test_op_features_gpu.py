"""The op with each attention feature on the GPU against the reference (docs/features.md), which
kernel served it, opcheck with features, and the dsv4 model's fmhactl path vs SDPA on a small config."""

from __future__ import annotations

import pytest
import torch

pytestmark = pytest.mark.gpu

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import fmhactl.torch as ft  # noqa: E402
from fmhactl.verify.reference import attention as reference  # noqa: E402

CASES = {  # name: (head_dim, heads, heads_kv, seq_q, seq_k, window, sink, topk, kv_shared)
    "window-d128": (128, 8, 1, 200, 200, (127, 0), False, 0, False),
    "window-sink-kv-d128": (128, 8, 1, 200, 200, (127, 0), True, 0, True),
    "window-sink-d64-gqa": (64, 8, 2, 100, 300, (31, 0), True, 0, False),
    "topk-d512": (512, 16, 1, 3, 700, (-1, 0), True, 64, True),
    "topk-window-d512": (512, 64, 1, 1, 2000, (127, 0), True, 512, True),
    "window-sink-d512-prefill": (512, 64, 1, 300, 300, (127, 0), True, 0, True),
}


def _inputs(d, h, hkv, t, s, sink, topk, kv_shared, seed=0, batch=1):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(batch, t, h, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    k = torch.randn(batch, s, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    v = k if kv_shared else torch.randn(batch, s, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    sinks = (torch.rand(h, device="cuda", generator=gen) * 6 - 2) if sink else None
    idx = torch.randint(-1, s, (batch, t, hkv, topk), device="cuda", dtype=torch.int32, generator=gen) if topk else None
    return q, k, v, sinks, idx


# DeepSeek-V4 decode at a batch the op runs on sm90_mqa_decode (fmhactl.torch.backends.preferences)
BATCHED = {"topk-window-d512-b64": ("topk-window-d512", 64), "window-d512-b64": ("window-sink-d512-prefill", 64)}


def _case(name):
    """(head_dim, heads, heads_kv, seq_q, seq_k, window, sink, topk, kv_shared), batch"""
    if name in BATCHED:
        base, batch = BATCHED[name]
        d, h, hkv, t, s, window, sink, topk, kv_shared = CASES[base]
        return (d, h, hkv, 1, s, window, sink, topk, kv_shared), batch
    return CASES[name], 1


@pytest.mark.parametrize("name", list(CASES) + list(BATCHED))
def test_feature_matches_reference(name):
    (d, h, hkv, t, s, window, sink, topk, kv_shared), batch = _case(name)
    q, k, v, sinks, idx = _inputs(d, h, hkv, t, s, sink, topk, kv_shared, batch=batch)
    backend = ft.backend_for(q, k, v, causal=True, layout="bshd", window=window, sinks=sinks, topk_idx=idx,
                             kv_shared=kv_shared)
    print(f"{name}: {backend}")
    out, lse = ft.attention(q, k, v, causal=True, layout="bshd", window=window, sinks=sinks, topk_idx=idx,
                            kv_shared=kv_shared, return_lse=True)
    want, want_lse = reference(q, k, v, causal=True, compute_dtype=torch.float32, window_left=window[0],
                               window_right=window[1], sinks=sinks, topk_idx=idx)
    low, _ = reference(q, k, v, causal=True, compute_dtype=torch.bfloat16, window_left=window[0],
                       window_right=window[1], sinks=sinks, topk_idx=idx)
    err, low_err = float((out.float() - want).abs().max()), float((low.float() - want).abs().max())
    assert err <= 2 * low_err + 1e-3, f"{name} on {backend.variant}: max |O err| {err} vs bf16 ref {low_err}"
    lse_ok = ((lse - want_lse).abs() < 1e-3) | (lse == want_lse)
    assert bool(lse_ok.all()), f"{name}: LSE differs"
    if torch.cuda.get_device_capability()[0] == 9:
        assert backend.mode == "native", f"{name}: {backend}"
        if name in BATCHED:
            assert backend.variant == "sm90_mqa_decode", f"{name}: {backend}"


def test_opcheck_with_features():
    d, h, hkv, t, s, window, sink, topk, kv_shared = CASES["topk-window-d512"]
    q, k, v, sinks, idx = _inputs(d, h, hkv, t, s, sink, topk, kv_shared)
    torch.library.opcheck(torch.ops.fmhactl.attention.default, (q, k, k, sinks, idx),
                          {"causal": True, "layout": "bshd", "window_left": 127, "window_right": 0,
                           "kv_shared": True, "return_lse": True}, test_utils=("test_schema", "test_faketensor"))


def test_dsv4_small_model_matches_sdpa():
    from fmhactl.bench import dsv4

    spec = dsv4.Dsv4Spec(name="dsv4-small", hidden_size=512, num_hidden_layers=2, max_position_embeddings=4096)
    model = dsv4.build_model(spec, torch.bfloat16, "cuda", 0)
    ids = torch.randint(0, spec.vocab_size, (1, 1100), device="cuda")
    with torch.inference_mode():
        model.impl = "sdpa"
        a = model(ids).logits.float()
        model.impl = "fmhactl"
        b = model(ids).logits.float()
    assert float((a - b).abs().max()) < 0.25 * float(a.abs().max())
