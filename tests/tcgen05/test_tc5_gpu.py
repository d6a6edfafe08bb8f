"""GPU tests of the emulated tcgen05 backend on an sm_90 GPU (skipped without CUDA):

* SS and TS MMA: M {64,128} x N {8,16,64,128,256} x {K-major, MN-major} x every swizzle, bf16 and
  f16 (plus a kind::tf32 sample) against torch matmul in fp64 on fresh random inputs;
* ld/st agreement: every shape x .num x pack against the layout model (fmhactl/layout/tmem.py);
* conformance: each error provoked by a deliberately wrong kernel is reported by name, and a
  correct kernel reports nothing.
"""

from __future__ import annotations

import ctypes
import os
import zlib

import pytest
import torch

from fmhactl.layout import tmem as tmem_model
from fmhactl.runtime.emulation import ERROR_CODES

import tc5_harness
from conformance_cases import CONFORMANCE_CASES
from tc5_cases import run_mma
from tc5_harness import ConformanceParams, EmulatedModule, LdStParams

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not tc5_harness.cuda_available(), reason="needs a CUDA GPU (torch.cuda)")]

DEVICE = "cuda"  # the CPU dry run (test_tc5_dryrun.py) switches this to "cpu"
SEED = int(os.environ.get("TC5_SEED", "1"))  # tests/tcgen05/conftest.py draws it per run


@pytest.fixture(scope="module")
def mma_module():
    mod = EmulatedModule("mma.cu", ctas=1)
    yield mod
    mod.close()


@pytest.fixture(scope="module")
def conformance_module():
    mod = EmulatedModule("conformance.cu", ctas=2)
    yield mod
    mod.close()


LAYOUTS = ("none", "32b", "64b", "128b")
MMA_CASES = [(m, n, major, layout, dtype)
             for dtype in ("bf16", "f16") for m in (64, 128) for n in (8, 16, 64, 128, 256)
             for major in ("k", "mn") for layout in LAYOUTS]


def _case_id(case) -> str:
    return "-".join(map(str, case))


def _seed(case, salt: int = 0) -> int:
    """Fresh inputs per run and per case, reproducible from TC5_SEED."""
    return (SEED * 1_000_003 + zlib.crc32(_case_id(case).encode()) + salt) % 2**62


@pytest.mark.parametrize("case", MMA_CASES, ids=_case_id)
def test_mma_ss_matches_torch(mma_module, case):
    m, n, major, layout, dtype = case
    lane0 = 16 if (m == 64 and major == "mn") else 0  # M=64 also at the upper 16-lane half (layout F)
    run_mma(mma_module, m=m, n=n, dtype=dtype, major=major, layout=layout, ts=False, seed=_seed(case), lane0=lane0)


@pytest.mark.parametrize("case", MMA_CASES, ids=_case_id)
def test_mma_ts_matches_torch(mma_module, case):
    m, n, major, layout, dtype = case
    lane0 = 16 if (m == 64 and major == "k") else 0
    run_mma(mma_module, m=m, n=n, dtype=dtype, major=major, layout=layout, ts=True, seed=_seed(case, 1), lane0=lane0)


TF32_CASES = [(128, 64, "k", layout) for layout in LAYOUTS] + [(64, 32, "mn", "128b_base32b"),
                                                              (128, 256, "mn", "128b_base32b")]


@pytest.mark.parametrize("case", TF32_CASES, ids=_case_id)
@pytest.mark.parametrize("ts", [False, True], ids=["ss", "ts"])
def test_mma_tf32_matches_torch(mma_module, case, ts):
    m, n, major, layout = case
    run_mma(mma_module, m=m, n=n, dtype="tf32", major=major, layout=layout, ts=ts, seed=_seed(case, ts))


# ---- ld / st agreement with the layout model ------------------------------------------------------

LDST_CASES = [(shape, num, pack) for shape in tmem_model.SHAPES for num in tmem_model.NUMS
              if tmem_model.REGS_PER_REP[shape] * num <= 128 for pack in (False, True)]
SHAPE_SET = {shape: k for k, shape in tc5_harness.LDST_SHAPE_SETS.items()}


@pytest.fixture(scope="module")
def ldst_modules():
    modules: dict[str, EmulatedModule] = {}
    yield lambda shape: modules.setdefault(
        shape, EmulatedModule("ldst.cu", ctas=1, TC5T_LDST_SHAPE_SET=SHAPE_SET[shape]))
    for mod in modules.values():
        mod.close()


def _ldst_geometry(shape: str, num: int, pack: bool):
    """(col_base, per-warp taddr) the kernel uses; col_base leaves the access inside 512 columns."""
    width = tmem_model.columns_per_half(shape, num, pack) * (2 if shape == "16x32bx2" else 1)
    col_base = 32 if width + 32 <= 512 else 0
    half = shape not in ("32x32b", "16x32bx2")
    return col_base, [((32 * w + (16 if half and w % 2 else 0)) << 16) | col_base for w in range(4)]


def _pattern(lane: int, col: int) -> int:
    return (0xC0DE << 16) | (lane << 9) | col


def _reg_value(warp: int, t: int, i: int) -> int:
    lo = ((warp * 32 + t) << 7) | i
    return lo | ((lo | 0x4000) << 16)


def _kernel_name(direction: str, shape: str, num: int, pack: bool) -> str:
    return f"{direction}_{shape}_x{num}{'_pack' if pack else ''}"


@pytest.mark.parametrize(("shape", "num", "pack"), LDST_CASES,
                         ids=[f"{s}.x{n}{'.pack' if p else ''}" for s, n, p in LDST_CASES])
