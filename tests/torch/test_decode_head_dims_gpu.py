"""The split-KV decode kernels at the head dims beyond 64/128: hd256 natively, every other multiple
of 16 from 32 to 256 on the next wider kernel with masked loads and stores. Out and LSE against
explicit math under FlashAttention's rule (fp32 reference, every element, outputs allocated over
NaN-poisoned memory), T = 1, 4, 16, GQA/MQA/MHA, caches whose length is not a multiple of the split
size, one split and several, the merge fused and by a second launch, bf16 and fp16; each call is
served by the decode kernels at its own head dim (decode.launches(), the plan's head_dim) and never
by the head-dim padding (no pad, no PaddedPlan). K/V/Q views whose rows are followed by NaN columns
prove the masked kernels read nothing past a row. CUDA-graph replays at hd80/96/256:
tests/torch/test_decode_gpu.py."""

from __future__ import annotations

import json

import pytest

from tests.torch.test_decode_gpu import _dtype, _poison, combine  # noqa: F401 - combine is a fixture
from tests.torch.test_decode_gpu import check_rule as _check

pytestmark = pytest.mark.gpu

NEW_HEAD_DIMS = (32, 48, 80, 96, 160, 192, 256)
# (batch, heads, heads_kv, seq_q, seq_k, causal, layout, dtype, cache capacity (0: exact), splits)
# splits: "many" (asserted > 1, seq_k not a multiple of the split's keys) or "one"
SHAPES = (
    (1, 32, 8, 1, 4099, False, "bhsd", "bf16", 0, "many"),    # GQA 4, T = 1 (Phi-3 / Llama-style step)
    (2, 16, 4, 4, 1001, True, "bshd", "f16", 0, "many"),      # causal T = 4, bshd
    (1, 8, 2, 16, 777, True, "bhsd", "bf16", 1024, "many"),   # T = 16: 64 packed rows, a static cache's view
    (1, 8, 1, 16, 3000, False, "bshd", "bf16", 0, "many"),    # MQA group 8 x 16 tokens: 8 row groups
    (3, 8, 8, 1, 100, False, "bhsd", "f16", 0, "one"),        # MHA, 100 keys: one split (no merge)
    (2, 4, 2, 4, 70, True, "bhsd", "bf16", 0, "one"),         # causal, one split
)


def _inputs(shape, d: int, seed: int, nan_tail: int = 0):
    """q, k, v of the shape at head dim d; nan_tail > 0: each a view of rows d + nan_tail wide whose
    last nan_tail columns are NaN (a masked kernel that reads past the row poisons the output)."""
    import torch

    b, h, hkv, sq, sk, _, layout, dtype, capacity, _ = shape
    gen = torch.Generator(device="cuda").manual_seed(seed)

    def draw(seq: int, heads: int, room: int):
        dims = (b, heads, room, d + nan_tail) if layout == "bhsd" else (b, room, heads, d + nan_tail)
        t = torch.randn(*dims, generator=gen, device="cuda").to(_dtype(dtype))
        t[..., d:] = float("nan")
        t = t[..., :d]
        return t[:, :, :seq] if layout == "bhsd" else t[:, :seq]

    return draw(sq, h, sq), draw(sk, hkv, capacity or sk), draw(sk, hkv, capacity or sk)


@pytest.fixture
def no_padding(monkeypatch):
    """Counts head-dim pads (fmhactl.torch.padding); the test asserts none ran."""
    from fmhactl.torch import padding

    pads = []
    real = padding.pad_head_dim

    def counted(t, head_dim):
        pads.append((tuple(t.shape), head_dim))
        return real(t, head_dim)

    monkeypatch.setattr(padding, "pad_head_dim", counted)
    return pads


def _served_plan(q, k, causal: bool, layout: str):
    """The decode plan of this call's signature (ft.attention(..., return_lse=True), default scale)."""
    from fmhactl.torch import decode

    plan = decode._plans.get(decode.plan_key(q, k, causal, None, True, layout))
    assert plan is not None
    return plan


