"""attention_varlen on a CPU (fmhactl.torch.varlen, docs/torch.md): the padded layout its indices
build, its argument and value checks, and its answers and gradients against a per-sequence loop of
plain torch math, with the one op call replaced by the fp32 reference of the same contract (the
op's kernels need a GPU; tests/torch/test_varlen_gpu.py runs the op itself)."""

from __future__ import annotations

import math

import pytest
import torch

import fmhactl.torch as ft
from fmhactl.torch import varlen
from fmhactl.torch.features import resolve_window
from fmhactl.verify.reference import attention as reference


def per_sequence(q, k, v, cu_q, cu_k, *, causal, scale=None, window_left=-1, sinks=None):
    """Each sequence alone in fp32 math: (out (total_q, heads, dim), lse (heads, total_q)). Query
    j of a sequence with lq queries and lk keys sees key m iff m <= j + lk - lq (causal) and
    m >= j + lk - lq - window_left (a window)."""
    heads, dim = q.shape[1:]
    group = heads // k.shape[1]
    scale = scale if scale is not None else 1.0 / math.sqrt(dim)
    outs, lses = [], []
    for i in range(len(cu_q) - 1):
        qs = q[cu_q[i]:cu_q[i + 1]].float().transpose(0, 1)  # (heads, lq, dim)
        ks = k[cu_k[i]:cu_k[i + 1]].float().repeat_interleave(group, dim=1).transpose(0, 1)
        vs = v[cu_k[i]:cu_k[i + 1]].float().repeat_interleave(group, dim=1).transpose(0, 1)
        lq, lk = qs.shape[1], ks.shape[1]
        s = qs @ ks.transpose(-1, -2) * scale
        j, m = torch.arange(lq)[:, None], torch.arange(lk)[None, :]
        visible = torch.ones(lq, lk, dtype=torch.bool)
        if causal:
            visible &= m <= j + lk - lq
        if window_left >= 0:
            visible &= m >= j + lk - lq - window_left
        s = s.masked_fill(~visible, float("-inf"))
        if sinks is not None:
            s = torch.cat([s, sinks.float().view(heads, 1, 1).expand(heads, lq, 1)], dim=-1)
        lses.append(torch.logsumexp(s, dim=-1))
        p = torch.softmax(s, dim=-1).nan_to_num(0.0)
        if sinks is not None:
            p = p[..., :-1]
        outs.append((p @ vs).transpose(0, 1).to(q.dtype))
    return torch.cat(outs), torch.cat(lses, dim=1)


def stand_in(calls: list):
    """The one op call on the padded batch by the verify reference (fp32 math, differentiable),
    recording what it was handed."""

    def padded_attention(q, k, v, key_ranges, *, causal, scale, return_lse, window, window_left, window_right,
                         sinks, check_values):
        calls.append(dict(q=tuple(q.shape), k=tuple(k.shape), key_ranges=key_ranges.tolist(), causal=causal))
        assert key_ranges.dtype == torch.int32 and q.shape[0] == k.shape[0] == v.shape[0] == key_ranges.shape[0]
        left, right = resolve_window(window, window_left, window_right)
        out, lse = reference(q, k, v, causal=causal, scale=scale, compute_dtype=torch.float32, window_left=left,
                             window_right=right, sinks=sinks, key_ranges=key_ranges)
        return out.to(q.dtype), (lse if return_lse else None)

    return padded_attention


class _OpBackward(torch.autograd.Function):
    """The padded call with the reference's forward and the op's own autograd formula
    (fmhactl.torch.op._backward: the fp32 recompute that masks the key ranges), on a CPU."""

    @staticmethod
    def forward(ctx, q, k, v, key_ranges, causal, scale):
        ctx.save_for_backward(q, k, v)
        ctx.causal, ctx.scale, ctx.layout, ctx.return_lse = causal, scale, "bshd", True
        ctx.features, ctx.key_ranges = [], key_ranges
        return reference(q, k, v, causal=causal, scale=scale, compute_dtype=torch.float32, key_ranges=key_ranges)

    @staticmethod
    def backward(ctx, grad_out, grad_lse):
        from fmhactl.torch.op import _backward

        dq, dk, dv, *_ = _backward(ctx, grad_out, grad_lse)
        return dq, dk, dv, None, None, None


