"""attention_varlen on the GPU (fmhactl.torch.varlen, docs/torch.md): out and LSE against a
per-sequence loop (fp32/fp64 explicit math, SDPA in the input dtype) under FlashAttention's rule
for uneven lengths with empty sequences, causal or not, GQA, hd 64/128, bf16/fp16; one op launch
per call on Hopper; gradients against the fp64 loop; the window and sinks per sequence; a compiled
call; and a small random Llama on packed position_ids against SDPA with no fallback."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.gpu

LENGTHS = {  # name: (lengths_q, lengths_k)
    "self": ((0, 1, 17, 130, 64, 3, 200, 0, 77), (0, 1, 17, 130, 64, 3, 200, 0, 77)),
    "cross": ((5, 0, 90, 33, 128, 1), (70, 9, 0, 300, 64, 1)),  # len_q > len_k, no key, no query, T = 1
}


def _packed(lengths_q, lengths_k, heads, heads_kv, dim, dtype, seed=0, grad=False):
    import torch

    gen = torch.Generator(device="cuda").manual_seed(seed)

    def draw(total, h):
        return torch.randn(total, h, dim, generator=gen, device="cuda").to(dtype).requires_grad_(grad)

    q, k, v = draw(sum(lengths_q), heads), draw(sum(lengths_k), heads_kv), draw(sum(lengths_k), heads_kv)
    cu_q = torch.tensor([0, *torch.tensor(lengths_q).cumsum(0).tolist()], dtype=torch.int32, device="cuda")
    cu_k = torch.tensor([0, *torch.tensor(lengths_k).cumsum(0).tolist()], dtype=torch.int32, device="cuda")
    return q, k, v, cu_q, cu_k


def _bottom_right(lq: int, lk: int, device):
    import torch

    return torch.arange(lk, device=device)[None, :] <= torch.arange(lq, device=device)[:, None] + (lk - lq)


def _sdpa_sequence(q, k, v, causal: bool, scale):
    """One sequence (len, heads, dim) by SDPA in the input dtype, bottom-right causal as a mask."""
    import torch

    lq, lk = q.shape[0], k.shape[0]
    if lk == 0:
        return torch.zeros_like(q)
    group = q.shape[1] // k.shape[1]
    qh, kh, vh = q.transpose(0, 1)[None], k.transpose(0, 1)[None], v.transpose(0, 1)[None]
    kh, vh = kh.repeat_interleave(group, dim=1), vh.repeat_interleave(group, dim=1)
    mask = _bottom_right(lq, lk, q.device) if causal else None
    out = torch.nn.functional.scaled_dot_product_attention(qh, kh, vh, attn_mask=mask, scale=scale)
    return out[0].transpose(0, 1).nan_to_num(0.0)  # rows without a key: SDPA's NaN is the op's 0


def per_sequence(q, k, v, cu_q, cu_k, causal: bool, dtype, *, sdpa=False, scale=None, window_left=-1, sinks=None):
    """(out (total_q, heads, dim), lse (heads, total_q)) one sequence at a time: the verify reference
    in `dtype`, or SDPA (out only) in the input dtype."""
    import torch

    from fmhactl.verify.reference import attention as reference

    outs, lses = [], []
    for a, b, c, d in zip(cu_q[:-1], cu_q[1:], cu_k[:-1], cu_k[1:]):
        if a == b:
            continue  # no query: nothing to contribute
        qs, ks, vs = q[a:b], k[c:d], v[c:d]
        if sdpa:
            outs.append(_sdpa_sequence(qs, ks, vs, causal, scale))
            continue
        out, lse = reference(qs[None], ks[None], vs[None], causal=causal, scale=scale, compute_dtype=dtype,
                             window_left=window_left, sinks=sinks)
        outs.append(out[0])
        lses.append(lse[0])
    return torch.cat(outs), (None if sdpa else torch.cat(lses, dim=1))


@pytest.mark.parametrize("lengths", list(LENGTHS))
@pytest.mark.parametrize("causal", [True, False], ids=["causal", "full"])
@pytest.mark.parametrize("heads, heads_kv, dim, dtype", [(8, 2, 64, "bfloat16"), (4, 4, 128, "float16"),
                                                         (8, 1, 128, "bfloat16")])
def test_varlen_matches_each_sequence_alone(lengths, causal, heads, heads_kv, dim, dtype):
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch.checks import _rule, lse_rule

    lengths_q, lengths_k = LENGTHS[lengths]
    q, k, v, cu_q, cu_k = _packed(lengths_q, lengths_k, heads, heads_kv, dim, getattr(torch, dtype), seed=dim)
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal,
                                   return_lse=True)
    assert out.shape == q.shape and out.dtype == q.dtype and lse.shape == (heads, q.shape[0])
    cq, ck = cu_q.tolist(), cu_k.tolist()
    ref32, lse32 = per_sequence(q, k, v, cq, ck, causal, torch.float32)
    _, lse64 = per_sequence(q, k, v, cq, ck, causal, torch.float64)
    low, _ = per_sequence(q, k, v, cq, ck, causal, None, sdpa=True)
    rule = lse_rule(_rule(out, ref32, low), lse, lse32, lse64)
    assert rule["passed"], json.dumps(rule)
    if lengths == "cross":  # sequence 2 has queries and no key: O = 0, LSE = -inf
        rows = slice(cq[2], cq[3])
        assert bool((out[rows] == 0).all()) and bool((lse[:, rows] == float("-inf")).all())


def test_one_launch_per_call_on_hopper():
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode, fastpath

    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("key ranges run natively on the SM90 feature kernels")
    lengths_q, lengths_k = LENGTHS["self"]
    q, k, v, cu_q, cu_k = _packed(lengths_q, lengths_k, 8, 2, 128, torch.bfloat16)
    n = len(lengths_q)
    padded_q = torch.empty(n, max(lengths_q), 8, 128, dtype=torch.bfloat16, device="cuda")
    padded_k, padded_v = (torch.empty(n, max(lengths_k), 2, 128, dtype=torch.bfloat16, device="cuda")
                          for _ in range(2))
    ranges = torch.zeros(n, 2, dtype=torch.int32, device="cuda")
    assert ft.backend_for(padded_q, padded_k, padded_v, causal=True, layout="bshd",
                          key_ranges=ranges).variant.endswith("_feat")
    ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=True)  # builds the plan
    before, decodes = fastpath.status()["plan_launches"], decode.launches()
    ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=True, check_values=False)
    assert fastpath.status()["plan_launches"] == before + 1 and decode.launches() == decodes


@pytest.mark.parametrize("lengths, causal", [("self", True), ("cross", True), ("self", False)])
def test_gradients_match_each_sequence_alone(lengths, causal):
    """The op's fp32 recompute backward through the scatter and gather, O's and the LSE's gradient,
    against the fp64 loop: max error <= 2% of the largest gradient (fmhactl.torch.checks' rule)."""
    import torch

    import fmhactl.torch as ft

    lengths_q, lengths_k = LENGTHS[lengths]
    q, k, v, cu_q, cu_k = _packed(lengths_q, lengths_k, 8, 2, 64, torch.bfloat16, seed=3, grad=True)
    gen = torch.Generator(device="cuda").manual_seed(4)
    g_out = torch.randn(q.shape, generator=gen, device="cuda").to(q.dtype)
    g_lse = torch.randn(8, q.shape[0], generator=gen, device="cuda")
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal,
                                   return_lse=True)
    finite = torch.isfinite(lse.detach())
    loss = (out.float() * g_out.float()).sum() + (lse * g_lse).where(finite, torch.zeros_like(lse)).sum()
    grads = torch.autograd.grad(loss, (q, k, v))
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    want_out, want_lse = per_sequence(q64, k64, v64, cu_q.tolist(), cu_k.tolist(), causal, torch.float64)
    want_loss = (want_out * g_out.double()).sum() + (want_lse * g_lse.double()).where(finite, 0.0).sum()
    want = torch.autograd.grad(want_loss, (q64, k64, v64))
    for name, got, ref in zip("qkv", grads, want):
        assert got.dtype == torch.bfloat16 and got.shape == ref.shape
        err, top = float((got.double() - ref).abs().max()), float(ref.abs().max())
        assert torch.isfinite(got).all() and err <= 0.02 * max(top, 1.0), f"d{name}: {err} vs max {top}"


