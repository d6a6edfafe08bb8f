"""The descriptor field tables (fmhactl/layout/fields.py) against the C++ side.

(That kernels/common/desc_fields.gen.h is what the tables generate is `python -m fmhactl.plans
--check`, tests/plans/test_generate.py.) A host C++ program compiles kernels/common/tcgen05.cuh's encoders (make_smem_desc, make_idesc)
   with g++ and, through the generated macros, static_asserts that each encoder argument lands in
   the bits the table declares; at run time it prints encoder outputs for random arguments, which
   must equal the tables' encode. (The CuTe bitfield unions are the independent oracle in
   test_layout_oracle.py; this file checks our own kernel code.)
"""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from fmhactl.layout import fields

REPO = Path(__file__).resolve().parents[2]
COMMON = REPO / "kernels" / "common"


_PROGRAM = r"""
#include <cstdio>
#include <cstdlib>
#include "desc_fields.gen.h"
static inline unsigned long long __cvta_generic_to_shared(const void*) { return 0; }
#include "tcgen05.cuh"
using namespace tc5;
typedef unsigned long long U;
#define MASK(P) (((1ull << P##_WIDTH) - 1) << P##_LO)
#define MAXV(P) ((1u << P##_WIDTH) - 1)
constexpr U FIXED46 = (U)FMH_SMEM_DESC_FIXED_46_48_FIXED << FMH_SMEM_DESC_FIXED_46_48_LO;
// every byte field: the encoder's full-range argument covers exactly the declared bits
static_assert(make_smem_desc(MAXV(FMH_SMEM_DESC_START) << 4, 0, 0, Layout::none) == (MASK(FMH_SMEM_DESC_START) | FIXED46), "start");
static_assert(make_smem_desc(0, MAXV(FMH_SMEM_DESC_LBO) << 4, 0, Layout::none) == (MASK(FMH_SMEM_DESC_LBO) | FIXED46), "lbo");
static_assert(make_smem_desc(0, 0, MAXV(FMH_SMEM_DESC_SBO) << 4, Layout::none) == (MASK(FMH_SMEM_DESC_SBO) | FIXED46), "sbo");
static_assert(make_smem_desc(0, 0, 0, Layout::swizzle_32b) == ((6ull << FMH_SMEM_DESC_LAYOUT_LO) | FIXED46), "layout");
static_assert((make_smem_desc(0, 0, 0, Layout::none) & MASK(FMH_SMEM_DESC_FIXED_46_48)) == FIXED46, "fixed bits");
static_assert(make_idesc(16 * MAXV(FMH_IDESC_M), 0, Fmt::f16, Fmt::f16, DFmt::f16) == MASK(FMH_IDESC_M), "M");
static_assert(make_idesc(0, 8 * MAXV(FMH_IDESC_N), Fmt::f16, Fmt::f16, DFmt::f16) == MASK(FMH_IDESC_N), "N");
static_assert(make_idesc(0, 0, Fmt::f16, Fmt::f16, DFmt::f32) == (1u << FMH_IDESC_D_FORMAT_LO), "D format");
static_assert(make_idesc(0, 0, Fmt::tf32, Fmt::f16, DFmt::f16) == (2u << FMH_IDESC_A_FORMAT_LO), "A format");
static_assert(make_idesc(0, 0, Fmt::f16, Fmt::tf32, DFmt::f16) == (2u << FMH_IDESC_B_FORMAT_LO), "B format");
static_assert(make_idesc(0, 0, Fmt::f16, Fmt::f16, DFmt::f16, Major::mn) == (1u << FMH_IDESC_A_MAJOR_LO), "A major");
static_assert(make_idesc(0, 0, Fmt::f16, Fmt::f16, DFmt::f16, Major::k, Major::mn) == (1u << FMH_IDESC_B_MAJOR_LO), "B major");
static_assert(make_idesc(0, 0, Fmt::f16, Fmt::f16, DFmt::f16, Major::k, Major::k, true) == (1u << FMH_IDESC_NEGATE_A_LO), "neg A");
static_assert(make_idesc(0, 0, Fmt::f16, Fmt::f16, DFmt::f16, Major::k, Major::k, false, true) == (1u << FMH_IDESC_NEGATE_B_LO), "neg B");
int main() {
  char kind;
  unsigned a, b, c, d, e, f, g, h, i;
  while (std::scanf(" %c", &kind) == 1) {
    if (kind == 'S' && std::scanf("%u %u %u %u", &a, &b, &c, &d) == 4)
      std::printf("S %llu\n", (U)make_smem_desc(a, b, c, (Layout)d));
    else if (kind == 'I' && std::scanf("%u %u %u %u %u %u %u %u %u", &a, &b, &c, &d, &e, &f, &g, &h, &i) == 9)
      std::printf("I %u\n", make_idesc((int)a, (int)b, (Fmt)c, (Fmt)d, (DFmt)e, (Major)f, (Major)g, h, i));
    else
      return 2;
  }
  return 0;
}
"""


