"""The op's attention features on the CPU: argument rules, the fake, the torch fallback's math,
the backend choice (docs/torch.md, docs/features.md)."""

from __future__ import annotations

import pytest
import torch

import fmhactl.torch as ft
from fmhactl.config import AttnConfig
from fmhactl.torch import backends
from fmhactl.torch.features import Features, fallback
from fmhactl.torch.launch import registry
from fmhactl.torch.op import attention_op
from fmhactl.verify.reference import attention as reference


def meta(*shape, dtype=torch.bfloat16):
    return torch.empty(*shape, dtype=dtype, device="meta")


SINKS = meta(8, dtype=torch.float32)
TOPK = meta(1, 5, 2, 16, dtype=torch.int32)


def test_fake_with_every_feature():
    q, k = meta(1, 5, 8, 64), meta(1, 9, 2, 64)
    out, lse = attention_op(q, k, k, SINKS, TOPK, causal=True, layout="bshd", window_left=127, window_right=0,
                            kv_shared=True, return_lse=True)
    assert out.shape == (1, 5, 8, 64) and lse.shape == (1, 8, 5) and lse.dtype == torch.float32


@pytest.mark.parametrize("kwargs,rule", [
    (dict(sinks=meta(7, dtype=torch.float32)), "sinks must be float32 of shape \\(8,\\)"),
    (dict(sinks=meta(8, dtype=torch.bfloat16)), "sinks must be float32"),
    (dict(topk_idx=meta(1, 5, 2, 16, dtype=torch.int64)), "topk_idx must be int32"),
    (dict(topk_idx=meta(1, 4, 2, 16, dtype=torch.int32)), "topk_idx must be int32 \\(batch, seq_q, heads_kv, topk\\)"),
    (dict(window=(-2, 0)), "window_left must be -1 \\(unbounded\\) or from 0 to 2147483647"),
    # past int32 the kernels' window fields would wrap: one line, not the CLI's BadInput from deeper down
    (dict(window=(2**40, 0)), "window_left must be -1 \\(unbounded\\) or from 0 to 2147483647, got 1099511627776"),
    (dict(window_right=2**31), "window_right must be"),
    (dict(window=(3, 2), causal=True), "contradicts causal"),
    (dict(window=(3,)), "window must be a pair"),
    (dict(window=(3, 0), window_left=2), "not both"),
])
def test_bad_feature_arguments_give_one_line(kwargs, rule):
    q, k = meta(1, 5, 8, 64), meta(1, 9, 2, 64)
    with pytest.raises(ft.AttentionInputError, match=rule):
        ft.attention(q, k, k, layout="bshd", **kwargs)


def test_kv_shared_needs_one_buffer():
    q, k = torch.zeros(1, 5, 8, 64, dtype=torch.bfloat16), torch.zeros(1, 9, 2, 64, dtype=torch.bfloat16)
    from fmhactl.torch.features import check_features, check_one_buffer, make
    from fmhactl.torch.inputs import Problem

    p = Problem(1, 8, 2, 5, 9, 64)
    check_features(make(k, k, -1, -1, None, None, True), p, q, k, k, False, "bshd")
    check_one_buffer(make(k, k, -1, -1, None, None, True), k, k)
    # the op reads V from K and checks shapes only (opcheck hands it copies); the eager wrapper
    # insists on one buffer
    copy = k.clone()
    check_features(make(k, copy, -1, -1, None, None, True), p, q, k, copy, False, "bshd")
    with pytest.raises(ft.AttentionInputError, match="kv_shared=True needs v to be k"):
        check_one_buffer(make(k, copy, -1, -1, None, None, True), k, copy)
    with pytest.raises(ft.AttentionInputError, match="kv_shared=True needs v shaped like k"):
        check_features(make(k, k[:, :4], -1, -1, None, None, True), p, q, k, k[:, :4], False, "bshd")
    assert make(k, k, 3, 0, None, None, False).kv_shared  # v is k with a feature: K = V
    assert not make(k, k, -1, -1, None, None, False).any  # a plain call stays plain