@pytest.mark.parametrize("d", NEW_HEAD_DIMS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(map(str, s)))
def test_new_head_dims_match_explicit_math(shape, d, combine, no_padding):
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode, fastpath

    causal, layout = shape[5], shape[6]
    padded_before = fastpath.status()["padded_signatures"]
    for seed in (1, 2):  # fresh inputs; the second call runs the cached plan
        q, k, v = _inputs(shape, d, 1000 * seed + 10 * d + shape[4])
        before = decode.launches()
        _poison()
        with torch.no_grad():
            out, lse = ft.attention(q, k, v, causal=causal, layout=layout, return_lse=True)
        torch.cuda.synchronize()
        assert decode.launches() == before + 1, "the decode kernels did not serve the call"
        assert out.shape == q.shape and bool(torch.isfinite(out).all())
        plan = _served_plan(q, k, causal, layout)
        assert plan.head_dim == d  # its own head dim, on kernel d{kernel_head_dim(d)}
        n_splits, split_keys = plan.split.n_splits, plan.split.split_keys
        if shape[9] == "many":
            assert n_splits > 1 and shape[4] % split_keys != 0, (n_splits, split_keys)
        else:
            assert n_splits == 1
        rule = _check(causal, layout, out, lse, q, k, v)
        assert rule["passed"], json.dumps({"d": d, "n_splits": n_splits, **rule})
    assert not no_padding, f"head-dim padding ran: {no_padding}"
    assert fastpath.status()["padded_signatures"] == padded_before


@pytest.mark.parametrize("d", (32, 80, 96, 144, 192))
@pytest.mark.parametrize("shape", (SHAPES[0], SHAPES[2], SHAPES[4]), ids=("split", "t16", "one-split"))
def test_masked_kernels_read_nothing_past_a_row(shape, d, combine, no_padding):
    """Q, K and V rows followed by NaN columns (views of wider rows, strides multiples of 8): the
    masked kernels zero-fill or skip those chunks instead of reading them."""
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch import decode

    causal, layout = shape[5], shape[6]
    tail = decode.kernel_head_dim(d) - d
    q, k, v = _inputs(shape, d, 7 + d, nan_tail=tail)
    assert k.stride(-1) == 1 and not bool(torch.isnan(k).any())
    before = decode.launches()
    _poison()
    with torch.no_grad():
        out, lse = ft.attention(q, k, v, causal=causal, layout=layout, return_lse=True)
    assert decode.launches() == before + 1
    assert bool(torch.isfinite(out).all()) and not bool(torch.isnan(lse).any())
    rule = _check(causal, layout, out, lse, q, k, v)
    assert rule["passed"], json.dumps({"d": d, **rule})
    assert not no_padding


@pytest.mark.parametrize("d", (80, 96, 256))
def test_dispatcher_path_takes_the_decode_kernels_at_new_head_dims(d, no_padding):
    """torch.ops.fmhactl.attention (the dispatcher) at a new head dim, and opcheck (CUDA graphs at
    these head dims: test_decode_gpu.py's graph test)."""
    import torch

    from fmhactl.torch import decode

    q, k, v = _inputs((1, 32, 8, 2, 3001, True, "bhsd", "bf16", 0, "many"), d, 5)
    before = decode.launches()
    out, lse = torch.ops.fmhactl.attention(q, k, v, causal=True, return_lse=True)
    assert decode.launches() == before + 1
    assert _check(True, "bhsd", out, lse, q, k, v)["passed"]
    report = torch.library.opcheck(torch.ops.fmhactl.attention.default, (q, k, v), {"causal": True,
                                                                                    "return_lse": True})
    assert all(r == "SUCCESS" for r in report.values()), report
    assert not no_padding


def test_backend_for_still_names_the_padding_for_prefill():
    """Only the decode path changed: a d=96 prefill call still runs at 128 (its family has no hd96;
    the sm90 TMA kernels take it through the TMA zero fill, session 14's tmapad)."""
    import torch

    import fmhactl.torch as ft

    q = torch.zeros(1, 8, 512, 96, dtype=torch.bfloat16, device="cuda")
    backend = ft.backend_for(q)
    assert backend.padded_head_dim == 128 and "d128" in str(backend), backend
