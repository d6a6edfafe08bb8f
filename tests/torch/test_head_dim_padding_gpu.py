"""Head dims no native kernel takes (16, 32, 80, 96, 112, 160, 192), run zero-padded on the GPU:
out and LSE against the fp32 reference for bhsd/bshd, causal, GQA, window + sinks, K = V, a T = 1
decode call (which the decode kernels serve at its own head dim where they take it, 32..256 in
steps of 16: no padding then; tests/torch/test_decode_head_dims_gpu.py checks those in full);
the cached path equals the general one and serves the second call from its plan;
outputs stored as the fake implementation declares; torch.compile(fullgraph=True), a CUDA-graph
capture and opcheck at hd96; on sm_90 backend_for names the padded native kernel, not `ref`.
The choice itself is tests/torch/test_head_dim_padding_cpu.py's; the calls the SM90 family runs
through TMA zero fill instead of copies are checked in tests/torch/test_tma_head_dim_fill_gpu.py."""

from __future__ import annotations

import math

import pytest
import torch

pytestmark = pytest.mark.gpu

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import fmhactl.torch as ft  # noqa: E402
from fmhactl.torch import decode, fastpath  # noqa: E402
from fmhactl.torch.op import _attention_fake, kernel_runs  # noqa: E402
from fmhactl.verify.reference import attention as reference  # noqa: E402

HEAD_DIMS = (16, 32, 80, 96, 112, 160, 192)
HOPPER = torch.cuda.get_device_capability()[0] == 9
# name: (layout, heads, heads_kv, seq_q, seq_k, causal, window, sinks, kv_shared)
CASES = {
    "bhsd-causal-gqa": ("bhsd", 8, 2, 130, 200, True, None, False, False),
    "bshd-noncausal-mha": ("bshd", 4, 4, 77, 77, False, None, False, False),
    "bshd-window-sinks": ("bshd", 8, 2, 150, 150, True, (31, 0), True, False),
    "bshd-kv-shared": ("bshd", 8, 1, 64, 96, True, (63, 0), False, True),
    "bhsd-decode-t1": ("bhsd", 8, 2, 1, 1000, True, None, False, False),
}


def _inputs(layout, h, hkv, t, s, d, sinks, kv_shared, seed=0, batch=2):
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def make(heads, seq):
        shape = (batch, heads, seq, d) if layout == "bhsd" else (batch, seq, heads, d)
        return torch.randn(*shape, device="cuda", dtype=torch.bfloat16, generator=gen)

    q, k = make(h, t), make(hkv, s)
    v = k if kv_shared else make(hkv, s)
    sink = (torch.rand(h, device="cuda", generator=gen) * 4 - 2) if sinks else None
    return q, k, v, sink


def _kwargs(causal, window, sink, kv_shared, layout):
    kw = dict(causal=causal, layout=layout, return_lse=True)
    if window is not None:
        kw["window"] = window
    if sink is not None:
        kw["sinks"] = sink
    if kv_shared:
        kw["kv_shared"] = True
    return kw


def _bshd(t, layout):
    return t.transpose(1, 2) if layout == "bhsd" else t


def _reference(q, k, v, layout, causal, window, sink, dtype):
    left, right = window if window is not None else (-1, -1)
    return reference(_bshd(q, layout), _bshd(k, layout), _bshd(v, layout), causal=causal, compute_dtype=dtype,
                     scale=1 / math.sqrt(q.shape[-1]), window_left=left, window_right=right, sinks=sink)


def _general(q, k, v, **kw):
    fastpath.set_enabled(False)
    try:
        return ft.attention(q, k, v, **kw)
    finally:
        fastpath.set_enabled(True)


@pytest.mark.parametrize("d", HEAD_DIMS)
@pytest.mark.parametrize("name", list(CASES))
def test_padded_head_dim_matches_the_fp32_reference(name, d):
    layout, h, hkv, t, s, causal, window, sinks, kv_shared = CASES[name]
    q, k, v, sink = _inputs(layout, h, hkv, t, s, d, sinks, kv_shared)
    kw = _kwargs(causal, window, sink, kv_shared, layout)
    backend = ft.backend_for(q, k, v, causal=causal, layout=layout, window=window, sinks=sink, kv_shared=kv_shared)
    decodes = decode.launches()
    out, lse = ft.attention(q, k, v, **kw)
    want, want_lse = _reference(q, k, v, layout, causal, window, sink, torch.float32)
    low, _ = _reference(q, k, v, layout, causal, window, sink, torch.bfloat16)
    err, low_err = float((_bshd(out, layout).float() - want).abs().max()), float((low.float() - want).abs().max())
    assert err <= 2 * low_err + 1e-3, f"{name} d{d} on {backend}: max |O err| {err} vs bf16 ref {low_err}"
    assert float((lse - want_lse).abs().max()) < 1e-3, f"{name} d{d} on {backend}: LSE differs"
    fake, fake_lse = _attention_fake(q, k, v, causal=causal, layout=layout, return_lse=True)
    assert (out.shape, out.stride(), lse.shape) == (fake.shape, fake.stride(), fake_lse.shape)
    if HOPPER:
        assert backend.mode == "native" and backend.variant != "ref", f"{name} d{d}: {backend}"
        how = (f"run on the d{backend.padded_head_dim} kernel (TMA zero fill)" if backend.tma_fill
               else f"padded to {backend.padded_head_dim}")
        assert backend.padded_head_dim and f"head dim {d} {how}" in str(backend)
        if t == 1:  # the decode kernels took it: at d itself (32..256 by 16), else padded (16 -> 64)
            assert decode.launches() == decodes + 1, f"{name} d{d}: the decode kernels did not run"