def test_value_checks_are_the_hosts():
    from fmhactl.torch.features import check_values
    from fmhactl.torch.inputs import Problem

    p = Problem(1, 4, 1, 3, 10, 64)
    with pytest.raises(ft.AttentionInputError, match="sinks\\[2\\] is nan"):
        check_values(Features(sinks=torch.tensor([0.0, 1.0, float("nan"), float("-inf")])), p)
    idx = torch.full((1, 3, 1, 4), -1, dtype=torch.int32)
    idx[0, 1, 0, 2] = 10
    with pytest.raises(ft.AttentionInputError, match="topk_idx\\[0,1,0,2\\] = 10"):
        check_values(Features(topk_idx=idx), p)


def test_features_have_no_backward():
    from types import SimpleNamespace

    from fmhactl.torch.op import _backward, _setup_context

    ctx = SimpleNamespace(save_for_backward=lambda *t: None)
    _setup_context(ctx, (None, None, None, SINKS, None), {"window_left": 127}, None)
    with pytest.raises(NotImplementedError, match="no backward with window_left, sinks"):
        _backward(ctx, None, None)


RANGES = meta(1, 2, dtype=torch.int32)


def test_fake_with_key_ranges():
    q, k = meta(1, 5, 8, 64), meta(1, 9, 2, 64)
    out, lse = attention_op(q, k, meta(1, 9, 2, 64), None, None, RANGES, causal=True, layout="bshd", return_lse=True)
    assert out.shape == (1, 5, 8, 64) and lse.shape == (1, 8, 5)


@pytest.mark.parametrize("ranges,rule", [
    (meta(1, 2, dtype=torch.int64), "key_ranges must be int32 of shape \\(1, 2\\)"),
    (meta(2, 2, dtype=torch.int32), "key_ranges must be int32 of shape \\(1, 2\\)"),
    (meta(1, 3, dtype=torch.int32), "got int32 \\(1, 3\\)"),
])
def test_bad_key_ranges_give_one_line(ranges, rule):
    q, k = meta(1, 5, 8, 64), meta(1, 9, 2, 64)
    with pytest.raises(ft.AttentionInputError, match=rule):
        ft.attention(q, k, meta(1, 9, 2, 64), layout="bshd", key_ranges=ranges)


@pytest.mark.parametrize("pair,shown", [((3, 2), "\\[3, 2\\)"), ((-1, 4), "\\[-1, 4\\)"), ((0, 11), "\\[0, 11\\)")])
def test_key_range_values_are_checked(pair, shown):
    from fmhactl.torch.features import check_values
    from fmhactl.torch.inputs import Problem

    ranges = torch.tensor([[0, 10], list(pair)], dtype=torch.int32)
    with pytest.raises(ft.AttentionInputError, match=f"key_ranges\\[1\\] = {shown}.*0 <= start <= end <= seq_k \\(10\\)"):
        check_values(Features(key_ranges=ranges), Problem(2, 4, 1, 3, 10, 64))
    check_values(Features(key_ranges=torch.tensor([[0, 10], [5, 5]], dtype=torch.int32)), Problem(2, 4, 1, 3, 10, 64))


def _rowwise(q, k, v, ranges, causal):
    """Each batch row on its own keys, causal bottom-right aligned to the whole sequence (the
    key_ranges rule), in fp64: its keys keep their positions (the others are masked)."""
    outs = []
    for b, (start, end) in enumerate(ranges.tolist()):
        keep = torch.zeros(k.shape[1], dtype=torch.bool)
        keep[start:end] = True
        out, _ = reference(q[b:b + 1], k[b:b + 1], v[b:b + 1], causal=causal, compute_dtype=torch.float64,
                           key_mask=keep)
        outs.append(out)
    return torch.cat(outs)