def op_backward_stand_in(q, k, v, key_ranges, *, causal, scale, return_lse, window, window_left, window_right,
                         sinks, check_values):
    out, lse = _OpBackward.apply(q, k, v, key_ranges, causal, scale)
    return out, (lse if return_lse else None)


def packed(lengths_q, lengths_k, heads=4, heads_kv=2, dim=16, seed=0, grad=False):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(sum(lengths_q), heads, dim, generator=gen)
    k, v = (torch.randn(sum(lengths_k), heads_kv, dim, generator=gen) for _ in range(2))
    cu_q = torch.tensor([0, *torch.tensor(lengths_q).cumsum(0).tolist()], dtype=torch.int32)
    cu_k = torch.tensor([0, *torch.tensor(lengths_k).cumsum(0).tolist()], dtype=torch.int32)
    return (*(t.requires_grad_(grad) for t in (q, k, v)), cu_q, cu_k)


def test_layout_places_sequences_right_aligned():
    """Sequence i's tokens end on its padded block's last row; each key range covers its keys."""
    cu_q = torch.tensor([0, 3, 3, 10], dtype=torch.int32)  # lengths 3, 0, 7
    cu_k = torch.tensor([0, 5, 6, 12], dtype=torch.int32)  # lengths 5, 1, 6
    layout = varlen.varlen_layout(cu_q, cu_k, 7, 6, 10, 12)
    assert (layout.sequences, layout.padded_q, layout.padded_k) == (3, 7, 6)
    assert layout.q_rows.tolist() == [4, 5, 6, 14, 15, 16, 17, 18, 19, 20]
    assert layout.k_rows.tolist() == [1, 2, 3, 4, 5, 11, 12, 13, 14, 15, 16, 17]
    assert layout.key_ranges.tolist() == [[1, 6], [5, 6], [0, 6]] and layout.key_ranges.dtype == torch.int32
    x = torch.arange(1, 11, dtype=torch.float32).view(10, 1, 1)
    padded = layout.pad(x, layout.q_rows, layout.padded_q)
    assert padded.shape == (3, 7, 1, 1)
    assert padded[..., 0, 0].tolist() == [[0, 0, 0, 0, 1, 2, 3], [0] * 7, [4, 5, 6, 7, 8, 9, 10]]
    assert torch.equal(layout.unpad_out(padded), x)
    lse = padded[..., 0].permute(0, 2, 1)  # (sequences, heads, padded_q)
    assert torch.equal(layout.unpad_lse(lse), x.view(1, 10))


def test_layout_without_any_key_keeps_one_empty_key_slot():
    layout = varlen.varlen_layout(torch.tensor([0, 2, 3], dtype=torch.int32), torch.zeros(3, dtype=torch.int32),
                                  2, 0, 3, 0)
    assert layout.padded_k == 1 and layout.key_ranges.tolist() == [[1, 1], [1, 1]] and layout.k_rows.numel() == 0


CASES = [  # lengths_q, lengths_k, causal
    ((5, 1, 7, 3), (5, 1, 7, 3), True),        # self-attention of packed sequences
    ((5, 1, 7, 3), (5, 1, 7, 3), False),
    ((2, 6, 1), (9, 6, 4), True),              # len_q < len_k: a cache per sequence, bottom-right
    ((6, 3, 4), (2, 3, 1), True),              # len_q > len_k: first queries of a sequence see no key
    ((0, 4, 3, 0, 2), (3, 4, 0, 2, 2), True),  # no query, no key (O = 0, LSE = -inf), both
    ((0, 4, 3, 0, 2), (3, 4, 0, 2, 2), False),
    ((3, 2), (0, 0), True),                    # no key anywhere
]


