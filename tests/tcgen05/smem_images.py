"""Shared-memory images of MMA operands, built the way a TMA load lays them out, plus the
descriptors that describe them for each K step.

Written independently of the emulator's decoder: the emulator computes addresses from LBO/SBO
with the canonical-layout formulas (spec §5.2), while this module writes rows of W-byte swizzle
boxes (TMA row-major boxes, spec §10 'reproduced TMA row-major boxes') or 8x16-byte core
matrices, then XORs absolute addresses (the image starts 1024-byte aligned). The two agreeing on
the GPU is the test.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

LAYOUT_CODES = {"none": 0, "128b_base32b": 1, "128b": 2, "64b": 4, "32b": 6}
SWIZZLE_WIDTH = {"128b_base32b": 128, "128b": 128, "64b": 64, "32b": 32}
ELEM_BYTES = {"bf16": 2, "f16": 2, "tf32": 4}
TORCH_DTYPE = {"bf16": torch.bfloat16, "f16": torch.float16, "tf32": torch.float32}


def encode_desc(start: int, lbo: int, sbo: int, layout: str) -> int:
    """Spec §4.1 fields (start relative to the image; the kernel adds the image's smem address)."""
    for value in (start, lbo, sbo):
        assert value % 16 == 0 and value < (1 << 18), value
    return ((start >> 4) | ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46)
            | (LAYOUT_CODES[layout] << 61))


def swizzle(offsets: torch.Tensor, layout: str) -> torch.Tensor:
    """16-byte chunk index XOR row index within the pattern (TMA swizzle modes, spec §5.3)."""
    if layout == "none":
        return offsets
    if layout == "128b_base32b":
        return offsets ^ (((offsets >> 7) & 3) << 5)
    mask = {"32b": 1, "64b": 3, "128b": 7}[layout]
    return offsets ^ (((offsets >> 7) & mask) << 4)


@dataclass
class OperandImage:
    data: torch.Tensor     # uint8, the bytes to place at a 1024-aligned shared-memory address
    descs: list[int]       # one descriptor per MMA K step
    offsets: torch.Tensor  # (MN, K_total) int64: byte offset of each element in data

    @property
    def nbytes(self) -> int:
        return int(self.data.numel())


def _bits(values: torch.Tensor, dtype: str) -> torch.Tensor:
    """Raw element bits (int64) of values rounded to dtype."""
    if dtype == "tf32":
        return values.to(torch.float32).view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    return values.to(TORCH_DTYPE[dtype]).view(torch.int16).to(torch.int64) & 0xFFFF


def operand_image(values: torch.Tensor, dtype: str, major: str, layout: str) -> OperandImage:
    """values: (MN, K_total) logical operand (A: M x K, B: N x K). major: 'k' or 'mn'."""
    mn_rows, k_total = values.shape
    e = ELEM_BYTES[dtype]
    k_per_mma = 32 // e
    steps = k_total // k_per_mma
    assert k_total % k_per_mma == 0 and mn_rows % 8 == 0
    mn = torch.arange(mn_rows).view(-1, 1).expand(mn_rows, k_total)
    k = torch.arange(k_total).view(1, -1).expand(mn_rows, k_total)
    if major == "k":
        kb = k * e
        if layout == "none":
            sbo, lbo = 128, (mn_rows // 8) * 128  # core matrices: MN groups adjacent, then the next K chunk
            offsets = (kb // 16) * lbo + (mn // 8) * sbo + (mn % 8) * 16 + kb % 16
            size = (k_total * e // 16) * lbo
            descs = [encode_desc(s * 2 * lbo, lbo, sbo, layout) for s in range(steps)]
        else:
            assert layout != "128b_base32b", "128B_base32B is MN-major only"
            w = SWIZZLE_WIDTH[layout]
            box = mn_rows * w  # one TMA box: all MN rows, W bytes of K each
            offsets = (kb // w) * box + mn * w + kb % w
            size = -(-k_total * e // w) * box
            descs = [encode_desc((s * 32 // w) * box + (s * 32) % w, 16, 8 * w, layout) for s in range(steps)]
    else:
        mb = mn * e
        if layout == "none":
            sbo, lbo = 128, (mn_rows * e // 16) * 128  # MN core columns adjacent, then the next 8 K rows
            offsets = (mb // 16) * sbo + (k // 8) * lbo + (k % 8) * 16 + mb % 16
            size = (k_total // 8) * lbo
            descs = [encode_desc(s * (k_per_mma // 8) * lbo, lbo, sbo, layout) for s in range(steps)]
        else:
            w = SWIZZLE_WIDTH[layout]
            box = k_total * w  # one TMA box: W bytes of MN, all K rows
            offsets = (mb // w) * box + k * w + mb % w
            size = -(-mn_rows * e // w) * box
            sbo = 4 * w if layout == "128b_base32b" else 8 * w
            descs = [encode_desc(s * k_per_mma * w, box, sbo, layout) for s in range(steps)]
    size = -(-size // 1024) * 1024
    phys = swizzle(offsets.reshape(-1), layout)
    bits = _bits(values, dtype).reshape(-1)
    data = torch.zeros(size, dtype=torch.uint8)
    for byte in range(e):
        data[phys + byte] = ((bits >> (8 * byte)) & 0xFF).to(torch.uint8)
    assert len(set(phys.tolist())) == phys.numel(), "image offsets collide"
    return OperandImage(data, descs, phys.view(mn_rows, k_total))


def idesc(m: int, n: int, dtype: str, a_major: str, b_major: str, d_f32: bool = True) -> int:
    """Spec §6 instruction descriptor for kind::f16 / kind::tf32."""
    fmt = {"f16": 0, "bf16": 1, "tf32": 2}[dtype]
    return ((int(d_f32) << 4) | (fmt << 7) | (fmt << 10) | (int(a_major == "mn") << 15)
            | (int(b_major == "mn") << 16) | ((n >> 3) << 17) | ((m >> 4) << 24))


def rounded(values: torch.Tensor, dtype: str) -> torch.Tensor:
    """values as the MMA sees them, back in float64 for the reference."""
    return values.to(TORCH_DTYPE[dtype]).to(torch.float64)
