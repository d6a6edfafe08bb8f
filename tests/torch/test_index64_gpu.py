"""Tensors past 2^31 elements through the op (docs/features.md "Tensors past 2^31 elements"): for each
64-bit-indexing variant the op routes such a call to, one call against the fp32 reference computed
on slices (a few batch rows and heads, the last ones included, whose offsets pass 2^31 elements;
never a full fp32 copy of a 4 GB tensor). Every float tensor the op allocates (O, LSE, split
workspaces) is filled with NaN first, so an element the kernel never writes fails the comparison.

Each test allocates at most ~20 GB of GPU memory and frees it before the next. Run alone:
    pytest -q -m gpu tests/torch/test_index64_gpu.py
"""

from __future__ import annotations

import gc

import pytest
import torch

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned")]

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import fmhactl.torch as ft  # noqa: E402
from fmhactl.torch import decode  # noqa: E402
from fmhactl.verify.reference import attention as reference  # noqa: E402

INT32_ELEMENTS = 2**31
if torch.cuda.get_device_capability()[0] != 9:
    pytest.skip("the 64-bit-indexing kernels the op routes to are SM90's", allow_module_level=True)


@pytest.fixture(autouse=True)
def _free_memory():
    yield
    gc.collect()
    torch.cuda.empty_cache()


@pytest.fixture
def poisoned(monkeypatch):
    """torch.empty / torch.empty_strided hand out NaN-filled float tensors while the test runs the op."""
    real_empty, real_strided = torch.empty, torch.empty_strided

    def poison(t: torch.Tensor) -> torch.Tensor:
        if t.is_floating_point():
            t.fill_(float("nan"))
        return t

    monkeypatch.setattr(torch, "empty", lambda *a, **kw: poison(real_empty(*a, **kw)))
    monkeypatch.setattr(torch, "empty_strided", lambda *a, **kw: poison(real_strided(*a, **kw)))


def _randn(*shape: int, seed: int) -> torch.Tensor:
    gen = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16, generator=gen)


def _check_rows(name: str, out, lse, q, k, v, *, causal: bool, window=(-1, -1), sinks=None, topk_idx=None) -> None:
    """O within FlashAttention's rule (max |ours - fp32| <= 2 max |bf16 ref - fp32| + 1e-3) and the
    LSE within 1e-3 of the fp32 reference; every tensor here is bshd and already sliced."""
    kw = dict(causal=causal, window_left=window[0], window_right=window[1], sinks=sinks, topk_idx=topk_idx)
    want, want_lse = reference(q, k, v, compute_dtype=torch.float32, **kw)
    low, _ = reference(q, k, v, compute_dtype=torch.bfloat16, **kw)
    assert not out.isnan().any() and not lse.isnan().any(), f"{name}: unwritten (NaN-poisoned) outputs"
    err, low_err = float((out.float() - want).abs().max()), float((low.float() - want).abs().max())
    assert err <= 2 * low_err + 1e-3, f"{name}: max |O err| {err} vs bf16 ref {low_err}"
    lse_ok = ((lse - want_lse).abs() < 1e-3) | (lse == want_lse)
    assert bool(lse_ok.all()), f"{name}: LSE differs by up to {float((lse - want_lse).abs().max())}"


# ---- (a) DeepSeek-V4 decode: T=1, 64 heads : 1 KV head, hd512, K = V, batch 128 -------------------

DSV4_BATCH, DSV4_HEADS, DSV4_DIM, DSV4_WINDOW, DSV4_TOPK = 128, 64, 512, 128, 512
# A 32.5k cache: 128 x 33280 x 512 elements is past 2^31 (a 32k cache is exactly 2^31, whose element
# offsets still fit int32 while its byte offsets do not); batch row 127 starts past 2^31 elements.
DSV4_SEQ_K = 33280
DSV4_ROWS = (0, 63, 126, 127)


def _dsv4_topk(mode: str) -> torch.Tensor | None:
    """int32 (batch, 1, 1, 512): the sparse segment's keys older than the window (DeepSeek-V4's
    top-k call), or lists over the last 1024 keys for a call that filters them by the window too."""
    if mode == "window":
        return None
    gen = torch.Generator(device="cuda").manual_seed(2)
    span = DSV4_SEQ_K - DSV4_WINDOW if mode == "topk" else 1024
    lo = 0 if mode == "topk" else DSV4_SEQ_K - span
    idx = torch.randint(lo, lo + span, (DSV4_BATCH, 1, 1, DSV4_TOPK), device="cuda", dtype=torch.int32, generator=gen)
    idx[:, :, :, -16:] = -1  # padded lists
    return idx


@pytest.mark.parametrize("mode", ["topk", "topk-window", "window"])
def test_dsv4_decode_past_2_31(mode):
    kv = _randn(DSV4_BATCH, DSV4_SEQ_K, 1, DSV4_DIM, seed=1)
    assert kv.numel() > INT32_ELEMENTS
    q = _randn(DSV4_BATCH, 1, DSV4_HEADS, DSV4_DIM, seed=3)
    sinks = torch.rand(DSV4_HEADS, device="cuda") * 4 + 2.8
    idx = _dsv4_topk(mode)
    window = (DSV4_WINDOW - 1, 0) if mode != "topk" else (-1, -1)
    features = dict(window=window, sinks=sinks, topk_idx=idx, kv_shared=True)
    backend = ft.backend_for(q, kv, kv, causal=True, layout="bshd", **features)
    assert backend.variant == "sm90_mqa_decode" and backend.mode == "native", str(backend)
    out, lse = ft.attention(q, kv, kv, causal=True, layout="bshd", return_lse=True, **features)
    torch.cuda.synchronize()
    for b in DSV4_ROWS:
        rows = slice(b, b + 1)
        _check_rows(f"dsv4 {mode} b{b}", out[rows], lse[rows], q[rows], kv[rows], kv[rows], causal=True,
                    window=window, sinks=sinks, topk_idx=None if idx is None else idx[rows])


