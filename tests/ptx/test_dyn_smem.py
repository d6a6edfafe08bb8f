"""Dynamic SMEM keeps the alignment a kernel declares through the PTX path's link
(fmhactl/ptx/dyn_smem.py): which kernels need what, where the pad goes, and that the link keeps the
pad and moves the end of the kernel's static section, where the launch puts dynamic SMEM."""

from __future__ import annotations

import pytest
from fmhactl.ptx import dyn_smem, linker

# Three kernels as nvcc writes them for `extern __shared__ __align__(N) unsigned char dyn_N[]` next
# to 12 bytes of static variables, one of them reaching its array through a device function.
MODULE = """.version 8.7
.target sm_100a
.address_size 64

.extern .shared .align 16 .b8 dyn_16[];
.extern .shared .align 1024 .b8 dyn_1024[];
.extern .shared .align 128 .b8 dyn_128[];

.func touch_128()
{
\t.reg .b16 \t%rs<2>;
\tmov.u16 \t%rs1, 3;
\tst.shared.u8 \t[dyn_128+4], %rs1;
\tret;
}

.visible .entry k16(
\t.param .u64 k16_param_0
)
{
\t.reg .b16 \t%rs<2>;
\t.shared .align 8 .u64 k16_bar;
\t.shared .align 4 .u32 k16_t;
\tmov.u16 \t%rs1, 3;
\tst.shared.u8 \t[dyn_16], %rs1;
\tst.shared.u32 \t[k16_t], 2;
\tst.shared.u64 \t[k16_bar], 1;
\tret;
}

.visible .entry k1024(
\t.param .u64 k1024_param_0
)
{
\t.reg .b32 \t%r<3>;
\t.shared .align 8 .u64 k1024_bar;
\t.shared .align 4 .u32 k1024_t;
\tmov.u32 \t%r1, dyn_1024;
\tst.shared.u32 \t[%r1+16], 7;
\tst.shared.u32 \t[k1024_t], 2;
\tst.shared.u64 \t[k1024_bar], 1;
\tret;
}
"""


def test_each_kernel_needs_the_largest_alignment_it_can_reach() -> None:
    assert dyn_smem.extern_arrays(MODULE) == {"dyn_16": 16, "dyn_1024": 1024, "dyn_128": 128}
    # k16 names dyn_16 only, but a device function of the module names dyn_128: a call may reach it.
    assert dyn_smem.declared_alignment(MODULE) == {"k16": 128, "k1024": 1024}
    assert dyn_smem.declared_alignment(MODULE.replace("dyn_128+4", "%r0")) == {"k16": 16, "k1024": 1024}
    assert dyn_smem.declared_alignment(".version 8.7\n.target sm_100a\n") == {}


def test_pad_goes_first_into_the_named_kernels_only() -> None:
    padded = dyn_smem.add_pads(MODULE, {"k1024": 1008})
    lines = padded.splitlines()
    entry = lines.index(".visible .entry k1024(")
    body = lines.index("{", entry)
    assert f".b8 {dyn_smem.PAD_NAME}[1008];" in lines[body + 1]
    assert padded.count(dyn_smem.PAD_NAME) == 1
    assert padded.replace(lines[body + 1] + "\n", "") == MODULE


def test_not_a_cubin_is_refused() -> None:
    with pytest.raises(ValueError, match="ELF64"):
        dyn_smem.shared_section_sizes(b"not an elf at all")


def _linked(text: str) -> bytes:
    try:
        cubin, _, errors = linker.link(text.replace(".target sm_100a", ".target sm_90a"), "", optimize=0)
    except Exception as exc:  # nvJitLink missing here
        pytest.skip(f"nvJitLink unavailable: {exc}")
    assert cubin, errors or "nvJitLink refused the module"
    return cubin


def test_the_link_keeps_the_pad_and_the_section_end_moves_with_it() -> None:
    plain = dyn_smem.shared_section_sizes(_linked(MODULE))
    assert set(plain) >= {"k16", "k1024"}
    padded = dyn_smem.shared_section_sizes(_linked(dyn_smem.add_pads(MODULE, {"k16": 496})))
    assert padded["k16"] >= plain["k16"] + 496  # kept although nothing reads it
    assert padded["k1024"] == plain["k1024"]


def test_after_padding_no_kernel_falls_short() -> None:
    """What linker.build does: pad by what falls short, link again, nothing falls short."""
    text = MODULE.replace(".target sm_100a", ".target sm_90a")
    cubin = _linked(text)
    short = dyn_smem.short_kernels(cubin, text)
    if short:  # this nvJitLink drops the padding (13.0 does); the pad restores it
        cubin = _linked(dyn_smem.add_pads(text, short))
    sizes = dyn_smem.shared_section_sizes(cubin)
    assert sizes["k1024"] % 1024 == 0 and sizes["k16"] % 128 == 0
    assert dyn_smem.short_kernels(cubin, text) == {}
