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
    (dict(window=(-2, 0)), "window_left must be >= -1"),
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