def test_gather_topk_decode_past_2_31():
    """A small batch's top-k decode runs on sm90_mqa_gather (backends.wgmma_decode_min_rows): b8 over a
    520k cache, K past 2^31 elements."""
    batch, seq_k = 8, 532480
    kv = _randn(batch, seq_k, 1, DSV4_DIM, seed=4)
    assert kv.numel() > INT32_ELEMENTS
    q = _randn(batch, 1, DSV4_HEADS, DSV4_DIM, seed=5)
    sinks = torch.rand(DSV4_HEADS, device="cuda") * 4 + 2.8
    gen = torch.Generator(device="cuda").manual_seed(6)
    idx = torch.randint(-1, seq_k, (batch, 1, 1, DSV4_TOPK), device="cuda", dtype=torch.int32, generator=gen)
    idx[:, :, :, :8] = seq_k - 1 - torch.arange(8, device="cuda", dtype=torch.int32)  # the cache's last keys
    features = dict(sinks=sinks, topk_idx=idx, kv_shared=True)
    backend = ft.backend_for(q, kv, kv, causal=True, layout="bshd", **features)
    assert backend.variant == "sm90_mqa_gather" and backend.mode == "native", str(backend)
    out, lse = ft.attention(q, kv, kv, causal=True, layout="bshd", return_lse=True, **features)
    torch.cuda.synchronize()
    for b in (0, batch - 1):
        rows = slice(b, b + 1)
        _check_rows(f"gather b{b}", out[rows], lse[rows], q[rows], kv[rows], kv[rows], causal=True, sinks=sinks,
                    topk_idx=idx[rows])


# ---- (b) the split-KV decode: hd128, T=1, GQA 32:8, K and V past 2^31 elements ------------------

def test_split_kv_decode_past_2_31():
    batch, heads, heads_kv, seq_k, dim = 64, 32, 8, 33280, 128
    k = _randn(batch, heads_kv, seq_k, dim, seed=7)  # bhsd
    v = _randn(batch, heads_kv, seq_k, dim, seed=8)
    assert k.numel() > INT32_ELEMENTS
    q = _randn(batch, heads, 1, dim, seed=9)
    before = decode.launches()
    out, lse = ft.attention(q, k, v, return_lse=True)
    torch.cuda.synchronize()
    assert decode.launches() == before + 1, "the call did not take the split-KV decode kernels"
    for b in (0, batch // 2, batch - 1):
        rows = slice(b, b + 1)
        _check_rows(f"decode b{b}", out[rows].transpose(1, 2), lse[rows], q[rows].transpose(1, 2),
                    k[rows].transpose(1, 2), v[rows].transpose(1, 2), causal=False)


# ---- (c) prefill through sm90_persistent: hd128, causal, Q/O or K/V past 2^31 elements ----------

def test_persistent_prefill_kv_past_2_31():
    batch, heads, seq_q, seq_k, dim = 2, 16, 256, 540672, 128
    k = _randn(batch, seq_k, heads, dim, seed=10)  # bshd
    v = _randn(batch, seq_k, heads, dim, seed=11)
    assert k.numel() > INT32_ELEMENTS
    q = _randn(batch, seq_q, heads, dim, seed=12)
    backend = ft.backend_for(q, k, v, causal=True, layout="bshd")
    assert backend.variant == "sm90_persistent", str(backend)
    out, lse = ft.attention(q, k, v, causal=True, layout="bshd", return_lse=True)
    torch.cuda.synchronize()
    for b, h in ((0, 15), (1, 0), (1, 15)):
        rows, head = slice(b, b + 1), slice(h, h + 1)
        _check_rows(f"prefill kv b{b} h{h}", out[rows, :, head], lse[rows, head], q[rows, :, head],
                    k[rows, :, head], v[rows, :, head], causal=True)


def test_persistent_prefill_q_past_2_31():
    """Q and O past 2^31 elements: causal and bottom-right aligned, so all but the last seq_k rows of
    each head see no key and are written as zeros (the kernel's store_zero_rows) with LSE -inf."""
    batch, heads, seq_q, seq_k, dim = 2, 16, 540672, 256, 128
    q = _randn(batch, seq_q, heads, dim, seed=13)
    assert q.numel() > INT32_ELEMENTS
    k = _randn(batch, seq_k, heads, dim, seed=14)
    v = _randn(batch, seq_k, heads, dim, seed=15)
    backend = ft.backend_for(q, k, v, causal=True, layout="bshd")
    assert backend.variant == "sm90_persistent", str(backend)
    out, lse = ft.attention(q, k, v, causal=True, layout="bshd", return_lse=True)
    torch.cuda.synchronize()
    last = slice(seq_q - seq_k, seq_q)  # the rows that see keys: the last seq_k, aligned to the keys
    for b, h in ((0, 15), (1, 0), (1, 15)):
        rows, head = slice(b, b + 1), slice(h, h + 1)
        _check_rows(f"prefill q b{b} h{h}", out[rows, last, head], lse[rows, head, last], q[rows, last, head],
                    k[rows, :, head], v[rows, :, head], causal=True)
        blind = out[rows, seq_q - seq_k - 4096:seq_q - seq_k, head]
        assert bool((blind == 0).all()), f"prefill q b{b} h{h}: a row that sees no key is not 0"
        assert bool(torch.isneginf(lse[rows, head, : seq_q - seq_k]).all()), f"prefill q b{b} h{h}: LSE not -inf"
