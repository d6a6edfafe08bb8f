"""The M6 checks on a GPU (scripts/device/evidence.sh runs the full set and records them).

Each test runs one check of fmhactl.torch.checks and asserts it passed under FlashAttention's
error rule; shorter prompt lists than the recorded run keep the file quick.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.gpu


def _passed(result: dict) -> None:
    assert result["status"] == "PASS", json.dumps(result["metrics"], indent=1, default=str)[:4000]


def test_opcheck_spread():
    from fmhactl.torch.checks import check_opcheck

    _passed(check_opcheck())


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compile-fullgraph"])
def test_llama_small_logits_match_sdpa(compiled):
    pytest.importorskip("transformers")
    from fmhactl.torch.checks import check_model

    _passed(check_model(compiled, prompts=(1, 17, 511)))


def test_padded_batches_match_sdpa():
    pytest.importorskip("transformers")
    from fmhactl.torch.checks import check_padded

    _passed(check_padded())


def test_cuda_graph_capture_replays():
    pytest.importorskip("transformers")
    from fmhactl.torch.checks import check_cuda_graph

    _passed(check_cuda_graph())


def test_no_host_sync_inside_the_op():
    """With sync debug mode set to error, the op must not synchronise the host (after warm-up)."""
    import torch

    import fmhactl.torch as ft

    q = torch.randn(1, 8, 64, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 2, 80, 64, device="cuda", dtype=torch.bfloat16)
    ft.attention(q, k, k, causal=True)
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        out = ft.attention(q, k, k, causal=True)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert out.shape == q.shape


def test_backend_for_on_this_gpu_is_native_family_or_ref():
    import torch

    import fmhactl.torch as ft

    q = torch.empty(1, 16, 128, 64, device="cuda", dtype=torch.bfloat16)
    backend = ft.backend_for(q, causal=True)
    major = torch.cuda.get_device_capability()[0]
    assert backend.mode == "native"
    if major not in (9, 10):
        assert backend.variant == "ref"
    with ft.use_backend("ref"):
        assert ft.backend_for(q).variant == "ref"


@pytest.mark.parametrize("layout, causal, dims", [
    ("bhsd", True, (2, 16, 4, 17, 17, 64)),      # GQA, the tiny prefill shape
    ("bshd", False, (1, 8, 8, 130, 300, 128)),   # T != S, hd128
    ("bhsd", True, (1, 4, 1, 1, 129, 128)),      # MQA decode step
])
def test_cached_path_matches_the_general_path_as_addresses_change(layout, causal, dims):
    """Fresh tensors every call (so every TMA map moves): the cached path's out and LSE equal the
    general path's bit for bit, and the cached path really served the calls. The decode kernels
    (which serve small T on their own path, tests/torch/test_decode_gpu.py) are off here."""
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode, fastpath

    decode.set_enabled(False)
    try:
        _cached_vs_general(ft, fastpath, layout, causal, dims)
    finally:
        decode.set_enabled(True)


def _cached_vs_general(ft, fastpath, layout, causal, dims):
    import torch

    b, h, hkv, sq, sk, d = dims
    shape = (lambda s, n: (b, n, s, d)) if layout == "bhsd" else (lambda s, n: (b, s, n, d))
    before = fastpath.status()["plans"]
    for seed in range(3):
        gen = torch.Generator(device="cuda").manual_seed(seed)
        q, k, v = (torch.randn(*shape(s, n), generator=gen, device="cuda").to(torch.bfloat16)
                   for s, n in ((sq, h), (sk, hkv), (sk, hkv)))
        fast_out, fast_lse = ft.attention(q, k, v, causal=causal, layout=layout, return_lse=True)
        fastpath.set_enabled(False)
        try:
            slow_out, slow_lse = ft.attention(q, k, v, causal=causal, layout=layout, return_lse=True)
        finally:
            fastpath.set_enabled(True)
        assert torch.equal(fast_out, slow_out) and torch.equal(fast_lse, slow_lse)
    status = fastpath.status()
    assert status["off_reason"] is None and status["plans"] == before + 1, status
