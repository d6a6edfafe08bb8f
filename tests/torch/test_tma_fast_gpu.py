"""The cheap TMA encode on a GPU: the cached path's plans for new prefill signatures vouch for it
(a byte-for-byte match with the validated encoding, per dtype and box), and the op's outputs are
bit for bit the same with it turned off."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gpu


def test_new_signatures_encode_cheaply_with_the_same_results():
    import torch

    import fmhactl.torch as ft
    from fmhactl.runtime import tma_fast
    from fmhactl.torch import fastpath

    results = {}
    for cheap in (True, False):
        tma_fast.set_enabled(cheap)
        fastpath.clear()
        try:
            for t in (33, 190, 513):  # new prefill lengths: one plan (four maps) each
                gen = torch.Generator(device="cuda").manual_seed(t)
                q = torch.randn(1, 16, t, 128, generator=gen, device="cuda").to(torch.bfloat16)
                k, v = (torch.randn(1, 4, t, 128, generator=gen, device="cuda").to(torch.bfloat16) for _ in range(2))
                results[(cheap, t)] = ft.attention(q, k, v, causal=True, return_lse=True)
        finally:
            tma_fast.set_enabled(True)
    status = tma_fast.status()
    if torch.cuda.get_device_capability()[0] == 9:
        assert status["families_checked"] >= 1 and status["off_reason"] is None, status
    for t in (33, 190, 513):
        (a, la), (b, lb) = results[(True, t)], results[(False, t)]
        assert torch.equal(a, b) and torch.equal(la, lb)
