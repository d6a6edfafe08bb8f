"""The C++ wgmma descriptor encoder (kernels/common/wgmma_desc.h) against the layout model's
Python encoder (fmhactl/layout/wgmma.py): compiled on the host, same inputs, same 64-bit values."""

import shutil
import subprocess

import pytest

from fmhactl import paths
from fmhactl.layout.wgmma import decode_wgmma_desc, encode_wgmma_desc

# (start, lbo, sbo, layout code, swizzle name): the operands the SM90 kernel builds plus edges.
CASES = [
    (0x0000, 16, 1024, 1, "128B"),           # K-major Q/K tile, SW128
    (0x8000 + 32, 16, 1024, 1, "128B"),      # K step inside an atom
    (0x14000, 128 * 128, 1024, 1, "128B"),   # MN-major V tile of 128 keys: LBO = 128 rows * 128 B
    (0x3fff0, 176 * 128, 1024, 1, "128B"),   # top of the shared window, 176-key tile
    (0x1230, 256, 512, 2, "64B"),
    (0x0400, 128, 256, 3, "32B"),
    (0x0010, 64, 128, 0, "none"),
]


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs a host C++ compiler")
def test_cpp_encoder_matches_the_layout_model(tmp_path):
    lines = "\n".join(f'    std::printf("%llx\\n", wgmma_desc::encode({s}u, {l}u, {b}u, {code}u));'
                      for s, l, b, code, _ in CASES)
    program = tmp_path / "desc.cpp"
    program.write_text('#include <cstdio>\n#include "common/wgmma_desc.h"\n'
                       "static_assert(wgmma_desc::kLayoutSw128 == 1, \"SW128 code\");\n"
                       f"int main() {{\n{lines}\n    return 0;\n}}\n")
    exe = tmp_path / "desc"
    subprocess.run(["g++", "-std=c++17", "-I", str(paths.kernels_dir()), "-I", str(paths.kernels_dir() / "common"),
                    str(program), "-o", str(exe)], check=True)
    printed = [int(x, 16) for x in subprocess.run([str(exe)], capture_output=True, text=True,
                                                  check=True).stdout.split()]
    for (start, lbo, sbo, _, swizzle), value in zip(CASES, printed, strict=True):
        assert value == encode_wgmma_desc(start, lbo, sbo, swizzle), (start, lbo, sbo, swizzle)
        d = decode_wgmma_desc(value)
        assert (d.start, d.lbo, d.sbo) == (start, lbo, sbo) and d.ok


def test_encoder_reads_the_generated_field_table():
    """wgmma_desc.h takes every position/width from desc_fields.gen.h (the layout model's table)."""
    import re

    from fmhactl.layout.fields import WGMMA_DESC

    text = (paths.kernels_dir() / "common" / "wgmma_desc.h").read_text()
    assert '#include "common/desc_fields.gen.h"' in text
    for name in ("START", "LBO", "SBO", "BASE_OFFSET", "LAYOUT"):
        assert f"FMH_WGMMA_DESC_{name}_LO" in text and f"FMH_WGMMA_DESC_{name}_WIDTH" in text, name
    assert not re.search(r"k\w+Shift = \d", text), "a hard-coded field position or unit"
    assert "kByteUnitShift = FMH_WGMMA_DESC_START_UNIT_SHIFT" in text
    by_name = {f.name: f for f in WGMMA_DESC.fields}
    # encode() applies the start field's unit to LBO and SBO too: the table must agree.
    assert by_name["start"].unit_shift == by_name["lbo"].unit_shift == by_name["sbo"].unit_shift == 4