@pytest.mark.parametrize("d", (80, 96, 160))
@pytest.mark.parametrize("name", list(CASES))
def test_cached_padded_call_equals_the_general_path_and_reuses_its_plan(name, d):
    layout, h, hkv, t, s, causal, window, sinks, kv_shared = CASES[name]
    q, k, v, sink = _inputs(layout, h, hkv, t, s, d, sinks, kv_shared)
    kw = _kwargs(causal, window, sink, kv_shared, layout)
    out, lse = ft.attention(q, k, v, **kw)
    want, want_lse = _general(q, k, v, **kw)
    torch.cuda.synchronize()
    if t <= decode.MAX_SEQ_Q:  # the cached path's decode kernels against the general path's tile kernel
        torch.testing.assert_close(out, want, rtol=0, atol=2e-2)
        torch.testing.assert_close(lse, want_lse, rtol=0, atol=1e-3)
    else:
        assert torch.equal(out, want) and torch.equal(lse, want_lse), f"{name} d{d}"
    before = fastpath.status()
    ft.attention(q, k, v, **kw)
    after = fastpath.status()
    if HOPPER and t <= decode.MAX_SEQ_Q and d in decode.HEAD_DIMS:  # the decode kernels at d: no padding
        assert after["decode_launches"] == before["decode_launches"] + 1, f"{name} d{d}: {before} -> {after}"
        assert after["padded_signatures"] == before["padded_signatures"], f"{name} d{d}: padded"
    elif HOPPER:
        assert after["padded_signatures"] + after["tma_fill_plans"] >= 1  # copies, or the kernel's TMA zero fill
        served = (after["plan_launches"] - before["plan_launches"]) + (after["decode_launches"]
                                                                      - before["decode_launches"])
        assert served == 1 and after["plans"] == before["plans"], f"{name} d{d}: {before} -> {after}"


def test_dispatcher_and_opcheck_at_hd96():
    q, k, v, _ = _inputs("bhsd", 8, 2, 70, 90, 96, False, False)
    runs = kernel_runs()
    out, lse = torch.ops.fmhactl.attention.default(q, k, v, causal=True, return_lse=True)
    assert kernel_runs() == runs + 1
    want, want_lse = _general(q, k, v, causal=True, return_lse=True)
    assert torch.equal(out, want) and torch.equal(lse, want_lse)
    torch.library.opcheck(torch.ops.fmhactl.attention.default, (q, k, v), {"causal": True, "return_lse": True})


def test_autograd_at_hd96_recomputes_from_the_unpadded_inputs():
    q, k, v, _ = _inputs("bshd", 4, 2, 33, 40, 96, False, False)
    leaves = [t.detach().float().requires_grad_() for t in (q, k, v)]
    ours = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    out = ft.attention(*ours, causal=True, layout="bshd")
    assert out.shape == q.shape
    out.float().square().sum().backward()
    want = reference(*leaves, causal=True, compute_dtype=torch.float32)[0]
    want.square().sum().backward()
    for got, ref in zip(ours, leaves):
        assert got.grad.shape == got.shape
        assert float((got.grad.float() - ref.grad).abs().max()) < 0.1 * float(ref.grad.abs().max()) + 1e-2


def test_compile_fullgraph_at_hd96():
    q, k, v, _ = _inputs("bhsd", 8, 2, 64, 64, 96, False, False)

    @torch.compile(fullgraph=True)
    def step(q, k, v):
        return ft.attention(q, k, v, causal=True, return_lse=True)

    step(q, k, v)
    runs = kernel_runs()
    out, lse = step(q, k, v)
    assert kernel_runs() == runs + 1, "the compiled graph did not run the op"
    want, want_lse = _general(q, k, v, causal=True, return_lse=True)
    assert torch.equal(out, want) and torch.equal(lse, want_lse)


@pytest.mark.parametrize("t", [128, 1], ids=["prefill", "decode"])
def test_cuda_graph_capture_at_hd96_replays_with_new_inputs(t):
    q, k, v, _ = _inputs("bhsd", 8, 2, t, 300, 96, False, False)
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):  # warm-up on the capture stream: plans, counters
        ft.attention(q, k, v, causal=True, return_lse=True)
    torch.cuda.current_stream().wait_stream(capture)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture):
        out, lse = ft.attention(q, k, v, causal=True, return_lse=True)
    for seed in (2, 3):
        q2, k2, v2, _ = _inputs("bhsd", 8, 2, t, 300, 96, False, False, seed=seed)
        q.copy_(q2), k.copy_(k2), v.copy_(v2)
        graph.replay()
        want, want_lse = ft.attention(q, k, v, causal=True, return_lse=True)  # the same path, eagerly
        torch.cuda.synchronize()
        assert torch.equal(out, want) and torch.equal(lse, want_lse), f"replay {seed}"


def test_bad_input_is_one_line_before_any_padding():
    q = torch.randn(1, 4, 16, 96, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 4, 16, 80, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ft.AttentionInputError, match=r"^fmhactl.attention: head dim of k/v \(80\) differs"):
        ft.attention(q, k, k)
