"""Swizzle arithmetic, in one place: the modes, their descriptor codes and the XOR on addresses.

Spec §5.3: a swizzle XORs address bits [7, 7 + B) into the 16-byte chunk bits [4, 4 + B) (or the
32-byte chunk bits for 128B_base32B), on absolute shared-memory addresses. Spec §4.1 and §4.2 give
the layout codes of the tcgen05 and wgmma descriptors.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.layout.common import LayoutError

SMEM_BANKS = 32


@dataclass(frozen=True)
class SwizzleMode:
    name: str
    width: int  # bytes of one swizzled row (16 for none: one core-matrix row)
    umma_code: int  # tcgen05 descriptor bits 61..63
    wgmma_code: int | None  # Hopper descriptor bits 62..63
    xor_bits: int  # number of address bits XORed
    xor_low: int  # lowest bit that receives the XOR
    repeat: int  # bytes after which the XOR pattern repeats (alignment for base_offset 0)

    def apply(self, addr: int) -> int:
        if self.xor_bits == 0:
            return addr
        mask = (1 << self.xor_bits) - 1
        return addr ^ (((addr >> 7) & mask) << self.xor_low)

    @property
    def swizzled(self) -> bool:
        return self.xor_bits > 0


NONE = SwizzleMode("none", 16, 0, 0, 0, 4, 128)
SW32 = SwizzleMode("32B", 32, 6, 3, 1, 4, 256)
SW64 = SwizzleMode("64B", 64, 4, 2, 2, 4, 512)
SW128 = SwizzleMode("128B", 128, 2, 1, 3, 4, 1024)
SW128_BASE32B = SwizzleMode("128B_base32B", 128, 1, None, 2, 5, 512)
SWIZZLES = (NONE, SW32, SW64, SW128, SW128_BASE32B)

_SWIZZLE_ALIASES = {
    "none": NONE, "0": NONE, "interleave": NONE, "no": NONE, "sw0": NONE,
    "32b": SW32, "32": SW32, "sw32": SW32, "b32": SW32,
    "64b": SW64, "64": SW64, "sw64": SW64, "b64": SW64,
    "128b": SW128, "128": SW128, "sw128": SW128, "b128": SW128,
    "128b_base32b": SW128_BASE32B, "128b_32b": SW128_BASE32B, "base32b": SW128_BASE32B,
    "128b_atom_32b": SW128_BASE32B, "sw128_32b": SW128_BASE32B, "128b-32b": SW128_BASE32B,
}


def parse_swizzle(text: str | SwizzleMode) -> SwizzleMode:
    if isinstance(text, SwizzleMode):
        return text
    mode = _SWIZZLE_ALIASES.get(str(text).strip().lower())
    if mode is None:
        raise LayoutError(f"unknown swizzle {text!r} (one of none, 32B, 64B, 128B, 128B_base32B)")
    return mode


def swizzle_from_umma_code(code: int) -> SwizzleMode | None:
    return next((s for s in SWIZZLES if s.umma_code == code), None)


def swizzle_from_wgmma_code(code: int) -> SwizzleMode | None:
    return next((s for s in SWIZZLES if s.wgmma_code == code), None)


def parse_major(text: str) -> str:
    key = str(text).strip().upper().replace("-", "").replace("_", "")
    if key in ("K", "KMAJOR"):
        return "K"
    if key in ("MN", "M", "N", "MNMAJOR", "T"):
        return "MN"
    raise LayoutError(f"unknown major-ness {text!r} (K or MN)")


def swizzle_addr(addr: int, swizzle: str | SwizzleMode) -> int:
    """Physical byte address of logical address `addr` (absolute shared-memory address)."""
    return parse_swizzle(swizzle).apply(addr)


def bank_of(addr: int) -> int:
    return (addr // 4) % SMEM_BANKS