def test_window_and_sinks_per_sequence():
    import torch

    import fmhactl.torch as ft

    lengths_q, lengths_k = LENGTHS["self"]
    q, k, v, cu_q, cu_k = _packed(lengths_q, lengths_k, 8, 2, 128, torch.bfloat16, seed=7)
    sinks = torch.linspace(-2.0, 3.0, 8, device="cuda")
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=True,
                                   window=(31, 0), sinks=sinks, return_lse=True)
    cq, ck = cu_q.tolist(), cu_k.tolist()
    want, want_lse = per_sequence(q, k, v, cq, ck, True, torch.float32, window_left=31, sinks=sinks)
    low, _ = per_sequence(q, k, v, cq, ck, True, torch.bfloat16, window_left=31, sinks=sinks)
    err, low_err = float((out.float() - want).abs().max()), float((low.float() - want).abs().max())
    assert err <= 2 * low_err + 1e-3, f"max |O err| {err} vs bf16 reference {low_err}"
    assert bool((((lse - want_lse).abs() < 1e-3) | (lse == want_lse)).all()), "LSE differs"


def test_compiled_call_matches_eager():
    import torch

    import fmhactl.torch as ft

    lengths_q, lengths_k = LENGTHS["cross"]
    q, k, v, cu_q, cu_k = _packed(lengths_q, lengths_k, 8, 2, 64, torch.bfloat16, seed=9)
    max_q, max_k = max(lengths_q), max(lengths_k)
    eager = ft.attention_varlen(q, k, v, cu_q, cu_k, max_q, max_k, causal=True)
    torch._dynamo.reset()
    try:
        compiled = torch.compile(lambda *a: ft.attention_varlen(*a, max_q, max_k, causal=True), fullgraph=True)
        got = compiled(q, k, v, cu_q, cu_k)
    finally:
        torch._dynamo.reset()
    torch.testing.assert_close(got, eager)  # the same kernel on the same padded batch


