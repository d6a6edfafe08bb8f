"""The decode route to the prefill family (decode.family_from_keys) and the family plan that takes a
new KV length in place (fmhactl.torch.kv_length), on the CPU: which signatures qualify, what the
KV-free key keeps, and what a refresh writes or refuses (the map encoder stubbed: it needs the driver).
tests/torch/test_kv_length_gpu.py runs the path on a GPU."""

from __future__ import annotations

import ctypes

import pytest
import torch

from fmhactl.errors import BadInput
from fmhactl.runtime.params import FmhaParams
from fmhactl.runtime.tma_maps import Sm90TmaMaps, TmaMap
from fmhactl.torch import decode, fastpath, kv_length


@pytest.mark.parametrize("batch, heads, heads_kv, head_dim, sm_count, expected", [
    (64, 16, 16, 128, 132, decode.FAMILY_MIN_KV_BYTES // (2 * 64 * 16 * 128 * 2)),  # b64 h16 d128: 1024 keys
    (8, 32, 32, 128, 132, decode.FAMILY_MIN_KV_BYTES // (2 * 8 * 32 * 128 * 2)),    # 256 pairs
    (64, 16, 16, 64, 132, decode.FAMILY_MIN_KV_BYTES // (2 * 64 * 16 * 64 * 2)),
    (132, 1, 1, 256, 132, -(-decode.FAMILY_MIN_KV_BYTES // (2 * 132 * 256 * 2))),  # exactly a wave; rounded up
    (64, 32, 8, 128, 132, None),   # GQA: the split kernel reads each KV head once for 4 query heads
    (4, 32, 32, 128, 132, None),   # 128 pairs, under a wave: splits
    (64, 16, 16, 96, 132, None),   # a head dim not measured (the family would pad it)
    (64, 16, 16, 128, 2048, None),  # a GPU with more SMs than pairs
])
def test_family_takes_mha_decode_over_a_large_cache(batch, heads, heads_kv, head_dim, sm_count, expected):
    got = decode.family_from_keys(batch, heads, heads_kv, head_dim, 2, sm_count)
    assert got == expected
    if got is not None:  # the first length whose K and V reach the threshold
        per_key = 2 * batch * heads_kv * head_dim * 2
        assert got * per_key >= decode.FAMILY_MIN_KV_BYTES > (got - 1) * per_key


def _kv(layout: str, length: int, room: int, heads: int = 4, dim: int = 64, batch: int = 2):
    cache = torch.zeros(2, batch, heads, room, dim, dtype=torch.bfloat16)
    if layout == "bshd":
        cache = torch.zeros(2, batch, room, heads, dim, dtype=torch.bfloat16)
        return cache[0, :, :length], cache[1, :, :length]
    return cache[0, :, :, :length], cache[1, :, :, :length]


@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
def test_kv_free_key_ignores_the_kv_length_and_strides_only(layout):
    q = torch.zeros(2, 4, 1, 64, dtype=torch.bfloat16) if layout == "bhsd" else torch.zeros(2, 1, 4, 64,
                                                                                              dtype=torch.bfloat16)

    def key(k, v, **kw):
        args = dict(causal=False, scale=None, return_lse=False, layout=layout) | kw
        return fastpath.call_key(q, k, v, args["causal"], args["scale"], args["return_lse"], args["layout"],
                                 with_kv_length=False)

    base = key(*_kv(layout, 100, 100))
    assert key(*_kv(layout, 101, 101)) == base   # one more key, contiguous: strides change too
    assert key(*_kv(layout, 150, 4096)) == base  # a static cache's view
    assert key(*_kv(layout, 100, 100, heads=8)) != base
    assert key(*_kv(layout, 100, 100, dim=128)) != base
    assert key(*_kv(layout, 100, 100, batch=3)) != base
    assert key(*_kv(layout, 100, 100), causal=True) != base
    assert key(*_kv(layout, 100, 100), return_lse=True) != base
    k, v = _kv(layout, 100, 100)
    assert key(k.to(torch.float16), v.to(torch.float16)) != base


class _Plan:
    """What KvRefresh.apply touches of a LaunchPlan."""

    def __init__(self):
        self.params = FmhaParams()
        self.maps = Sm90TmaMaps()
        self.map_addresses = [0, 0, 0, 0]


def _refresh(layout: str) -> kv_length.KvRefresh:
    return kv_length.KvRefresh(layout, 128, (Sm90TmaMaps.k.offset, Sm90TmaMaps.v.offset), (1, 2), ())


@pytest.fixture
def encoded(monkeypatch):
    """The encoder stubbed: a map whose first word is the view's sequence length, second its box rows."""
    calls = []

    def encode(view, box_rows):
        calls.append((tuple(view.shape), box_rows))
        m = TmaMap()
        m.opaque[0], m.opaque[1] = view.shape[1], box_rows
        return m

    monkeypatch.setattr("fmhactl.runtime.tma_maps.encode", encode)
    return calls


@pytest.mark.parametrize("layout", ["bhsd", "bshd"])
def test_refresh_writes_the_kv_length_strides_and_maps(encoded, layout):
    plan, refresh = _Plan(), _refresh(layout)
    k, v = _kv(layout, 300, 512)
    state = kv_length.kv_state(k, v)
    assert refresh.apply(plan, k, v, state)
    p = plan.params
    kb = k if layout == "bshd" else k.transpose(1, 2)
    assert p.seq_k == 300
    assert (p.k_batch_stride, p.k_seq_stride, p.k_head_stride) == kb.stride()[:3]
    assert (p.v_batch_stride, p.v_seq_stride, p.v_head_stride) == kb.stride()[:3]
    assert [(plan.maps.k.opaque[0], plan.maps.k.opaque[1]), (plan.maps.v.opaque[0], plan.maps.v.opaque[1])] == [
        (300, 128), (300, 128)]
    assert plan.maps.q.opaque[0] == 0 and plan.maps.o.opaque[0] == 0  # Q's and O's maps untouched
    assert plan.map_addresses == [0, k.data_ptr(), v.data_ptr(), 0]
    assert refresh.state == state and refresh.refreshes == 1 and len(encoded) == 2


def test_refresh_refuses_what_the_general_path_must_say(encoded, monkeypatch):
    plan, refresh = _Plan(), _refresh("bhsd")
    k, v = _kv("bhsd", 300, 300)
    assert not refresh.apply(plan, k, v[:, :, :299], ())            # K and V of different lengths
    odd = torch.zeros(2, 4, 300, 65, dtype=torch.bfloat16)[..., :64]  # a 130-byte row: no tile load
    assert not refresh.apply(plan, odd, odd, ())
    assert not refresh.apply(plan, k[:, :, :0], v[:, :, :0], ())      # no key

    def rejected(view, box_rows):
        raise BadInput("the validator's rule")

    monkeypatch.setattr("fmhactl.runtime.tma_maps.encode", rejected)
    assert not refresh.apply(plan, k, v, ())
    assert plan.params.seq_k == 0 and refresh.refreshes == 0  # nothing written by a refused call
