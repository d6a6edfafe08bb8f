"""The bit-packed words of tcgen05 and wgmma, each declared once (spec §4.1, §4.2, §6, §8.1).

Every other module (encode/decode/validate in descriptors.py, idesc.py and wgmma.py, the field
views, the SVG diagrams, kernels/common/desc_fields.gen.h and the C++ cross-check test) reads
these tables. Change a field here and all of them follow.
"""

from __future__ import annotations

from fmhactl.layout.bitfields import BitTable, Field
from fmhactl.layout.swizzle import SWIZZLES

UMMA_LAYOUTS = {s.umma_code: s.name for s in SWIZZLES}
WGMMA_LAYOUTS = {s.wgmma_code: s.name for s in SWIZZLES if s.wgmma_code is not None}

# The 64-bit tcgen05 ("UMMA") shared-memory matrix descriptor, spec §4.1.
SMEM_DESC = BitTable("tcgen05 shared-memory descriptor", 64, (
    Field("start", 0, 14, "start address", "start", unit_shift=4, unit="B"),
    Field("reserved_14_15", 14, 2, "reserved", "rsv", fixed=0, code="reserved-14-15",
          rule="a start address >= 256 KiB or a carry out of the start field"),
    Field("lbo", 16, 14, "leading byte offset (LBO)", "LBO", unit_shift=4, unit="B"),
    Field("reserved_30_31", 30, 2, "reserved", "rsv", fixed=0, code="reserved-30-31"),
    Field("sbo", 32, 14, "stride byte offset (SBO)", "SBO", unit_shift=4, unit="B"),
    Field("fixed_46_48", 46, 3, "fixed constant", "fixed", fixed=1, code="fixed-46-48",
          rule="SM100 descriptors carry version 0b001 here (a Hopper wgmma descriptor has 0)"),
    Field("base_offset", 49, 3, "matrix base offset", "base", fixed=0, code="base-offset",
          rule="its hardware meaning is undocumented; align swizzle atoms to their repeat (1024/512/256 B) and use 0"),
    Field("lbo_mode", 52, 1, "LBO mode (absolute LBO)", "m", fixed=0, code="lbo-mode",
          rule="exists only on sm_103a; must be 0 on sm_100"),
    Field("reserved_53_60", 53, 8, "reserved", "reserved", fixed=0, code="reserved-53-60"),
    Field("layout", 61, 3, "layout / swizzle type", "layout", allowed=UMMA_LAYOUTS, code="layout-type",
          rule="3, 5 and 7 are invalid"),
), c_prefix="FMH_SMEM_DESC")

# The 64-bit Hopper wgmma shared-memory descriptor, spec §4.2.
WGMMA_DESC = BitTable("wgmma shared-memory descriptor", 64, (
    Field("start", 0, 14, "start address", "start", unit_shift=4, unit="B"),
    Field("unused_14_15", 14, 2, "unused", "-", fixed=0, code="unused-bits"),
    Field("lbo", 16, 14, "leading byte offset (LBO)", "LBO", unit_shift=4, unit="B"),
    Field("unused_30_31", 30, 2, "unused", "-", fixed=0, code="unused-bits"),
    Field("sbo", 32, 14, "stride byte offset (SBO)", "SBO", unit_shift=4, unit="B"),
    Field("unused_46_48", 46, 3, "unused", "unused", fixed=0, code="unused-bits",
          rule="bit 46 set: this looks like an SM100 tcgen05 descriptor"),
    Field("base_offset", 49, 3, "matrix base offset", "base", fixed=0, code="base-offset", severity="warning",
          rule="only meaningful for atoms not aligned to their swizzle repeat"),
    Field("unused_52_61", 52, 10, "unused", "unused", fixed=0, code="unused-bits"),
    Field("layout", 62, 2, "layout / swizzle type", "layout", allowed=WGMMA_LAYOUTS, code="layout-type"),
), c_prefix="FMH_WGMMA_DESC")

AB_FORMATS = {0: "f16", 1: "bf16", 2: "tf32"}
D_FORMATS = {0: "f16", 1: "f32", 2: "s32"}
MAJORS = {0: "K", 1: "MN"}

# The 32-bit instruction descriptor of tcgen05.mma kind::f16 / kind::tf32, spec §6.
INSTR_DESC = BitTable("tcgen05.mma instruction descriptor", 32, (
    Field("sparse_selector", 0, 2, "sparsity selector", "sp.sel", fixed=0, code="sparse",
          rule="sparse MMA is outside the model's scope (dense kind::f16/tf32)"),
    Field("sparse", 2, 1, "sparsity", "sp", fixed=0, code="sparse",
          rule="sparse MMA is outside the model's scope (dense kind::f16/tf32)"),
    Field("saturate", 3, 1, "saturate", "sat", fixed=0, code="saturate", rule="applies to integer kinds only"),
    Field("d_format", 4, 2, "D format", "D", allowed=D_FORMATS, code="d-format"),
    Field("reserved_6", 6, 1, "reserved", "r", fixed=0, code="reserved-6"),
    Field("a_format", 7, 3, "A format", "A fmt", allowed=AB_FORMATS, code="ab-format",
          rule="another MMA kind, outside the model's scope"),
    Field("b_format", 10, 3, "B format", "B fmt", allowed=AB_FORMATS, code="ab-format",
          rule="another MMA kind, outside the model's scope"),
    Field("negate_a", 13, 1, "negate A", "-A"),
    Field("negate_b", 14, 1, "negate B", "-B"),
    Field("a_major", 15, 1, "A major-ness (transpose A)", "A", allowed=MAJORS),
    Field("b_major", 16, 1, "B major-ness (transpose B)", "B", allowed=MAJORS),
    Field("n", 17, 6, "N (stored as N >> 3)", "N>>3", unit_shift=3),
    Field("reserved_23", 23, 1, "reserved", "r", fixed=0, code="reserved-23",
          rule="M written at bit 23? M>>4 belongs at bits 24-28"),
    Field("m", 24, 5, "M (stored as M >> 4)", "M>>4", unit_shift=4),
    Field("reserved_29", 29, 1, "reserved", "r", fixed=0, code="reserved-29"),
    Field("max_shift", 30, 2, "max shift (.ws B reuse)", "shift", fixed=0, code="max-shift",
          rule="for .ws B-reuse only; must be 0 here"),
), c_prefix="FMH_IDESC")

TABLES = {"smem": SMEM_DESC, "wgmma": WGMMA_DESC, "idesc": INSTR_DESC}


GENERATED_HEADER = "kernels/common/desc_fields.gen.h"


def c_header() -> list[str]:
    """The C/C++ view of the tables (after the GENERATED banner): field positions, widths and masks
    as macros, which kernels/common/tcgen05.cuh and the emulator's decoders use."""
    lines = ["// Bit positions and widths of the tcgen05/wgmma descriptor words (docs/tcgen05-facts.md §4, §6).",
             "// tests/layout/test_fields_cpp.py checks that the encoders in kernels/common/tcgen05.cuh put",
             "// every field where these macros say.",
             "#pragma once", ""]
    for table in TABLES.values():
        lines.append(f"// {table.name} ({table.bits} bits)")
        lines.extend(table.c_defines())
        lines.append("")
    return lines