def test_packed_llama_logits_match_sdpa_without_fallback(monkeypatch):
    """llama-small (bf16) on two rows of packed sequences: logits within FlashAttention's rule of
    the fp32 model, every layer one varlen call, no SDPA fallback."""
    pytest.importorskip("transformers")
    import torch

    from fmhactl.torch import hf, varlen
    from fmhactl.torch.checks import _models, _rule

    calls = []
    original = varlen._padded_attention

    def counted(*args, **kwargs):
        calls.append(args[0].shape[:2])
        return original(*args, **kwargs)

    monkeypatch.setattr(varlen, "_padded_attention", counted)
    spec, models, ref32_model = _models()
    positions = torch.tensor([[*range(100), *range(250), *range(34)], [*range(384)]], device="cuda")
    positions[1, 200:] = torch.arange(184, device="cuda")  # row 2: 200 + 184 tokens
    gen = torch.Generator(device="cuda").manual_seed(12)
    ids = torch.randint(0, spec.vocab_size, positions.shape, generator=gen, device="cuda")
    before = sum(hf.fallbacks().values())
    with torch.no_grad():
        ours = models["fmhactl"](ids, position_ids=positions, use_cache=False).logits.float()
        low = models["sdpa"](ids, position_ids=positions, use_cache=False).logits.float()
        ref32 = ref32_model(ids, position_ids=positions, use_cache=False).logits.float()
    rule = _rule(ours, ref32, low)
    assert rule["passed"], json.dumps(rule)
    assert calls == [(5, 250)] * spec.num_hidden_layers, calls
    assert sum(hf.fallbacks().values()) == before