@pytest.mark.parametrize("lengths_q, lengths_k, causal", CASES)
def test_varlen_matches_each_sequence_alone(lengths_q, lengths_k, causal, monkeypatch):
    calls = []
    monkeypatch.setattr(varlen, "_padded_attention", stand_in(calls))
    q, k, v, cu_q, cu_k = packed(lengths_q, lengths_k)
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal,
                                   return_lse=True)
    want, want_lse = per_sequence(q, k, v, cu_q.tolist(), cu_k.tolist(), causal=causal)
    assert out.shape == q.shape and lse.shape == (q.shape[1], q.shape[0]) and lse.dtype == torch.float32
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(lse, want_lse, atol=1e-5, rtol=1e-5)  # -inf exactly where no key is seen
    assert len(calls) == 1, "one op call for every sequence"
    n = len(lengths_q)
    assert calls[0]["q"] == (n, max(lengths_q), 4, 16) and calls[0]["k"] == (n, max(max(lengths_k), 1), 2, 16)
    only_out = ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal)
    torch.testing.assert_close(only_out, want, atol=1e-5, rtol=1e-5)


def test_larger_max_seqlen_only_pads_more(monkeypatch):
    monkeypatch.setattr(varlen, "_padded_attention", stand_in([]))
    q, k, v, cu_q, cu_k = packed((4, 2, 5), (3, 6, 5))
    want, want_lse = per_sequence(q, k, v, cu_q.tolist(), cu_k.tolist(), causal=True, scale=0.3)
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, 11, 9, causal=True, scale=0.3, return_lse=True)
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(lse, want_lse, atol=1e-5, rtol=1e-5)


def test_window_and_sinks_are_per_sequence(monkeypatch):
    monkeypatch.setattr(varlen, "_padded_attention", stand_in([]))
    q, k, v, cu_q, cu_k = packed((5, 1, 8), (7, 1, 8))
    sinks = torch.tensor([0.5, -1.0, 2.0, 0.0])
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, 8, 8, causal=True, window=(2, 0), sinks=sinks,
                                   return_lse=True)
    want, want_lse = per_sequence(q, k, v, cu_q.tolist(), cu_k.tolist(), causal=True, window_left=2, sinks=sinks)
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(lse, want_lse, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("backward", ["reference", "op-formula"])
@pytest.mark.parametrize("lengths_q, lengths_k, causal", [CASES[0], CASES[3], CASES[4]])
def test_gradients_flow_through_scatter_and_gather(lengths_q, lengths_k, causal, backward, monkeypatch):
    """Backward through the padded call (the differentiable reference, or the op's own recompute
    formula as on a GPU) lands on the packed rows exactly as each sequence alone, the LSE's too:
    the padding rows' outputs get no gradient and the padding keys no weight."""
    monkeypatch.setattr(varlen, "_padded_attention", stand_in([]) if backward == "reference" else op_backward_stand_in)
    q, k, v, cu_q, cu_k = packed(lengths_q, lengths_k, grad=True, seed=4)
    gen = torch.Generator().manual_seed(9)
    g_out = torch.randn(q.shape, generator=gen)
    g_lse = torch.randn(q.shape[1], q.shape[0], generator=gen)
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, max(lengths_q), max(lengths_k), causal=causal,
                                   return_lse=True)
    got = torch.autograd.grad((out * g_out).sum() + (lse.nan_to_num(0.0, neginf=0.0) * g_lse).sum(), (q, k, v))
    want_out, want_lse = per_sequence(q, k, v, cu_q.tolist(), cu_k.tolist(), causal=causal)
    want = torch.autograd.grad((want_out * g_out).sum() + (want_lse.nan_to_num(0.0, neginf=0.0) * g_lse).sum(),
                               (q, k, v))
    for name, a, b in zip("qkv", got, want):
        assert torch.isfinite(a).all(), name
        torch.testing.assert_close(a, b, atol=1e-5, rtol=1e-5, msg=f"d{name}")
    assert any(bool(a.abs().sum() > 0) for a in got)