def test_ld_agrees_with_layout_model(ldst_modules, shape, num, pack):
    mod = ldst_modules(shape)
    col_base, taddrs = _ldst_geometry(shape, num, pack)
    out = torch.zeros(tc5_harness.LDST_WORDS, dtype=torch.int32, device=DEVICE)
    params = LdStParams(out.data_ptr(), col_base, 0)
    violations = mod.run(_kernel_name("ld", shape, num, pack), params)
    assert not violations, "\n".join(map(str, violations))
    got = out.cpu()[:4 * 32 * 128].view(4, 32, 128).to(torch.int64) & 0xFFFFFFFF  # [warp][thread][reg]
    regs = tmem_model.regs_per_thread(shape, num)
    bad = []
    for warp, taddr in enumerate(taddrs):
        expected: dict[tuple[int, int], int] = {}
        for acc in tmem_model.ld_map(shape, num, pack, taddr):
            value = _pattern(acc.lane, acc.col)
            part = (value >> acc.tmem_bit_lo) & ((1 << acc.nbits) - 1)
            expected[acc.thread, acc.reg] = expected.get((acc.thread, acc.reg), 0) | (part << acc.reg_bit_lo)
        for t in range(32):
            for i in range(regs):
                if int(got[warp, t, i]) != expected[t, i]:
                    bad.append((warp, t, i, hex(int(got[warp, t, i])), hex(expected[t, i])))
    assert not bad, f"{len(bad)} registers differ (warp, thread, reg, got, model): {bad[:5]}"


@pytest.mark.parametrize(("shape", "num", "pack"), LDST_CASES,
                         ids=[f"{s}.x{n}{'.pack' if p else ''}" for s, n, p in LDST_CASES])
def test_st_agrees_with_layout_model(ldst_modules, shape, num, pack):
    mod = ldst_modules(shape)
    col_base, taddrs = _ldst_geometry(shape, num, pack)
    out = torch.zeros(tc5_harness.LDST_WORDS, dtype=torch.int32, device=DEVICE)
    params = LdStParams(out.data_ptr(), col_base, 0)
    violations = mod.run(_kernel_name("st", shape, num, pack), params)
    assert not violations, "\n".join(map(str, violations))
    tmem = out.cpu().view(128, 512).to(torch.int64) & 0xFFFFFFFF
    expected = torch.full((128, 512), 0xDEADBEEF, dtype=torch.int64)
    mask = torch.full((128, 512), 0xFFFFFFFF, dtype=torch.int64)  # bits compared per cell
    for warp, taddr in enumerate(taddrs):
        for acc in tmem_model.st_map(shape, num, pack, taddr):
            part = (_reg_value(warp, acc.thread, acc.reg) >> acc.reg_bit_lo) & ((1 << acc.nbits) - 1)
            expected[acc.lane, acc.col] = part << acc.tmem_bit_lo
            if acc.nbits == 16:  # .unpack::16b: the upper half of the cell is undocumented (spec §2.3)
                mask[acc.lane, acc.col] = 0xFFFF
    diff = ((tmem ^ expected) & mask) != 0
    assert not bool(diff.any()), f"{int(diff.sum())} TMEM cells differ, first (lane, col): {diff.nonzero()[:5].tolist()}"


# ---- conformance errors ---------------------------------------------------------------------------

SCRATCH_WORDS = 128 * 64


def _run_conformance(mod: EmulatedModule, which: int):
    scratch = torch.zeros(SCRATCH_WORDS, dtype=torch.int32, device=DEVICE)
    params = ConformanceParams(scratch.data_ptr(), which, 0)
    return mod.run("violate", params, grid=(2, 1, 1))


def test_correct_kernel_reports_nothing(conformance_module):
    violations = _run_conformance(conformance_module, 0)
    assert violations == [], "\n".join(map(str, violations))


def _nvrtc_version() -> tuple[int, int]:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return major, minor


# NVRTC 13.0 (the H100's) evaluates the defaulted __builtin_LINE() of tc5::st at the template's
# declaration instead of the caller for these two kernels (seen 2026-11-22; NVRTC 13.5 emits the
# caller's line). Strict: once a toolchain gets it right, the xfail itself fails.
_SITE_QUIRK = pytest.mark.xfail(condition=_nvrtc_version() == (13, 0), strict=True,
                                reason="NVRTC 13.0 reports tc5::st call sites at the declaration line")


@pytest.mark.parametrize("name", [pytest.param(n, marks=_SITE_QUIRK)
                                  if n in ("unallocated-columns", "tmem-out-of-range") else n
                                  for n in CONFORMANCE_CASES])
def test_wrong_kernel_reports_error_by_name(conformance_module, name):
    violations = _run_conformance(conformance_module, ERROR_CODES[name])
    assert violations, f"{name}: nothing reported"
    names = {v.name for v in violations}
    assert names == {name}, "\n".join(map(str, violations))
    assert {v.block for v in violations} == {0, 1}  # both CTAs of the grid
    assert CONFORMANCE_CASES[name] in {v.warp for v in violations}
    first = violations[0]
    assert first.site > 0 and str(first).startswith(f"tcgen05 {name}:")
    lines = (tc5_harness.HERE / "kernels" / "conformance.cu").read_text().splitlines()
    assert "tc5::" in lines[first.site - 1], f"site {first.site} is not a tc5 call: {lines[first.site - 1]!r}"


def test_violation_report_names_block_warp_lane_site(conformance_module):
    violations = _run_conformance(conformance_module, ERROR_CODES["lane-quarter"])
    text = str(violations[0])
    assert "lane-quarter" in text and "block" in text and "warp 1" in text and "line" in text
    assert ctypes.sizeof(ConformanceParams) == 16