@pytest.fixture(scope="module")
def encoder_program(tmp_path_factory) -> Path:
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("needs a host C++ compiler")
    work = tmp_path_factory.mktemp("fields_cpp")
    # the encoders are the constexpr part of tcgen05.cuh, before it pulls in a device backend: keep
    # that part verbatim and leave the backend (inline PTX or the emulator) out of the host build
    text = (COMMON / "tcgen05.cuh").read_text()
    cut = text.index('#if TC5_EMULATED\n#include "tcgen05_emu.cuh"')
    head = text[:cut]
    assert "make_smem_desc" in head and "make_idesc" in head
    (work / "tcgen05.cuh").write_text(head)
    # every other header the head includes, as it is (new ones too)
    for header in [*COMMON.glob("*.h"), *COMMON.glob("*.cuh")]:
        if header.name != "tcgen05.cuh":
            shutil.copy(header, work / header.name)
    (work / "check.cpp").write_text(_PROGRAM)
    exe = work / "check"
    proc = subprocess.run([cxx, "-std=c++17", "-D__host__=", "-D__device__=", "-D__forceinline__=inline",
                           "-DFMHACTL_ARCH=100", "-I", str(work), str(work / "check.cpp"), "-o", str(exe)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return exe


def test_cpp_encoders_put_fields_where_the_tables_say(encoder_program):
    rng = random.Random(1234)
    layouts = [0, 1, 2, 4, 6]
    smem_cases = [(rng.randrange(0, 1 << 18, 16), rng.randrange(0, 1 << 18, 16), rng.randrange(0, 1 << 18, 16),
                   rng.choice(layouts)) for _ in range(300)]
    idesc_cases = [(rng.choice([64, 128]), 8 * rng.randrange(1, 33), f, f, rng.choice([0, 1]), rng.randrange(2),
                    rng.randrange(2), rng.randrange(2), rng.randrange(2)) for f in [0, 1, 2] * 100]
    stdin = "".join(f"S {a} {b} {c} {d}\n" for a, b, c, d in smem_cases)
    stdin += "".join("I " + " ".join(str(x) for x in case) + "\n" for case in idesc_cases)
    out = subprocess.run([str(encoder_program)], input=stdin, capture_output=True, text=True, check=True).stdout
    got = out.split("\n")
    for line, (start, lbo, sbo, layout) in zip(got, smem_cases):
        want = fields.SMEM_DESC.encode({"start": start, "lbo": lbo, "sbo": sbo, "layout": layout})
        assert line == f"S {want}", (start, lbo, sbo, layout)
    for line, (m, n, a, b, d, am, bm, na, nb) in zip(got[len(smem_cases):], idesc_cases):
        want = fields.INSTR_DESC.encode({"m": m, "n": n, "a_format": a, "b_format": b, "d_format": d, "a_major": am,
                                         "b_major": bm, "negate_a": na, "negate_b": nb})
        assert line == f"I {want}", (m, n, a, b, d)
    assert len(got) >= len(smem_cases) + len(idesc_cases)


def test_tables_declare_every_bit_once():
    for table in fields.TABLES.values():
        covered = 0
        for f in table.fields:
            assert covered & f.mask == 0, f.name
            covered |= f.mask
        assert covered == table.limit, table.name