def test_empty_query_returns_empty_outputs(monkeypatch):
    monkeypatch.setattr(varlen, "_padded_attention", lambda *a, **k: pytest.fail("no call for no query"))
    q, k, v, cu_q, cu_k = packed((0, 0), (3, 2))
    out, lse = ft.attention_varlen(q, k, v, cu_q, cu_k, 0, 3, return_lse=True)
    assert out.shape == (0, 4, 16) and lse.shape == (4, 0)


def test_empty_query_still_follows_the_op_rules(monkeypatch):
    """No query means no op call, but a call the op would refuse is refused all the same (the
    integrations fuzz, session 25: it was accepted)."""
    monkeypatch.setattr(varlen, "_padded_attention", lambda *a, **k: pytest.fail("no call for no query"))
    q, k, v, cu_q, cu_k = packed((0, 0), (3, 2))
    with pytest.raises(ft.AttentionInputError, match="contradicts causal"):
        ft.attention_varlen(q, k, v, cu_q, cu_k, 0, 3, causal=True, window=(2, 1))
    with pytest.raises(ft.AttentionInputError, match="sinks must be float32"):
        ft.attention_varlen(q, k, v, cu_q, cu_k, 0, 3, sinks=torch.zeros(3))
    assert ft.attention_varlen(q, k, v, cu_q, cu_k, 0, 3, causal=True, window=(2, 0),
                               sinks=torch.zeros(4)).shape == (0, 4, 16)


def test_meta_tensors_give_the_shapes_without_a_host_read():
    """The fake path: meta tensors (no values) through the op's fake implementation."""
    meta = dict(device="meta")
    q, k = torch.empty(10, 8, 64, dtype=torch.bfloat16, **meta), torch.empty(12, 2, 64, dtype=torch.bfloat16, **meta)
    cu = torch.empty(4, dtype=torch.int32, **meta)
    out, lse = ft.attention_varlen(q, k, k, cu, cu, 7, 6, causal=True, return_lse=True)
    assert out.shape == (10, 8, 64) and out.dtype == torch.bfloat16
    assert lse.shape == (8, 10) and lse.dtype == torch.float32


def test_compiles_fullgraph_without_a_host_read(monkeypatch):
    """The index construction traces (searchsorted, index_copy, index_select): no graph break,
    and no value check inside the compiled graph."""
    monkeypatch.setattr(varlen, "_padded_attention", stand_in([]))
    monkeypatch.setattr(varlen, "check_varlen_values", lambda *a: pytest.fail("host check while compiling"))
    q, k, v, cu_q, cu_k = packed((5, 1, 7, 3), (6, 2, 7, 3))
    torch._dynamo.reset()
    try:
        compiled = torch.compile(lambda *a: ft.attention_varlen(*a, 7, 7, causal=True), fullgraph=True,
                                 backend="aot_eager")
        got = compiled(q, k, v, cu_q, cu_k)
    finally:
        torch._dynamo.reset()
    want, _ = per_sequence(q, k, v, cu_q.tolist(), cu_k.tolist(), causal=True)
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)


def _int32(*values):
    return torch.tensor(values, dtype=torch.int32)


