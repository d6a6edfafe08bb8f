"""MHA decode over a large cache on a GPU: from decode.family_from_keys on, the op leaves the split
kernel for the prefill family, whose cached plan takes each new KV length in place
(fmhactl.torch.kv_length). Every step of a growing cache (both layouts, causal T = 4, a static
cache's long strides) is checked under FlashAttention's rule (out and LSE, fresh queries, freed
memory NaN-poisoned), on one plan, with no split-kernel launch; one key below the threshold the
split kernel serves the same signature again."""

from __future__ import annotations

import pytest

from tests.torch.test_decode_gpu import _poison, check_rule

pytestmark = pytest.mark.gpu

# (batch, heads = KV heads, seq_q, dim, causal, layout, cache room past the threshold (0: exact))
CASES = (
    (64, 4, 1, 128, False, "bhsd", 0),
    (64, 4, 4, 64, True, "bshd", 0),
    (64, 4, 1, 128, False, "bhsd", 64),   # a static cache's view: the strides stay, the length grows
)
STEPS = 3


@pytest.mark.parametrize("case", CASES)
def test_mha_decode_over_a_large_cache_takes_the_family_in_place(case):
    import torch

    import fmhactl.torch as ft
    from fmhactl.runtime.device import sm_count
    from fmhactl.torch import decode, fastpath

    b, h, sq, d, causal, layout, room = case
    start = decode.family_from_keys(b, h, h, d, 2, sm_count(torch.cuda.current_device()))
    assert start is not None, "the case must qualify on this GPU"
    fastpath.clear()
    gen = torch.Generator(device="cuda").manual_seed(23)
    capacity = start + STEPS + room
    dims = (2, b, h, capacity, d) if layout == "bhsd" else (2, b, capacity, h, d)
    cache = torch.randn(*dims, generator=gen, device="cuda").to(torch.bfloat16)

    def kv(length: int):
        return (cache[0, :, :, :length], cache[1, :, :, :length]) if layout == "bhsd" else (
            cache[0, :, :length], cache[1, :, :length])

    def query():
        shape = (b, h, sq, d) if layout == "bhsd" else (b, sq, h, d)
        return torch.randn(*shape, generator=gen, device="cuda").to(torch.bfloat16)

    launches = decode.launches()
    for length in range(start, start + STEPS):
        q, (k, v) = query(), kv(length)
        _poison()
        out, lse = ft.attention(q, k, v, causal=causal, return_lse=True, layout=layout)
        result = check_rule(causal, layout, out, lse, q, k, v)
        assert result["passed"], (length, result)
    status = fastpath.status()
    assert decode.launches() == launches  # the split kernel took none of them
    assert status["plans"] == 1 and status["kv_length_refreshes"] == STEPS - 1, status
    q, (k, v) = query(), kv(start - 1)
    out, lse = ft.attention(q, k, v, causal=causal, return_lse=True, layout=layout)
    assert decode.launches() == launches + 1  # below the threshold: the split kernel again
    assert check_rule(causal, layout, out, lse, q, k, v)["passed"]
