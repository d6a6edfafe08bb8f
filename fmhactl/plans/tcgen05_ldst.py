"""kernels/common/tcgen05_native_ldst.cuh: one inline-PTX tcgen05.ld and tcgen05.st per
(shape, .num, pack). PTX needs every register named in the asm string, so the 148 variants are
generated rather than typed (`python -m fmhactl.plans --write`). The PTX-level emulator
(fmhactl/ptx) parses this header's asm strings.
"""

from __future__ import annotations

HEADER_PATH = "kernels/common/tcgen05_native_ldst.cuh"

SHAPES = {  # PTX name -> (enum name, registers per repetition)
    "32x32b": ("k32x32b", 1),
    "16x64b": ("k16x64b", 1),
    "16x128b": ("k16x128b", 2),
    "16x256b": ("k16x256b", 4),
    "16x32bx2": ("k16x32bx2", 1),
}
NUMS = (1, 2, 4, 8, 16, 32, 64, 128)
MAX_REGS = 128

HEADER = """\
// Inline PTX for every tcgen05.ld / tcgen05.st shape, .num and 16-bit (un)packing (PTX ISA 9.1
// Table 49). Included by tcgen05_native.cuh only; kernels use tc5::ld / tc5::st.
#pragma once

namespace tc5 {
namespace native {

template <Shape S, int Num, bool Pack>
struct LdSt;
"""


def _reg_list(first: int, count: int) -> str:
    return "{" + ", ".join(f"%{first + i}" for i in range(count)) + "}"


def _specialisation(ptx_shape: str, enum: str, per_rep: int, num: int, pack: bool) -> str:
    regs = per_rep * num
    split = ptx_shape == "16x32bx2"
    ld_mod = ".pack::16b" if pack else ""
    st_mod = ".unpack::16b" if pack else ""
    ld_imm = f", %{regs + 1}" if split else ""
    ld_asm = (f"tcgen05.ld.sync.aligned.{ptx_shape}.x{num}{ld_mod}.b32 "
              f"{_reg_list(0, regs)}, [%{regs}]{ld_imm};")
    st_first = 2 if split else 1
    st_imm = ", %1" if split else ""
    st_asm = (f"tcgen05.st.sync.aligned.{ptx_shape}.x{num}{st_mod}.b32 "
              f"[%0]{st_imm}, {_reg_list(st_first, regs)};")
    outs = ", ".join(f'"=r"(r[{i}])' for i in range(regs))
    ins = ", ".join(f'"r"(r[{i}])' for i in range(regs))
    ld_inputs = '"r"(taddr)' + (', "n"(Imm)' if split else "")
    st_inputs = '"r"(taddr)' + (', "n"(Imm)' if split else "") + ", " + ins
    return f"""
template <>
struct LdSt<Shape::{enum}, {num}, {'true' if pack else 'false'}> {{
    template <int Imm>
    static __device__ __forceinline__ void ld(unsigned taddr, unsigned* r) {{
        asm volatile("{ld_asm}"
                     : {outs}
                     : {ld_inputs});
    }}
    template <int Imm>
    static __device__ __forceinline__ void st(unsigned taddr, const unsigned* r) {{
        asm volatile("{st_asm}"
                     :
                     : {st_inputs}
                     : "memory");
    }}
}};
"""


def render() -> str:
    parts = [HEADER]
    for ptx_shape, (enum, per_rep) in SHAPES.items():
        for num in NUMS:
            if per_rep * num > MAX_REGS:
                continue
            for pack in (False, True):
                parts.append(_specialisation(ptx_shape, enum, per_rep, num, pack))
    parts.append("\n}  // namespace native\n}  // namespace tc5\n")
    return "".join(parts)
