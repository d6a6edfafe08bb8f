"""Cheap encoding of the kernels' one tensor-map family, for plans built per call signature.

Every map the SM90/SM100 launchers encode (map_params of fmhactl.runtime.tma_maps) is the same
family: a 16-bit (batch, seq, heads, dim) tensor as a rank-4 map {dim, seq, heads, batch}, box
{64, rows, 1, 1}, element strides 1, no interleave, 128B swizzle, 128B L2 promotion, no OOB fill.
Within that family the layout model's validator (fmhactl.layout.tensormap) can refuse a map for
four reasons only: the address (16-byte aligned), a dimension, a stride (a multiple of 16 in
range) or the box rows out of range; everything else is fixed. So instead of building the
parameter object and running every rule (about 0.3 ms a map on a slow host; the torch op's plan
build encodes four), `encode` checks those four rules with the validator's own ranges, validates
the family once per (dtype, box rows) with the full validator, and calls cuTensorMapEncodeTiled on
libcuda through ctypes. The first map of each (dtype, box rows) in a process is also encoded the
validated way; unless both are equal byte for byte, the cheap path turns itself off for good.
Returns None whenever it cannot vouch for a map: the caller then takes the validated path.
"""

from __future__ import annotations

import ctypes
import os
import threading

ENABLE_ENV = "FMHACTL_TMA_FAST"  # "0": always encode through the validator
SWIZZLE_ATOM_ELEMENTS = 64

_lock = threading.Lock()
_state: dict[str, object] = {"enabled": os.environ.get(ENABLE_ENV, "1") != "0", "encoder": None, "why_off": None}
_checked: dict[tuple[int, int], bool] = {}  # (dtype enum, box rows) -> family validated and byte-compared


class RawEncoder:
    """cuTensorMapEncodeTiled on libcuda through ctypes (the documented driver entry point)."""

    def __init__(self, library: str = "libcuda.so.1") -> None:
        u32, u64, ptr, i32 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int
        fn = ctypes.CDLL(library).cuTensorMapEncodeTiled
        fn.argtypes = [ptr, i32, u32, ptr, ctypes.POINTER(u64), ctypes.POINTER(u64), ctypes.POINTER(u32),
                       ctypes.POINTER(u32), i32, i32, i32, i32]
        fn.restype = i32
        self._fn = fn

    def encode(self, out: ctypes.Structure, dtype: int, address: int, dims: tuple, strides: tuple, box: tuple,
               swizzle: int, l2_promotion: int) -> int:
        u32, u64 = ctypes.c_uint32, ctypes.c_uint64
        return self._fn(ctypes.addressof(out), dtype, 4, address, (u64 * 4)(*dims), (u64 * 3)(*strides),
                        (u32 * 4)(*box), (u32 * 4)(1, 1, 1, 1), 0, swizzle, l2_promotion, 0)


def set_enabled(enabled: bool) -> None:
    """Turn the cheap path on or off for this process; a failed byte comparison keeps it off."""
    _state["enabled"] = bool(enabled) and not (_state["why_off"] or "").startswith(_FAILED_CHECK)


def status() -> dict:
    return {"enabled": bool(_state["enabled"]), "families_checked": len(_checked), "off_reason": _state["why_off"]}


def _encoder():
    if _state["encoder"] is None and _state["why_off"] is None:
        try:
            _state["encoder"] = RawEncoder()
        except (OSError, AttributeError) as exc:
            _state["why_off"] = f"libcuda could not be bound through ctypes: {exc}"
    return _state["encoder"]


_FAILED_CHECK = "check failed: "


def _turn_off(why: str) -> None:
    _state["enabled"] = False
    _state["why_off"] = _FAILED_CHECK + why


def family_args(tensor, box_rows: int) -> tuple | None:
    """(dtype enum, address, dims, byte strides, box) of the family map of a (batch, seq, heads, dim)
    tensor (the values tma_maps.map_params gives), or None where one of the four variable rules
    (or the family itself) does not hold."""
    from fmhactl.layout.tensormap import PARAM, DataType

    dtype = {"torch.bfloat16": DataType.BFLOAT16, "torch.float16": DataType.FLOAT16}.get(str(tensor.dtype))
    if dtype is None or tensor.dim() != 4 or tensor.stride(3) != 1:
        return None
    batch, seq, heads, dim = tensor.shape
    address = tensor.data_ptr()
    dims = (dim, seq, heads, batch)
    strides = (tensor.stride(1) * 2, tensor.stride(2) * 2, tensor.stride(0) * 2)
    box = (SWIZZLE_ATOM_ELEMENTS, box_rows, 1, 1)
    if (address % 16 or any(s % 16 for s in strides) or PARAM["globalDim"].out_of_range(dims)
            or PARAM["globalStrides"].out_of_range(strides) or PARAM["boxDim"].out_of_range(box)):
        return None
    return int(dtype), address, dims, strides, box


def encode(tensor, box_rows: int, map_type: type, map_params, encode_params):
    """The map of map_params(tensor, box_rows), encoded cheaply into a new map_type, or None (use
    the validated path, encode_params(map_params(...))). fmhactl.runtime.tma_maps passes its own
    three, so this module does not import it back."""
    if not _state["enabled"]:
        return None
    args = family_args(tensor, box_rows)
    if args is None:
        return None
    encoder = _encoder()
    if encoder is None:
        return None
    dtype = args[0]
    if not _checked.get((dtype, box_rows)):
        with _lock:
            if not _vouch(encoder, tensor, box_rows, args, map_type, map_params, encode_params):
                return None
    from fmhactl.layout.tensormap import L2Promotion, Swizzle

    out = map_type()
    if encoder.encode(out, *args, int(Swizzle.B128), int(L2Promotion.L2_128B)):
        return None  # the driver refused: let the validated path name the rule
    return out


def _vouch(encoder: RawEncoder, tensor, box_rows: int, args: tuple, map_type: type, map_params,
           encode_params) -> bool:
    """Once per (dtype, box rows): the family passes the full validator and the ctypes encoding
    equals the validated encoding byte for byte; otherwise the cheap path is turned off."""
    from fmhactl.layout.tensormap import L2Promotion, Swizzle, validate

    key = (args[0], box_rows)
    if _checked.get(key):
        return True
    try:
        params = map_params(tensor, box_rows)
        family = (params.rank, params.element_strides, params.interleave, params.swizzle, params.l2_promotion,
                  params.oob_fill)
        if family != (4, (1, 1, 1, 1), 0, int(Swizzle.B128), int(L2Promotion.L2_128B), 0):
            _turn_off(f"tma_maps.map_params left the family: {family}")
            return False
        if (params.dtype, params.global_address, tuple(params.global_dim), tuple(params.global_strides),
                tuple(params.box_dim)) != args:
            _turn_off("the cheap encoder's arguments differ from tma_maps.map_params")
            return False
        if any(p.severity == "error" for p in validate(params)):
            return False  # not a family problem: this map is refused; the validated path says why
        validated = encode_params(params)
        fast = map_type()
        rc = encoder.encode(fast, *args, int(Swizzle.B128), int(L2Promotion.L2_128B))
    except Exception as exc:  # noqa: BLE001 - the check must never fail the call it runs in
        _turn_off(f"the cheap encoder could not be checked: {type(exc).__name__}: {exc}".splitlines()[0])
        return False
    if rc or bytes(fast) != bytes(validated):
        _turn_off(f"cuTensorMapEncodeTiled through ctypes did not reproduce the validated encoding (rc {rc})")
        return False
    _checked[key] = True
    return True
