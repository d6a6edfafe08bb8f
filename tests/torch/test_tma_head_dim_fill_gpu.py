"""Head dims no SM90 kernel takes (16, 32, 48, 80, 96, 112) run on the next wider kernel through
the TMA loads' zero fill (backends.Backend.tma_fill), on the GPU: out and LSE against the fp32
reference for every element (outputs poisoned with NaN first) on bhsd/bshd, causal and not, GQA/MQA,
sequence lengths off the 128-row tiles, bf16 and fp16; O's memory past each row untouched (O a
narrow view of a wider sentinel buffer, the store clipped at the caller's head dim); no pad or copy
kernel in the profile and no copy padding counted; the cached path equals the general one; a call
that can have keyless rows keeps the copy padding and stays exact; CUDA-graph capture and
torch.compile(fullgraph=True) at d=96. The choice itself is tests/torch/test_tma_head_dim_fill_cpu.py's."""

from __future__ import annotations

import math

import pytest
import torch

pytestmark = pytest.mark.gpu

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

import fmhactl.torch as ft  # noqa: E402
from fmhactl.torch import fastpath, padding  # noqa: E402
from fmhactl.torch import launch as _launch  # noqa: E402
from fmhactl.torch.inputs import check_inputs, config_of  # noqa: E402
from fmhactl.torch.op import kernel_runs  # noqa: E402
from fmhactl.verify.reference import attention as reference  # noqa: E402

HOPPER = torch.cuda.get_device_capability()[0] == 9
needs_hopper = pytest.mark.skipif(not HOPPER, reason="the TMA zero fill is the SM90 family's")
HEAD_DIMS = (16, 32, 48, 80, 96, 112)
# name: (layout, heads, heads_kv, seq_q, seq_k, causal, dtype)
CASES = {
    "bhsd-causal-gqa": ("bhsd", 8, 2, 130, 200, True, torch.bfloat16),
    "bshd-causal-square": ("bshd", 4, 4, 77, 77, True, torch.bfloat16),
    "bshd-causal-gqa-long": ("bshd", 16, 4, 333, 1000, True, torch.float16),
    "bhsd-noncausal-mqa-more-queries": ("bhsd", 8, 1, 300, 131, False, torch.bfloat16),
    "bshd-noncausal-mha": ("bshd", 6, 6, 200, 513, False, torch.float16),
}
POISON_16 = -1  # 0xFFFF: a NaN in bf16 and fp16
SENTINEL_16 = 0x3C5A  # a finite value the kernel never writes past the row


def _inputs(layout, h, hkv, t, s, d, dtype=torch.bfloat16, seed=0, batch=2):
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def make(heads, seq):
        shape = (batch, heads, seq, d) if layout == "bhsd" else (batch, seq, heads, d)
        return torch.randn(*shape, device="cuda", dtype=dtype, generator=gen)

    return make(h, t), make(hkv, s), make(hkv, s)


def _bshd(t, layout):
    return t.transpose(1, 2) if layout == "bhsd" else t


def _reference(q, k, v, layout, causal, dtype):
    return reference(_bshd(q, layout), _bshd(k, layout), _bshd(v, layout), causal=causal, compute_dtype=dtype,
                     scale=1 / math.sqrt(q.shape[-1]))


def _check(out, lse, q, k, v, layout, causal, what):
    """Every element of out and lse against the fp32 reference (a NaN left anywhere fails)."""
    want, want_lse = _reference(q, k, v, layout, causal, torch.float32)
    low, _ = _reference(q, k, v, layout, causal, q.dtype)
    got = _bshd(out, layout).float()
    assert not got.isnan().any(), f"{what}: {int(got.isnan().sum())} output elements unwritten (NaN)"
    assert not lse.isnan().any(), f"{what}: {int(lse.isnan().sum())} LSE elements unwritten (NaN)"
    err, low_err = float((got - want).abs().max()), float((low.float() - want).abs().max())
    assert err <= 2 * low_err + 1e-3, f"{what}: max |O err| {err} vs {q.dtype} reference {low_err}"
    finite = torch.isfinite(want_lse)
    assert torch.equal(torch.isfinite(lse), finite), f"{what}: LSE infinities differ"
    assert float((lse[finite] - want_lse[finite]).abs().max()) < 1e-3, f"{what}: LSE differs"


