"""The cached launch path with attention features on the GPU: for each feature case of
test_op_features_gpu.py the cached path's output and LSE equal the general path's bit for bit, the
first call makes a plan and the second is served by it; a feature call captured in a CUDA graph
replays with new inputs; torch.compile(fullgraph=True) runs the op with features."""

from __future__ import annotations

import pytest
import torch

pytestmark = pytest.mark.gpu

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import fmhactl.torch as ft  # noqa: E402
from fmhactl.torch import fastpath  # noqa: E402
from fmhactl.torch.op import kernel_runs  # noqa: E402

from tests.torch.test_op_features_gpu import BATCHED, CASES, _case, _inputs  # noqa: E402


def _call(q, k, v, sinks, idx, window, kv_shared, op=False):
    if op:
        return torch.ops.fmhactl.attention.default(q, k, v, sinks, idx, causal=True, layout="bshd",
                                                   window_left=window[0], window_right=window[1],
                                                   kv_shared=kv_shared, return_lse=True)
    return ft.attention(q, k, v, causal=True, layout="bshd", window=window, sinks=sinks, topk_idx=idx,
                        kv_shared=kv_shared, return_lse=True, check_values=False)


def _general(*args, **kwargs):
    fastpath.set_enabled(False)
    try:
        out = _call(*args, **kwargs)
        torch.cuda.synchronize()
        return out
    finally:
        fastpath.set_enabled(True)


@pytest.mark.parametrize("via_op", [False, True], ids=["eager", "dispatcher"])
@pytest.mark.parametrize("name", list(CASES) + list(BATCHED))
def test_cached_feature_call_equals_the_general_path(name, via_op):
    (d, h, hkv, t, s, window, sink, topk, kv_shared), batch = _case(name)
    q, k, v, sinks, idx = _inputs(d, h, hkv, t, s, sink, topk, kv_shared, batch=batch)
    backend = ft.backend_for(q, k, v, causal=True, layout="bshd", window=window, sinks=sinks, topk_idx=idx,
                             kv_shared=kv_shared)
    if backend.mode != "native":
        pytest.skip(f"{name}: no kernel here ({backend}): the fallback has no cached path")
    want_out, want_lse = _general(q, k, v, sinks, idx, window, kv_shared, op=via_op)
    fastpath.clear()
    before = fastpath.status()
    out, lse = _call(q, k, v, sinks, idx, window, kv_shared, op=via_op)
    first = fastpath.status()
    assert first["feature_plans"] == before["feature_plans"] + 1, f"{name} ({backend}): no plan made: {first}"
    assert first["plan_launches"] == before["plan_launches"] + 1
    q2, k2, v2, sinks2, idx2 = _inputs(d, h, hkv, t, s, sink, topk, kv_shared, seed=1, batch=batch)  # new addresses
    out2, lse2 = _call(q2, k2, v2, sinks2, idx2, window, kv_shared, op=via_op)
    second = fastpath.status()
    assert second["plan_launches"] == first["plan_launches"] + 1, f"{name}: second call not served: {second}"
    assert second["feature_plans"] == first["feature_plans"]
    torch.cuda.synchronize()
    assert torch.equal(out, want_out) and torch.equal(lse, want_lse), f"{name} on {backend.variant}"
    want_out2, want_lse2 = _general(q2, k2, v2, sinks2, idx2, window, kv_shared, op=via_op)
    assert torch.equal(out2, want_out2) and torch.equal(lse2, want_lse2), f"{name} (second call) on {backend.variant}"


@pytest.mark.parametrize("name", ["window-sink-kv-d128", "topk-d512", "topk-window-d512", "topk-window-d512-b64"])
def test_cuda_graph_capture_of_a_feature_call_replays_with_new_inputs(name):
    (d, h, hkv, t, s, window, sink, topk, kv_shared), batch = _case(name)
    q, k, v, sinks, idx = _inputs(d, h, hkv, t, s, sink, topk, kv_shared, batch=batch)
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):  # warm-up on the capture stream: plan, workspace, counters
        _call(q, k, v, sinks, idx, window, kv_shared)
    torch.cuda.current_stream().wait_stream(capture)
    graph = torch.cuda.CUDAGraph()
    launches = fastpath.status()["plan_launches"]
    with torch.cuda.graph(graph, stream=capture):
        out, lse = _call(q, k, v, sinks, idx, window, kv_shared)
    assert fastpath.status()["plan_launches"] == launches + 1, "the capture did not take the cached path"
    for seed in (2, 3):
        q2, k2, v2, sinks2, idx2 = _inputs(d, h, hkv, t, s, sink, topk, kv_shared, seed=seed, batch=batch)
        q.copy_(q2), k.copy_(k2)
        if not kv_shared:
            v.copy_(v2)
        if sinks is not None:
            sinks.copy_(sinks2)
        if idx is not None:
            idx.copy_(idx2)
        graph.replay()
        torch.cuda.synchronize()
        want_out, want_lse = _general(q, k, v, sinks, idx, window, kv_shared)
        assert torch.equal(out, want_out) and torch.equal(lse, want_lse), f"{name}: replay {seed}"


def test_compile_fullgraph_with_features_runs_the_op():
    d, h, hkv, t, s, window, sink, topk, kv_shared = CASES["topk-window-d512"]
    q, k, v, sinks, idx = _inputs(d, h, hkv, t, s, sink, topk, kv_shared)

    def step(q, k, sinks, idx):
        return ft.attention(q, k, k, causal=True, layout="bshd", window=window, sinks=sinks, topk_idx=idx,
                            kv_shared=True, return_lse=True, check_values=False)

    compiled = torch.compile(step, fullgraph=True)
    compiled(q, k, sinks, idx)
    runs = kernel_runs()
    out, lse = compiled(q, k, sinks, idx)
    torch.cuda.synchronize()
    assert kernel_runs() == runs + 1
    want_out, want_lse = _general(q, k, v, sinks, idx, window, kv_shared)
    assert torch.equal(out, want_out) and torch.equal(lse, want_lse)
