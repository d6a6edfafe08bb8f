"""What one shared-memory descriptor means: operand element (mn, k) -> byte address (spec §5.2).

The canonical-layout formulas, shared by the tile model (smem.py) and the descriptor decoder
(descriptors.py); the swizzle itself is swizzle.py (spec §5.3).
"""

from __future__ import annotations

from fmhactl.layout.common import LayoutError
from fmhactl.layout.swizzle import SW128_BASE32B, SwizzleMode, parse_major, parse_swizzle

CORE_BYTES = 16


def _unswizzled(major: str, swz: SwizzleMode, mn: int, k: int, e: int, lbo: int, sbo: int, start: int) -> int:
    t = CORE_BYTES // e  # elements per 16-byte core-matrix row
    if not swz.swizzled:
        if major == "K":
            return start + (mn % 8) * 16 + (mn // 8) * sbo + (k % t) * e + (k // t) * lbo
        return start + (mn % t) * e + (mn // t) * sbo + (k % 8) * 16 + (k // 8) * lbo
    w = swz.width
    if major == "K":
        if swz is SW128_BASE32B:
            raise LayoutError("128B_base32B is MN-major only (CUTLASS static_assert; PTX Table 54 is ambiguous)")
        if not 0 <= k < w // e:
            raise LayoutError(f"K-major {swz.name}: one descriptor covers k < {w // e} elements of "
                              f"{e} bytes; advance the start address for k = {k}")
        return start + (mn % 8) * w + (mn // 8) * sbo + k * e
    if swz is SW128_BASE32B:
        return start + (mn % (128 // e)) * e + (mn // (128 // e)) * lbo + (k % 4) * 128 + (k // 4) * sbo
    return start + (mn % (w // e)) * e + (mn // (w // e)) * lbo + (k % 8) * w + (k // 8) * sbo


def desc_offset(major: str, swizzle: str | SwizzleMode, mn: int, k: int, elem_bytes: int, lbo: int, sbo: int,
                start: int = 0) -> int:
    """Byte address the MMA reads for element (mn, k) of a descriptor (start, LBO, SBO all in bytes).

    For K-major swizzled layouts k must lie inside one swizzle row (k < width / elem_bytes).
    """
    if elem_bytes not in (1, 2, 4):
        raise LayoutError(f"element size must be 1, 2 or 4 bytes; got {elem_bytes}")
    if mn < 0 or k < 0:
        raise LayoutError("coordinates must be non-negative")
    swz = parse_swizzle(swizzle)
    return swz.apply(_unswizzled(parse_major(major), swz, mn, k, elem_bytes, lbo, sbo, start))
