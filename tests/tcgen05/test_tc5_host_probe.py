"""CPU tests of the emulator's pure functions, compiled for the host with nvcc
(tests/tcgen05/host/emu_host_probe.cu), against independent models:

* descriptor decode + swizzle  vs  TMA-box operand images (smem_images.py)
* ld/st (thread, register) -> (lane, column)  vs  fmhactl.layout.tmem (the layout model)
* descriptor / instruction-descriptor legality codes  vs  hand-made bad descriptors
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
import torch

from fmhactl import paths
from fmhactl.layout import tmem as tmem_model
from fmhactl.runtime.emulation import ERROR_CODES

import smem_images
import tc5_harness

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc not on PATH")

SHAPE_INDEX = {"32x32b": 0, "16x64b": 1, "16x128b": 2, "16x256b": 3, "16x32bx2": 4}


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    exe = tmp_path_factory.mktemp("probe") / "emu_host_probe"
    subprocess.run([NVCC, "-std=c++17", f"-I{paths.kernels_dir()}", "-o", str(exe),
                    str(tc5_harness.HERE / "host" / "emu_host_probe.cu")], check=True)

    def ask(lines: list[str]) -> list[str]:
        out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", check=True, capture_output=True,
                             text=True).stdout
        answers = out.splitlines()
        assert len(answers) == len(lines)
        return answers

    return ask


OPERAND_CASES = [(dtype, major, layout, rows)
                 for dtype in ("bf16", "tf32")
                 for major in ("k", "mn")
                 for layout in ("none", "32b", "64b", "128b", "128b_base32b")
                 for rows in (8, 128)
                 if (layout == "128b_base32b") == (major == "mn" and dtype == "tf32")]


@pytest.mark.parametrize(("dtype", "major", "layout", "rows"), OPERAND_CASES)
def test_descriptor_decode_matches_tma_box_image(probe, dtype, major, layout, rows):
    k_total = 64 if dtype != "tf32" else 32
    image = smem_images.operand_image(torch.zeros(rows, k_total), dtype, major, layout)
    e = smem_images.ELEM_BYTES[dtype]
    kk = 32 // e
    queries, expected = [], []
    for step, desc in enumerate(image.descs):
        for mn in range(rows):
            for k in range(kk):
                queries.append(f"A {desc} {int(major == 'mn')} {e} {mn} {k}")
                expected.append(int(image.offsets[mn, step * kk + k]))
    got = [int(x) for x in probe(queries)]
    bad = [(q, g, x) for q, g, x in zip(queries, got, expected) if g != x]
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"


def test_ldst_cell_map_matches_layout_model(probe):
    """Every shape x .num x pack, every thread and register, both halves with pack."""
    taddr = (16 << 16) | 40  # a lane and column offset, so bases are not all zero
    queries, expected = [], []
    for shape in tmem_model.SHAPES:
        for num in tmem_model.NUMS:
            if tmem_model.REGS_PER_REP[shape] * num > 128:
                continue
            for pack in (False, True):
                imm = tmem_model.default_half_split(num, pack)
                for access in tmem_model.ld_map(shape, num, pack, taddr, imm):
                    h = access.reg_bit_lo // 16
                    queries.append(f"L {SHAPE_INDEX[shape]} {int(pack)} {taddr} {imm} {access.thread} {access.reg} {h}")
                    expected.append(f"{access.lane} {access.col}")
    got = probe(queries)
    bad = [(q, g, x) for q, g, x in zip(queries, got, expected) if g != x]
    assert not bad, f"{len(bad)} of {len(queries)} mismatches, first: {bad[:3]}"


def test_16x32bx2_split_may_carry_a_lane_offset(probe):
    imm = (8 << 16) | 4  # Triton-style immHalfSplitoff with a lane part (spec §2.1)
    model = {(a.thread, a.reg): (a.lane, a.col) for a in tmem_model.ld_map("16x32bx2", 4, False, 0, imm)}
    queries = [f"L 4 0 0 {imm} {t} {i} 0" for t in range(32) for i in range(4)]
    got = probe(queries)
    assert got == [f"{model[t, i][0]} {model[t, i][1]}" for t in range(32) for i in range(4)]


GOOD_K_SW128 = smem_images.encode_desc(1024, 16, 1024, "128b")


@pytest.mark.parametrize(("desc", "mn_major", "tf32", "name"), [
    (GOOD_K_SW128, 0, 0, None),
    (GOOD_K_SW128 + 6, 0, 0, None),                       # +96 B: last K slice of the row
    (GOOD_K_SW128 + 2, 0, 0, None),                       # +32 B
    (GOOD_K_SW128 & ~(1 << 46), 0, 0, "desc-fixed-bits"),
    (GOOD_K_SW128 | (1 << 47), 0, 0, "desc-fixed-bits"),
    (GOOD_K_SW128 | (1 << 15), 0, 0, "desc-fixed-bits"),  # reserved bit
    (GOOD_K_SW128 | (1 << 52), 0, 0, "desc-fixed-bits"),  # lbo mode (sm_103a only)
    ((GOOD_K_SW128 & ~(7 << 61)) | (3 << 61), 0, 0, "desc-fixed-bits"),  # layout code 3
    (GOOD_K_SW128 | (1 << 49), 0, 0, "desc-base-offset"),
    (GOOD_K_SW128 + 7, 0, 0, "desc-misaligned"),          # +112 B: K slice crosses the 128-B row
    (smem_images.encode_desc(1024 + 16, 16, 256, "32b"), 0, 0, "desc-misaligned"),
    (smem_images.encode_desc(1024 + 64, 4096, 1024, "128b"), 1, 0, "desc-misaligned"),
    (smem_images.encode_desc(1024, 4096, 512, "128b_base32b"), 1, 1, None),
    (smem_images.encode_desc(1024, 4096, 512, "128b_base32b"), 1, 0, "idesc-invalid"),  # 16-bit MN-major
    (smem_images.encode_desc(1024, 4096, 1024, "128b"), 1, 1, "idesc-invalid"),         # tf32 MN-major
    (smem_images.encode_desc(1024, 4096, 1024, "128b_base32b"), 0, 1, "idesc-invalid"),  # K-major
])
def test_descriptor_legality(probe, desc, mn_major, tf32, name):
    (got,) = probe([f"D {desc} {mn_major} {tf32}"])
    assert int(got) == (ERROR_CODES[name] if name else 0)


@pytest.mark.parametrize(("idesc", "tf32", "name"), [
    (smem_images.idesc(128, 256, "bf16", "k", "k"), 0, None),
    (smem_images.idesc(64, 8, "f16", "mn", "k"), 0, None),
    (smem_images.idesc(128, 64, "f16", "k", "k", d_f32=False), 0, None),
    (smem_images.idesc(128, 64, "bf16", "k", "k", d_f32=False), 0, "idesc-invalid"),  # f16 D needs f16 A/B
    (smem_images.idesc(128, 64, "tf32", "k", "k"), 1, None),
    (smem_images.idesc(128, 64, "tf32", "k", "k"), 0, "idesc-invalid"),  # tf32 formats under kind::f16
    (smem_images.idesc(128, 64, "bf16", "k", "k"), 1, "idesc-invalid"),
    (smem_images.idesc(128, 64, "bf16", "k", "k") ^ (1 << 7), 0, "idesc-invalid"),  # mixed f16 x bf16
    (smem_images.idesc(128, 64, "bf16", "k", "k") | (1 << 23), 0, "idesc-invalid"),  # reserved bit 23
    (smem_images.idesc(128, 64, "bf16", "k", "k") | (1 << 2), 0, "idesc-invalid"),   # sparse
    (smem_images.idesc(96, 64, "bf16", "k", "k"), 0, "mma-shape"),
    (smem_images.idesc(256, 64, "bf16", "k", "k"), 0, "mma-shape"),  # cta_group::2 only
    (smem_images.idesc(128, 0, "bf16", "k", "k"), 0, "mma-shape"),
    (smem_images.idesc(128, 264, "bf16", "k", "k"), 0, "mma-shape"),
])
def test_instruction_descriptor_legality(probe, idesc, tf32, name):
    (got,) = probe([f"I {idesc} {tf32}"])
    assert int(got) == (ERROR_CODES[name] if name else 0)
