"""A padded batch above the decode kernels' limit through the op in one launch with per-batch key
ranges (fmhactl.torch.hf, docs/torch.md): equal to the row-by-row construction over explicit math
under FlashAttention's rule, one cached plan launch per call and no decode launch, O and LSE of
the op's key_ranges argument against the reference, new range values in the same tensor."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if not torch.cuda.is_available() or torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("key ranges run natively on the SM90 feature kernels (compute capability 9.x)")


def _poison() -> None:
    import torch

    for numel in (1 << 12, 1 << 16, 1 << 20, 1 << 23):
        torch.full((numel,), float("nan"), device="cuda")


@pytest.mark.parametrize("side, seq_q, d, causal", [("left", 511, 64, True), ("right", 511, 128, True),
                                                     ("left", 300, 256, True), ("left", 200, 128, False),
                                                     ("right", 65, 64, True)])
def test_a_padded_prefill_is_one_launch(side, seq_q, d, causal):
    """4 uneven rows (full, 3/4, 1/2, 1/4 of the tokens), T = S > 64: one launch, equal to row by row."""
    import torch

    from fmhactl.torch import decode, fastpath
    from fmhactl.torch.checks import _reference, _rule
    from fmhactl.torch.hf import PaddedBatch, padded_attention
    from fmhactl.torch.op import backend_for

    b, h, hkv = 4, 16, 4
    lengths = (seq_q, 3 * seq_q // 4, seq_q // 2, seq_q // 4)
    rows = tuple((seq_q - n, seq_q) if side == "left" else (0, n) for n in lengths)
    gen = torch.Generator(device="cuda").manual_seed(seq_q + d)
    q = torch.randn(b, h, seq_q, d, generator=gen, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn(b, hkv, seq_q, d, generator=gen, device="cuda").to(torch.bfloat16) for _ in range(2))
    batch = PaddedBatch(rows, 0, causal)
    ranges = torch.tensor(rows, dtype=torch.int32, device="cuda")
    assert backend_for(q, k, v, causal=causal, key_ranges=ranges).variant.endswith("_feat")
    padded_attention(q, k, v, batch, None)  # builds the plan
    before, decodes = fastpath.status()["plan_launches"], decode.launches()
    _poison()
    got = padded_attention(q, k, v, batch, None)
    assert fastpath.status()["plan_launches"] == before + 1 and decode.launches() == decodes, "not one launch"

    def reference(dtype):
        return padded_attention(q, k, v, batch, None,
                                attend=lambda qq, kk, vv, c, s: _reference(qq, kk, vv, c, "bhsd", dtype)[0])

    rule = _rule(got, reference(torch.float32), reference(torch.bfloat16))
    assert rule["passed"], json.dumps(rule)
    if side == "left" and causal:  # the shortest row's first queries see no key: zeros, as row by row
        assert bool((got[3, : seq_q - lengths[3]] == 0).all())


@pytest.mark.parametrize("d, causal, seq_q, seq_k", [(64, True, 300, 300), (128, True, 77, 333),
                                                      (256, False, 200, 260), (128, False, 129, 129)])
def test_op_key_ranges_out_and_lse_match_the_reference(d, causal, seq_q, seq_k):
    import torch

    import fmhactl.torch as ft
    from fmhactl.torch.checks import _rule, lse_rule
    from fmhactl.verify.reference import attention as reference

    gen = torch.Generator(device="cuda").manual_seed(d + seq_q)
    b, h, hkv = 5, 8, 2
    q = torch.randn(b, seq_q, h, d, generator=gen, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn(b, seq_k, hkv, d, generator=gen, device="cuda").to(torch.bfloat16) for _ in range(2))
    ranges = torch.tensor([[0, seq_k], [seq_k // 3, seq_k // 3], [5, seq_k], [0, seq_k - 70], [61, min(190, seq_k)]],
                          dtype=torch.int32, device="cuda")
    _poison()
    out, lse = ft.attention(q, k, v, causal=causal, layout="bshd", return_lse=True, key_ranges=ranges)

    def ref(dtype):
        return reference(q, k, v, causal=causal, compute_dtype=dtype, key_ranges=ranges)

    (r32, l32), (rlow, _), (_, l64) = ref(torch.float32), ref(torch.bfloat16), ref(torch.float64)
    rule = lse_rule(_rule(out, r32, rlow), lse, l32, l64)
    assert rule["passed"], json.dumps(rule)
    assert bool((out[1] == 0).all()) and bool((lse[1] == float("-inf")).all())
    ranges[1] = torch.tensor([0, seq_k // 2], dtype=torch.int32)  # new values, same tensor: the cached plan reads them
    out2, lse2 = ft.attention(q, k, v, causal=causal, layout="bshd", return_lse=True, key_ranges=ranges)
    (r32, l32), (rlow, _), (_, l64) = ref(torch.float32), ref(torch.bfloat16), ref(torch.float64)
    rule = lse_rule(_rule(out2, r32, rlow), lse2, l32, l64)
    assert rule["passed"], json.dumps(rule)


def test_opcheck_with_key_ranges():
    import torch

    gen = torch.Generator(device="cuda").manual_seed(5)
    q = torch.randn(3, 70, 8, 64, generator=gen, device="cuda").to(torch.bfloat16)
    k, v = (torch.randn(3, 90, 2, 64, generator=gen, device="cuda").to(torch.bfloat16) for _ in range(2))
    ranges = torch.tensor([[0, 90], [10, 80], [30, 30]], dtype=torch.int32, device="cuda")
    torch.library.opcheck(torch.ops.fmhactl.attention.default, (q, k, v, None, None, ranges),
                          {"causal": True, "layout": "bshd", "return_lse": True},
                          test_utils=("test_schema", "test_faketensor"))
