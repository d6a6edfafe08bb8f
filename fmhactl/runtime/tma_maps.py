"""Tensor maps for the SM100 family's TMA loads, checked by the `tma check` rules before encoding.

A (batch, seq, heads, head_dim) tensor becomes a 4-D map {head_dim, seq, heads, batch} with a
box of {64, rows, 1, 1} and the 128B swizzle: each box is one SW128 atom column of the tile.
"""

from __future__ import annotations

import ctypes

from fmhactl.errors import BadInput
from fmhactl.runtime.driver import check

SWIZZLE_ATOM_ELEMENTS = 64  # 128 B of 16-bit elements


class TmaMap(ctypes.Structure):
    _fields_ = [("opaque", ctypes.c_uint64 * 16)]


class FmhaTmaMaps(ctypes.Structure):
    """Mirror of kernels/common/tma.cuh + FmhaTmaMaps in kernels/sm100/fmha_sm100.cuh."""

    _fields_ = [("q", TmaMap), ("k", TmaMap), ("v", TmaMap)]


def map_params(tensor, box_rows: int):
    """The cuTensorMapEncodeTiled parameters for one operand, as the layout model states them."""
    batch, seq, heads, dim = tensor.shape
    elem = tensor.element_size()
    dtype = {"torch.bfloat16": "bf16", "torch.float16": "f16"}[str(tensor.dtype)]
    return family_params(dtype, tensor.data_ptr(), [dim, seq, heads, batch],
                         [tensor.stride(1) * elem, tensor.stride(2) * elem, tensor.stride(0) * elem], box_rows)


def family_params(dtype: str, address: int, dims: list[int], byte_strides: list[int], box_rows: int):
    """The launchers' map of a 16-bit tensor given as the driver takes it: dims {dim, seq, heads,
    batch} and byte strides {seq, heads, batch}; box {64, box_rows, 1, 1}, 128B swizzle. `fmhactl
    tma maps` builds the launchers' maps from a config's numbers this way, without tensors."""
    from fmhactl.layout.tensormap import make_params

    return make_params(dtype, list(dims), list(byte_strides), [SWIZZLE_ATOM_ELEMENTS, box_rows, 1, 1], [1, 1, 1, 1],
                       global_address=address, swizzle="128B", l2_promotion="128B")


def launcher_map_rows(launcher: str, block_m: int, block_n: int) -> tuple[tuple[str, int], ...]:
    """(tensor, box rows) of each map a built-in launcher passes, in its maps struct's order: the
    SM100 kernel's Q/K/V loads (FmhaTmaMaps), the SM90 kernels' Q/K/V loads and O store (Sm90TmaMaps)."""
    if launcher == "sm90":
        return ("q", block_m), ("k", block_n), ("v", block_n), ("o", SM90_STORE_ROWS)
    if launcher == "sm100":
        return ("q", block_m), ("k", block_n), ("v", block_n)
    return ()


def encode(tensor, box_rows: int) -> TmaMap:
    """The map of map_params(tensor, box_rows): cheaply where fmhactl.runtime.tma_fast can vouch for
    it (same bytes, checked once per process), else through the validator."""
    from fmhactl.runtime import tma_fast

    fast = tma_fast.encode(tensor, box_rows, TmaMap, map_params, encode_params)
    return fast if fast is not None else encode_params(map_params(tensor, box_rows))


def encode_params(params) -> TmaMap:
    """Check the parameters against the layout model's rules, then encode them with the driver."""
    from cuda.bindings import driver as cu

    from fmhactl.layout.tensormap import validate

    problems = [p for p in validate(params) if p.severity == "error"]
    if problems:
        raise BadInput("tensor map rejected before encoding: " + "; ".join(f"{p.code}: {p.message}" for p in problems))
    tmap = check(cu.cuTensorMapEncodeTiled(
        cu.CUtensorMapDataType(params.dtype), params.rank, params.global_address,
        [cu.cuuint64_t(v) for v in params.global_dim], [cu.cuuint64_t(v) for v in params.global_strides],
        [cu.cuuint32_t(v) for v in params.box_dim], [cu.cuuint32_t(v) for v in params.element_strides],
        cu.CUtensorMapInterleave(params.interleave), cu.CUtensorMapSwizzle(params.swizzle),
        cu.CUtensorMapL2promotion(params.l2_promotion), cu.CUtensorMapFloatOOBfill(params.oob_fill)),
        "cuTensorMapEncodeTiled")
    out = TmaMap()
    ctypes.memmove(ctypes.addressof(out), tmap.getPtr(), ctypes.sizeof(out))
    return out


def fmha_maps(q, k, v, block_m: int, block_n: int) -> FmhaTmaMaps:
    rows = launcher_map_rows("sm100", block_m, block_n)
    return FmhaTmaMaps(*(encode(t, r) for t, (_, r) in zip((q, k, v), rows)))


class Sm90TmaMaps(ctypes.Structure):
    """Mirror of Sm90TmaMaps in kernels/sm90/fmha_sm90.cuh: Q, K, V loads and the O store."""

    _fields_ = [("q", TmaMap), ("k", TmaMap), ("v", TmaMap), ("o", TmaMap)]


# The O store box: one consumer warpgroup's 64 rows (it stores its half of the query tile).
SM90_STORE_ROWS = 64


def sm90_maps(q, k, v, o, block_m: int, block_n: int) -> Sm90TmaMaps:
    rows = launcher_map_rows("sm90", block_m, block_n)
    return Sm90TmaMaps(*(encode(t, r) for t, (_, r) in zip((q, k, v, o), rows)))