def _poison_freed_blocks(out_shape, lse_shape, dtype):
    """Leave NaN-filled blocks of exactly the outputs' sizes at the front of the caching allocator's
    free lists, so the op's next torch.empty gets them back: (out, lse) addresses."""
    out = torch.empty(out_shape, device="cuda", dtype=dtype)
    out.view(torch.int16).fill_(POISON_16)
    lse = torch.full(lse_shape, float("nan"), device="cuda")
    addresses = out.data_ptr(), lse.data_ptr()
    del out, lse
    return addresses


@needs_hopper
@pytest.mark.parametrize("d", HEAD_DIMS)
@pytest.mark.parametrize("name", list(CASES))
def test_filled_head_dim_matches_the_fp32_reference_with_poisoned_outputs(name, d):
    layout, h, hkv, t, s, causal, dtype = CASES[name]
    q, k, v = _inputs(layout, h, hkv, t, s, d, dtype)
    backend = ft.backend_for(q, k, v, causal=causal, layout=layout)
    assert backend.tma_fill and f"head dim {d} run on the d{backend.padded_head_dim} kernel (TMA zero fill)" in str(
        backend), str(backend)
    ft.attention(q, k, v, causal=causal, layout=layout, return_lse=True)  # builds the plan
    torch.cuda.synchronize()
    before = fastpath.status()
    shape = (2, t, h, d)
    poisoned = _poison_freed_blocks(shape, (2, h, t), dtype)
    out, lse = ft.attention(q, k, v, causal=causal, layout=layout, return_lse=True)
    torch.cuda.synchronize()
    after = fastpath.status()
    reused = (out.data_ptr(), lse.data_ptr()) == poisoned
    _check(out, lse, q, k, v, layout, causal, f"{name} d{d} on {backend} (poisoned outputs reused: {reused})")
    assert after["padded_copies"] == before["padded_copies"], f"{name} d{d}: copy padding ran"
    assert after["plan_launches"] == before["plan_launches"] + 1 and after["tma_fill_plans"] >= 1, (before, after)


@needs_hopper
@pytest.mark.parametrize("d", (16, 48, 96, 112))
@pytest.mark.parametrize("causal", (True, False), ids=("causal", "noncausal"))
def test_the_store_never_writes_past_the_callers_head_dim(d, causal):
    """O as a narrow view of a wider buffer (each row d columns, then sentinels): the launch must
    write every one of the d columns (NaN before) and none of the sentinels after them, the d128 or
    d64 kernel's second half of its last box included."""
    h, hkv, t, s, extra = 8, 2, 200, 333, 40
    q, k, v = _inputs("bshd", h, hkv, t, s, d)
    backend = ft.backend_for(q, k, v, causal=causal, layout="bshd")
    assert backend.tma_fill, str(backend)
    wide = torch.empty(2, t, h, d + extra, device="cuda", dtype=q.dtype)
    wide.view(torch.int16).fill_(SENTINEL_16)
    out = wide[..., :d]
    out.view(torch.int16).fill_(POISON_16)
    lse = torch.full((2, h, t), float("nan"), device="cuda")
    cfg = config_of(check_inputs(q, k, v, "bshd", None), q.dtype, causal)
    _launch.launch(backend, cfg, q, k, v, out, lse, 1 / math.sqrt(d), q.device.index or 0)
    torch.cuda.synchronize()
    past = wide[..., d:].view(torch.int16)
    assert bool((past == SENTINEL_16).all()), f"d{d}: {int((past != SENTINEL_16).sum())} elements past the rows written"
    _check(out, lse, q, k, v, "bshd", causal, f"d{d} into a strided O")