@pytest.mark.parametrize("causal", [False, True])
def test_fallback_and_reference_apply_key_ranges(causal):
    torch.manual_seed(1)
    b, t, s, h, hkv, d = 4, 7, 23, 4, 2, 32
    q = torch.randn(b, t, h, d, dtype=torch.bfloat16)
    k, v = torch.randn(b, s, hkv, d, dtype=torch.bfloat16), torch.randn(b, s, hkv, d, dtype=torch.bfloat16)
    ranges = torch.tensor([[0, s], [9, 9], [3, 20], [17, s]], dtype=torch.int32)
    out, lse = fallback(q, k, v, Features(key_ranges=ranges), causal, None, "bshd")
    want = _rowwise(q, k, v, ranges, causal)
    assert torch.allclose(out.float(), want.float(), atol=1e-2)
    assert bool((out[1] == 0).all()) and bool((lse[1] == float("-inf")).all())  # the empty row: O = 0, LSE = -inf
    if causal:  # offset S - T = 16: query i sees keys <= 16 + i, so row 3 ([17, 23)) starts at i = 1
        assert bool((out[3, 0] == 0).all()) and bool((out[3, 1] != 0).any())


def test_key_ranges_have_the_recompute_backward():
    """key_ranges alone keeps the op's fp32 backward (a padded batch in training): it masks the
    same keys, so the gradients are those of the masked reference."""
    from types import SimpleNamespace

    from fmhactl.torch.op import _backward, _setup_context

    torch.manual_seed(2)
    b, t, s, h, hkv, d = 2, 5, 9, 4, 2, 16
    q = torch.randn(b, t, h, d, dtype=torch.float64)
    k, v = torch.randn(b, s, hkv, d, dtype=torch.float64), torch.randn(b, s, hkv, d, dtype=torch.float64)
    ranges = torch.tensor([[2, 9], [0, 6]], dtype=torch.int32)
    saved = {}
    ctx = SimpleNamespace(save_for_backward=lambda *ts: saved.setdefault("t", ts))
    _setup_context(ctx, (q, k, v, None, None, ranges), {"causal": True, "layout": "bshd"}, None)
    ctx.saved_tensors = saved["t"]
    grad = torch.randn(b, t, h, d, dtype=torch.float64)
    dq, dk, dv, *rest = _backward(ctx, grad, None)
    assert rest == [None, None, None]
    qq, kk, vv = (x.clone().requires_grad_() for x in (q, k, v))
    out, _ = reference(qq, kk, vv, causal=True, compute_dtype=torch.float64, key_ranges=ranges)
    out.backward(grad)
    for got, want in ((dq, qq.grad), (dk, kk.grad), (dv, vv.grad)):
        torch.testing.assert_close(got.double(), want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("case", ["window", "sink", "topk", "all"])
def test_fallback_computes_the_rules(case):
    torch.manual_seed(0)
    b, t, s, h, hkv, d = 2, 7, 23, 4, 2, 32
    q = torch.randn(b, t, h, d, dtype=torch.bfloat16)
    k = torch.randn(b, s, hkv, d, dtype=torch.bfloat16)
    sinks = torch.tensor([float("-inf"), 0.5, 3.0, -1.0]) if case in ("sink", "all") else None
    idx = None
    if case in ("topk", "all"):
        idx = torch.randint(-1, s, (b, t, hkv, 6), dtype=torch.int32)
        idx[:, 0] = -1  # an empty row
        idx[..., 1] = idx[..., 0]  # duplicates count twice
    window = (5, 0) if case in ("window", "all") else (-1, -1)
    f = Features(window[0], window[1], sinks, idx, True)
    out, lse = fallback(q, k, k, f, True, None, "bshd")
    want, want_lse = reference(q, k, k, causal=True, compute_dtype=torch.float64, window_left=window[0],
                               window_right=window[1], sinks=sinks, topk_idx=idx)
    assert torch.allclose(out.float(), want.float(), atol=1e-2)
    assert bool((((lse.double() - want_lse).abs() < 1e-4) | (lse.double() == want_lse)).all())  # -inf rows too


def _cfg(**kw):
    return AttnConfig(batch=kw.pop("batch", 1), heads=64, heads_kv=1, seq_q=kw.pop("seq_q", 1), seq_k=4096,
                      head_dim=kw.pop("head_dim", 512), causal=True, **kw)


def test_backend_choice_for_features_on_hopper():
    reg = registry()
    assert backends.choose((9, 0), _cfg(topk=512, sink=True, kv_shared=True), reg).variant == "sm90_mqa_gather"
    assert backends.choose((9, 0), _cfg(window_left=127, sink=True), reg).variant == "sm90_mqa_gather"
    win = backends.choose((9, 0), _cfg(head_dim=128, window_left=127, sink=True, kv_shared=True), reg)
    assert win.variant == "sm90_persistent_feat"
    assert backends.choose((9, 0), _cfg(head_dim=128), reg).variant == "sm90_persistent"  # plain: unchanged
    padded = dict(batch=4, heads=16, heads_kv=4, seq_q=511, seq_k=511, causal=True, key_ranges=True)
    assert backends.choose((9, 0), AttnConfig(head_dim=128, **padded), reg).variant == "sm90_persistent_feat"
    assert backends.choose((9, 0), AttnConfig(head_dim=256, **padded), reg).variant == "sm90_pingpong_feat"
    b = backends.choose((10, 0), AttnConfig(head_dim=128, **padded), reg)  # SM100 refuses key ranges
    assert b.mode == "fallback" and "feature key_ranges not supported" in b.reason


def test_hd512_decode_takes_the_wgmma_kernel_where_it_was_faster_on_hopper():
    reg = registry()
    rows = backends.WGMMA_DECODE_MIN_ROWS_TOPK
    big = _cfg(batch=rows, topk=512, sink=True, kv_shared=True)
    assert backends.choose((9, 0), big, reg).variant == "sm90_mqa_decode"
    assert backends.choose((9, 0), _cfg(batch=rows - 1, topk=512, kv_shared=True), reg).variant == "sm90_mqa_gather"
    win = _cfg(batch=1, window_left=127, sink=True, kv_shared=True)  # window: from one row
    assert backends.choose((9, 0), win, reg).variant == "sm90_mqa_decode"
    dense = backends.WGMMA_DECODE_MIN_ROWS  # neither top-k nor window: the untimed range keeps its bound
    assert backends.choose((9, 0), _cfg(batch=dense, kv_shared=True), reg).variant == "sm90_mqa_decode"
    assert backends.choose((9, 0), _cfg(batch=dense - 1, kv_shared=True), reg).variant == "sm90_mqa_gather"
    # what it cannot run keeps its kernel: K apart from V, two query tokens, hd128
    assert backends.choose((9, 0), _cfg(batch=dense, topk=512), reg).variant == "sm90_mqa_gather"
    assert backends.choose((9, 0), _cfg(batch=dense, seq_q=2, topk=512, kv_shared=True), reg).variant == "sm90_mqa_gather"
    assert backends.choose((9, 0), _cfg(batch=dense, head_dim=128), reg).variant == "sm90_persistent"


def test_backend_falls_back_to_torch_where_no_kernel_has_the_feature():
    reg = registry()
    b = backends.choose((8, 0), _cfg(topk=512), reg)  # sm_80: no kernel with top-k
    assert (b.variant, b.mode) == (backends.FALLBACK, "fallback") and "topk" in b.reason
    assert backends.choose((10, 0), _cfg(topk=512), reg).variant == "sm100_tma_s2_tmem"  # its gather
    b = backends.choose((8, 0), _cfg(head_dim=64, sink=True), reg)
    assert b.mode == "fallback"
