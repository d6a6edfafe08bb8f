"""No descriptor bit position is written as a literal in kernels/common: the encoders and decoders
of the tcgen05/wgmma descriptor words use the FMH_* macros generated from fmhactl/layout/fields.py.

Two checks: (1) inside every function that builds, decodes or checks a descriptor word (named
below; each must exist), no shift by a constant, no hex mask; (2) anywhere in kernels/common
(outside the generated headers), no shift by an amount that is a descriptor-only field position
(46, 49, 52, 53, 61, 62: nothing else in the kernels shifts by these)."""

from __future__ import annotations

import re

import pytest

from fmhactl import paths
from fmhactl.layout.fields import TABLES
from fmhactl.plans.generate import GENERATED

COMMON = paths.kernels_dir() / "common"
GENERATED_NAMES = {g.path.rsplit("/", 1)[-1] for g in GENERATED}
SOURCES = sorted(p for p in COMMON.iterdir() if p.suffix in (".h", ".cuh") and p.name not in GENERATED_NAMES)

# function -> file defining it: every function whose job is a descriptor word.
DESCRIPTOR_FUNCTIONS = {
    "make_idesc": "tcgen05.cuh", "make_smem_desc": "tcgen05.cuh", "desc_advance": "tcgen05.cuh",
    "decode_desc": "tcgen05_emu_mma.cuh", "decode_idesc": "tcgen05_emu_mma.cuh",
    "check_desc": "tcgen05_emu_mma.cuh", "check_idesc": "tcgen05_emu_mma.cuh",
    "encode": "wgmma_desc.h", "advance": "wgmma_desc.h",
}
LITERAL_SHIFT = re.compile(r"(<<|>>)\s*\(?\s*\d+")
HEX_MASK = re.compile(r"0x[0-9a-fA-F]+")
# A position at which only a descriptor field starts: any shift by one of these is a descriptor shift.
DESCRIPTOR_ONLY_POSITIONS = {46, 49, 52, 53, 61, 62}


def function_body(text: str, name: str) -> str:
    match = re.search(rf"\b{name}\s*\([^;{{]*\)\s*\{{", text)
    assert match, f"{name} not found: update DESCRIPTOR_FUNCTIONS"
    depth, i = 1, match.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[match.start():i]


def test_positions_are_descriptor_field_starts():
    starts = {f.lo for table in TABLES.values() for f in table.fields}
    assert DESCRIPTOR_ONLY_POSITIONS <= starts


@pytest.mark.parametrize("name", list(DESCRIPTOR_FUNCTIONS))
def test_descriptor_functions_use_the_generated_macros(name):
    body = function_body((COMMON / DESCRIPTOR_FUNCTIONS[name]).read_text(), name)
    assert not LITERAL_SHIFT.findall(body), f"{name}: literal shift in\n{body}"
    assert not HEX_MASK.findall(body), f"{name}: literal mask in\n{body}"


def test_no_descriptor_only_shift_anywhere_in_kernels_common():
    found = []
    for path in SOURCES:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in re.finditer(r"(?:<<|>>)\s*(\d+)", line.split("//")[0]):
                if int(match.group(1)) in DESCRIPTOR_ONLY_POSITIONS:
                    found.append(f"{path.name}:{number}: {line.strip()}")
    assert found == []


def test_the_checks_catch_the_old_literal_encoder():
    """The patterns recognise the shifts this change removed (so a passing test means something)."""
    old = "return static_cast<u64>((start_addr & 0x3FFFF) >> 4) | (static_cast<u64>(layout) << 61);"
    assert LITERAL_SHIFT.search(old) and HEX_MASK.search(old)
    assert int(re.findall(r"(?:<<|>>)\s*(\d+)", old)[-1]) in DESCRIPTOR_ONLY_POSITIONS
