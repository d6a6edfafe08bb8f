"""CPU dry run of the GPU MMA test's host side: run_mma drives a Python stand-in for mma.cu that
decodes the parameter block exactly as the spec's reference model does (tcgen05-spec.md §10:
decode_smem_desc, smem_elem_addr, d_cell, a_cell). It proves the harness (operand images,
per-step descriptors, TS A words, D read-back, sentinel lanes, tolerance) before a GPU sees it."""

from __future__ import annotations

import ctypes

import pytest
import torch

from fmhactl.layout import accum
from fmhactl.layout import tmem as tmem_model

from tc5_cases import run_mma


def _spec_swizzle(a: torch.Tensor, lay: int) -> torch.Tensor:
    return {0: a, 6: a ^ (((a >> 7) & 1) << 4), 4: a ^ (((a >> 7) & 3) << 4),
            2: a ^ (((a >> 7) & 7) << 4), 1: a ^ (((a >> 7) & 3) << 5)}[lay]


def _spec_elem_addr(desc: int, k_major: bool, e: int, mn: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    s, lo, so = (desc & 0x3FFF) << 4, ((desc >> 16) & 0x3FFF) << 4, ((desc >> 32) & 0x3FFF) << 4
    lay = (desc >> 61) & 7
    w = {6: 32, 4: 64, 2: 128, 1: 128}.get(lay, 0)
    assert (desc >> 46) & 7 == 1 and (desc >> 49) & 7 == 0
    if k_major:
        if lay == 0:
            a = s + (mn % 8) * 16 + (mn // 8) * so + (k % (16 // e)) * e + (k // (16 // e)) * lo
        else:
            a = s + (mn % 8) * w + (mn // 8) * so + k * e
    elif lay == 0:
        a = s + (mn % (16 // e)) * e + (mn // (16 // e)) * so + (k % 8) * 16 + (k // 8) * lo
    elif lay == 1:
        a = s + (mn % (128 // e)) * e + (mn // (128 // e)) * lo + (k % 4) * 128 + (k // 4) * so
    else:
        a = s + (mn % (w // e)) * e + (mn // (w // e)) * lo + (k % 8) * w + (k // 8) * so
    return _spec_swizzle(a, lay)


def _values(image: bytes, addrs: torch.Tensor, fmt: int) -> torch.Tensor:
    raw = torch.frombuffer(bytearray(image), dtype=torch.uint8)
    e = 4 if fmt == 2 else 2
    bits = sum(raw[addrs + i].to(torch.int64) << (8 * i) for i in range(e))
    if fmt == 2:
        return (bits - (bits >= 2**31).to(torch.int64) * 2**32).to(torch.int32).view(torch.float32).double()
    as16 = (bits - (bits >= 2**15).to(torch.int64) * 2**16).to(torch.int16)
    return as16.view(torch.float16 if fmt == 0 else torch.bfloat16).double()


class FakeMmaModule:
    """Does what mma.cu does, in Python, on host pointers."""

    def run(self, kernel: str, p, grid=(1, 1, 1), block=(128, 1, 1), smem: int = 0):
        idesc = p.idesc
        m_rows, n_cols = ((idesc >> 24) & 31) << 4, ((idesc >> 17) & 63) << 3
        fmt = (idesc >> 7) & 7
        assert fmt == (idesc >> 10) & 7 and (kernel == "mma_tf32") == (fmt == 2)
        e = 4 if fmt == 2 else 2
        kk = 32 // e
        a_mn, b_mn = bool((idesc >> 15) & 1), bool((idesc >> 16) & 1)
        assert smem >= 1024 + p.a_bytes + p.b_bytes
        b_image = ctypes.string_at(p.b_image, p.b_bytes)
        mn_m, k_m = torch.meshgrid(torch.arange(m_rows), torch.arange(kk), indexing="ij")
        mn_n, k_n = torch.meshgrid(torch.arange(n_cols), torch.arange(kk), indexing="ij")
        d = torch.zeros(m_rows, n_cols, dtype=torch.float64)
        if p.ts:
            words = torch.frombuffer(bytearray(ctypes.string_at(p.a_tmem, 128 * p.a_cols * 4)),
                                     dtype=torch.int32).view(128, p.a_cols).to(torch.int64) & 0xFFFFFFFF
        for s in range(p.k_steps):
            b = _values(b_image, _spec_elem_addr(p.b_desc[s], not b_mn, e, mn_n, k_n), fmt)
            if p.ts:
                a = torch.empty(m_rows, kk, dtype=torch.float64)
                for m in range(m_rows):
                    for k in range(kk):
                        lane, col, bit = accum.a_cell(m_rows, m, k, p.d_lane0 << 16, 8 * e)
                        word = int(words[lane, col + 8 * s]) >> bit
                        word &= (1 << (8 * e)) - 1
                        a[m, k] = _values(word.to_bytes(e, "little"), torch.tensor([0]), fmt)[0]
            else:
                a_image = ctypes.string_at(p.a_image, p.a_bytes)
                a = _values(a_image, _spec_elem_addr(p.a_desc[s], not a_mn, e, mn_m, k_m), fmt)
            d += a @ b.T
        out = torch.full((128, n_cols), -1, dtype=torch.int32)
        for m in range(m_rows):
            lane, _ = accum.d_cell(m_rows, m, 0, p.d_lane0 << 16)
            out[lane] = d[m].to(torch.float32).view(torch.int32)
        ctypes.memmove(p.d_out, out.numpy().tobytes(), out.numel() * 4)
        return []


CASES = [(m, n, major, layout, dtype, ts)
         for (m, n) in ((64, 8), (128, 16), (64, 64))
         for major in ("k", "mn") for layout in ("none", "32b", "64b", "128b")
         for dtype in ("bf16",) for ts in (False, True)]
CASES += [(128, 32, "k", "128b", "f16", False), (64, 16, "mn", "128b_base32b", "tf32", False),
          (128, 8, "k", "64b", "tf32", True), (128, 8, "mn", "128b_base32b", "tf32", True)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(map(str, c)))
def test_run_mma_host_side_with_spec_model(case):
    m, n, major, layout, dtype, ts = case
    lane0 = 16 if m == 64 and major == "mn" else 0
    run_mma(FakeMmaModule(), m=m, n=n, dtype=dtype, major=major, layout=layout, ts=ts, seed=5, lane0=lane0,
            device="cpu")


def test_dry_run_catches_a_wrong_result():
    class Broken(FakeMmaModule):
        def run(self, kernel, p, **kw):
            super().run(kernel, p, **kw)
            ctypes.memmove(p.d_out, (0).to_bytes(4, "little"), 4)  # lane 0, n 0 -> 0.0
            return []

    with pytest.raises(AssertionError):
        run_mma(Broken(), m=128, n=8, dtype="bf16", major="k", layout="128b", ts=False, seed=3, device="cpu")


# ---- ld/st: the GPU test's expectations against a Python stand-in for ldst.cu ----------------------

class FakeLdStModule:
    """ldst.cu in Python: the layout model moves the data, the kernel's geometry is re-typed here."""

    def run(self, kernel: str, p, grid=(1, 1, 1), block=(128, 1, 1), smem: int = 0):
        import test_tc5_gpu as gpu_tests

        direction, rest = kernel.split("_", 1)
        pack = rest.endswith("_pack")
        shape, num = rest.removesuffix("_pack").rsplit("_x", 1)
        num = int(num)
        half = shape not in ("32x32b", "16x32bx2")
        out = (ctypes.c_uint32 * (128 * 512)).from_address(p.out)
        if direction == "ld":
            for w in range(4):
                taddr = ((32 * w + (16 if half and w % 2 else 0)) << 16) | p.col_base
                for acc in tmem_model.ld_map(shape, num, pack, taddr):
                    value = gpu_tests._pattern(acc.lane, acc.col)
                    part = (value >> acc.tmem_bit_lo) & ((1 << acc.nbits) - 1)
                    index = (w * 32 + acc.thread) * 128 + acc.reg
                    out[index] = (out[index] | (part << acc.reg_bit_lo)) & 0xFFFFFFFF
        else:
            cells = {(lane, col): 0xDEADBEEF for lane in range(128) for col in range(512)}
            for w in range(4):
                taddr = ((32 * w + (16 if half and w % 2 else 0)) << 16) | p.col_base
                for acc in tmem_model.st_map(shape, num, pack, taddr):
                    part = (gpu_tests._reg_value(w, acc.thread, acc.reg) >> acc.reg_bit_lo) & ((1 << acc.nbits) - 1)
                    cells[acc.lane, acc.col] = part << acc.tmem_bit_lo  # unpack: upper half zeroed
            for (lane, col), value in cells.items():
                out[lane * 512 + col] = value
        return []


LDST_SAMPLE = [("32x32b", 128, True), ("16x64b", 4, False), ("16x128b", 64, True), ("16x256b", 32, True),
               ("16x256b", 1, False), ("16x32bx2", 128, True), ("16x32bx2", 2, False)]


@pytest.mark.parametrize(("shape", "num", "pack"), LDST_SAMPLE)
def test_ldst_gpu_tests_host_side(monkeypatch, shape, num, pack):
    import test_tc5_gpu as gpu_tests

    monkeypatch.setattr(gpu_tests, "DEVICE", "cpu")
    modules = lambda _shape: FakeLdStModule()  # noqa: E731
    gpu_tests.test_ld_agrees_with_layout_model(modules, shape, num, pack)
    gpu_tests.test_st_agrees_with_layout_model(modules, shape, num, pack)
