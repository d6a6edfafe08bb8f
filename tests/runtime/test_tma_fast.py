"""The cheap tensor-map encoder on a CPU: its arguments equal map_params' for the whole family,
its four per-map rules accept exactly what the validator accepts there, and it vouches for a
(dtype, box) only after a byte-for-byte match with the validated encoding (driver stubbed)."""

from __future__ import annotations

import ctypes
import itertools

import pytest
import torch

from fmhactl.layout.tensormap import validate
from fmhactl.runtime import tma_fast, tma_maps


class FakeTensor:
    """Shape, strides, dtype and an address: all the encoders read (no memory behind it)."""

    def __init__(self, shape, stride, dtype=torch.bfloat16, address=1 << 20):
        self.shape, self._stride, self.dtype, self._address = tuple(shape), tuple(stride), dtype, address

    def stride(self, i=None):
        return self._stride if i is None else self._stride[i]

    def dim(self):
        return len(self.shape)

    def data_ptr(self):
        return self._address

    def element_size(self):
        return 2


def _cases():
    for b, s, h, d, layout, rows, address, pad in itertools.product(
            (1, 3), (1, 17, 4096), (1, 4), (64, 128, 96, 40), ("bshd", "bhsd"), (64, 128, 300),
            (1 << 20, (1 << 20) + 8), (0, 4)):
        row = d + pad
        stride = (s * h * row, h * row, row, 1) if layout == "bshd" else (s * h * row, row, s * row, 1)
        yield FakeTensor((b, s, h, d), stride, address=address), rows


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_family_rules_accept_exactly_what_the_validator_accepts(dtype):
    seen = {True: 0, False: 0}
    for tensor, rows in _cases():
        tensor.dtype = dtype
        params = tma_maps.map_params(tensor, rows)
        valid = not [p for p in validate(params) if p.severity == "error"]
        args = tma_fast.family_args(tensor, rows)
        assert (args is not None) == valid, (tensor.shape, tensor.stride(), rows, tensor.data_ptr())
        if args is not None:
            assert args == (params.dtype, params.global_address, tuple(params.global_dim),
                            tuple(params.global_strides), tuple(params.box_dim))
        seen[valid] += 1
    assert seen[True] and seen[False]


class StubEncoder:
    """Writes the arguments into the map, so equal arguments give equal bytes."""

    def __init__(self, corrupt: bool = False) -> None:
        self.calls = 0
        self.corrupt = corrupt

    def encode(self, out, dtype, address, dims, strides, box, swizzle, l2) -> int:
        self.calls += 1
        words = [dtype, address, *dims, *strides, *box, swizzle, l2 + (1 if self.corrupt else 0)]
        ctypes.memmove(ctypes.addressof(out), (ctypes.c_uint64 * len(words))(*words), 8 * len(words))
        return 0


@pytest.fixture
def stubbed(monkeypatch):
    def install(corrupt: bool = False):
        encoder = StubEncoder(corrupt)
        monkeypatch.setitem(tma_fast._state, "encoder", encoder)
        monkeypatch.setitem(tma_fast._state, "enabled", True)
        monkeypatch.setitem(tma_fast._state, "why_off", None)
        monkeypatch.setattr(tma_fast, "_checked", {})
        monkeypatch.setattr(tma_maps, "encode_params", lambda p: _stub_validated(p, corrupt=False))
        return encoder
    return install


def _stub_validated(params, corrupt):
    out = tma_maps.TmaMap()
    StubEncoder(corrupt).encode(out, params.dtype, params.global_address, tuple(params.global_dim),
                                tuple(params.global_strides), tuple(params.box_dim), params.swizzle,
                                params.l2_promotion)
    return out


def test_cheap_maps_equal_validated_ones_and_are_vouched_for_once(stubbed):
    encoder = stubbed()
    tensors = [FakeTensor((1, s, 4, 128), (s * 512, 512, 128, 1)) for s in (17, 2048, 2049)]
    for t in tensors:
        assert bytes(tma_maps.encode(t, 128)) == bytes(_stub_validated(tma_maps.map_params(t, 128), False))
    assert encoder.calls == 3 + 1  # one extra for the byte comparison of the family
    assert tma_fast.status()["families_checked"] == 1 and tma_fast.status()["off_reason"] is None


def test_a_mismatch_turns_the_cheap_path_off(stubbed):
    stubbed(corrupt=True)
    t = FakeTensor((1, 64, 4, 128), (64 * 512, 512, 128, 1))
    got = tma_maps.encode(t, 128)  # still the validated map
    assert bytes(got) == bytes(_stub_validated(tma_maps.map_params(t, 128), False))
    assert not tma_fast.status()["enabled"] and "did not reproduce" in tma_fast.status()["off_reason"]


def test_maps_outside_the_rules_take_the_validated_path(stubbed):
    encoder = stubbed()
    odd = FakeTensor((1, 64, 4, 128), (64 * 516, 516, 129, 1))  # 258-byte head stride: not a multiple of 16
    assert tma_fast.encode(odd, 128, tma_maps.TmaMap, tma_maps.map_params, tma_maps.encode_params) is None
    assert encoder.calls == 0