@needs_hopper
@pytest.mark.parametrize("layout", ("bhsd", "bshd"))
def test_cached_filled_call_equals_the_general_path(layout):
    q, k, v = _inputs(layout, 8, 2, 130, 200, 96)
    out, lse = ft.attention(q, k, v, causal=True, layout=layout, return_lse=True)
    fastpath.set_enabled(False)
    try:
        copies = padding.copies()
        want, want_lse = ft.attention(q, k, v, causal=True, layout=layout, return_lse=True)
        assert padding.copies() == copies, "the general path copied"
    finally:
        fastpath.set_enabled(True)
    torch.cuda.synchronize()
    assert torch.equal(out, want) and torch.equal(lse, want_lse)
    assert (out.shape, out.stride()) == (want.shape, want.stride())


def _kernel_names(run) -> list[str]:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    return [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]


@needs_hopper
def test_no_pad_or_copy_kernel_runs_beside_the_attention_kernel():
    q, k, v = _inputs("bhsd", 8, 2, 256, 256, 96)
    ft.attention(q, k, v, causal=True)  # plan and kernel built outside the profile
    names = _kernel_names(lambda: ft.attention(q, k, v, causal=True))
    if not names:
        pytest.skip("the profiler recorded no CUDA kernels here (CUPTI)")
    assert any("fmha_sm90_bf16_d128" in n for n in names), names
    assert all(n.startswith("fmha_") for n in names), f"kernels beside the attention kernel: {names}"
    # the check has teeth: a call with keyless rows (causal, more queries than keys) pads by copies
    q2, k2, v2 = _inputs("bhsd", 8, 2, 300, 256, 96)
    ft.attention(q2, k2, v2, causal=True)
    copied = _kernel_names(lambda: ft.attention(q2, k2, v2, causal=True))
    assert any(not n.startswith("fmha_") for n in copied), copied


@needs_hopper
@pytest.mark.parametrize("d", (48, 96))
def test_keyless_rows_keep_the_copy_padding_and_stay_exact(d):
    q, k, v = _inputs("bhsd", 8, 2, 300, 256, d)  # causal with 44 more queries than keys
    backend = ft.backend_for(q, k, v, causal=True)
    assert backend.padded_head_dim and not backend.tma_fill, str(backend)
    before = padding.copies()
    out, lse = ft.attention(q, k, v, causal=True, return_lse=True)
    torch.cuda.synchronize()
    assert padding.copies() == before + 1
    _check(out, lse, q, k, v, "bhsd", True, f"keyless rows d{d}")


@needs_hopper
def test_compile_fullgraph_at_hd96():
    q, k, v = _inputs("bhsd", 8, 2, 200, 200, 96)

    @torch.compile(fullgraph=True)
    def step(q, k, v):
        return ft.attention(q, k, v, causal=True, return_lse=True)

    step(q, k, v)
    runs, copies = kernel_runs(), padding.copies()
    out, lse = step(q, k, v)
    torch.cuda.synchronize()
    assert kernel_runs() == runs + 1, "the compiled graph did not run the op"
    assert padding.copies() == copies, "the compiled graph padded by copies"
    _check(out, lse, q, k, v, "bhsd", True, "compiled d96")
    want, want_lse = ft.attention(q, k, v, causal=True, return_lse=True)
    assert torch.equal(out, want) and torch.equal(lse, want_lse)


@needs_hopper
def test_cuda_graph_capture_at_hd96_replays_with_new_inputs():
    q, k, v = _inputs("bshd", 8, 2, 190, 300, 96)
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):  # warm-up on the capture stream: plans, counters
        ft.attention(q, k, v, causal=True, layout="bshd", return_lse=True)
    torch.cuda.current_stream().wait_stream(capture)
    copies = padding.copies()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=capture):
        out, lse = ft.attention(q, k, v, causal=True, layout="bshd", return_lse=True)
    assert padding.copies() == copies, "the captured call padded by copies"
    for seed in (2, 3):
        q2, k2, v2 = _inputs("bshd", 8, 2, 190, 300, 96, seed=seed)
        q.copy_(q2), k.copy_(k2), v.copy_(v2)
        graph.replay()
        torch.cuda.synchronize()
        _check(out, lse, q, k, v, "bshd", True, f"graph replay {seed}")
        want, want_lse = ft.attention(q, k, v, causal=True, layout="bshd", return_lse=True)
        torch.cuda.synchronize()
        assert torch.equal(out, want) and torch.equal(lse, want_lse), f"replay {seed}"