BAD = [  # (cu_seqlens_q, cu_seqlens_k, max_q, max_k, message)
    (torch.tensor([0, 3, 7]), _int32(0, 4, 9), 4, 5, "cu_seqlens_q must be an int32 1-D tensor .* got int64 \\(3,\\)"),
    (_int32(0, 3, 7), _int32(0, 4, 9).view(1, 3), 4, 5,
     "cu_seqlens_k must be an int32 1-D tensor .* got int32 \\(1, 3\\)"),
    (_int32(0, 3, 7), [0, 4, 9], 4, 5, "cu_seqlens_k must be an int32 1-D tensor .* got list"),
    (_int32(0, 3, 7), _int32(0, 9), 4, 9,
     "cu_seqlens_q and cu_seqlens_k must describe the same number of sequences, got 2 and 1"),
    (_int32(1, 3, 7), _int32(0, 4, 9), 4, 5, "cu_seqlens_q\\[0\\] = 1; it must start at 0"),
    (_int32(0, 4, 3, 7), _int32(0, 4, 4, 9), 4, 5, "cu_seqlens_q must be non-decreasing: cu_seqlens_q\\[2\\] = 3 < "
                                                  "cu_seqlens_q\\[1\\] = 4"),
    (_int32(0, 3, 6), _int32(0, 4, 9), 4, 5, "cu_seqlens_q\\[-1\\] = 6; it must equal q.shape\\[0\\] \\(7\\)"),
    (_int32(0, 3, 7), _int32(0, 4, 10), 4, 6, "cu_seqlens_k\\[-1\\] = 10; it must equal k.shape\\[0\\] \\(9\\)"),
    (_int32(0, 3, 7), _int32(0, 4, 9), 3, 5, "sequence 1 has 4 queries > max_seqlen_q \\(3\\)"),
    (_int32(0, 3, 7), _int32(0, 4, 9), 4, 4, "sequence 1 has 5 keys > max_seqlen_k \\(4\\)"),
    (_int32(0, 3, 7), _int32(0, 4, 9), -1, 5, "max_seqlen_q must be an int >= 0, got -1"),
    (_int32(0, 3, 7), _int32(0, 4, 9), 4, 5.0, "max_seqlen_k must be an int >= 0, got 5.0"),
]


@pytest.mark.parametrize("cu_q, cu_k, max_q, max_k, message", BAD)
def test_bad_boundaries_give_one_line(cu_q, cu_k, max_q, max_k, message, monkeypatch):
    monkeypatch.setattr(varlen, "_padded_attention", lambda *a, **k: pytest.fail("a bad call reached the op"))
    q, k = torch.randn(7, 4, 16), torch.randn(9, 2, 16)
    with pytest.raises(ft.AttentionInputError, match="^fmhactl.attention_varlen: " + message):
        ft.attention_varlen(q, k, k, cu_q, cu_k, max_q, max_k)


def test_bad_shapes_and_devices_give_one_line():
    q, k = torch.randn(7, 4, 16), torch.randn(9, 2, 16)
    cu_q, cu_k = _int32(0, 3, 7), _int32(0, 4, 9)
    with pytest.raises(ft.AttentionInputError, match="q must be 3-D \\(total, heads, dim\\)"):
        ft.attention_varlen(q[None], k, k, cu_q, cu_k, 4, 5)
    with pytest.raises(ft.AttentionInputError, match="k and v must have the same shape"):
        ft.attention_varlen(q, k, k[:, :1], cu_q, cu_k, 4, 5)
    with pytest.raises(ft.AttentionInputError, match="cu_seqlens_k is on meta, q on cpu"):
        ft.attention_varlen(q, k, k, cu_q, cu_k.to("meta"), 4, 5)


def test_without_value_checks_nothing_is_read_and_the_op_rules_still_apply():
    """check_values=False skips the host read; a CPU tensor then meets the op's own rule (the
    kernels need CUDA tensors), as ft.attention does."""
    q, k = torch.randn(7, 4, 16, dtype=torch.bfloat16), torch.randn(9, 2, 16, dtype=torch.bfloat16)
    with pytest.raises(ft.AttentionInputError, match="^fmhactl.attention: q is on cpu"):
        ft.attention_varlen(q, k, k, _int32(0, 3, 7), _int32(0, 4, 9), 4, 5, check_values=False)
