"""CI: the native sm_100a PTX of every sm100 variant rewrites and links for sm_90a, 0 unhandled."""

from __future__ import annotations

import pytest

from fmhactl.ptx import linker, parser
from fmhactl.ptx.build import native_ptx
from fmhactl.registry import load_registry

SM100 = sorted(name for name, v in load_registry().items() if "sm_100a" in v.archs and "sm_90a" in v.emulated_on)


def test_the_family_has_sm100_variants():
    assert len(SM100) >= 6


@pytest.mark.parametrize("name", SM100)
def test_native_ptx_rewrites_and_links_for_sm90(name):
    text = native_ptx(load_registry()[name])
    module = parser.parse(text, name)
    assert module.targets[0] == "sm_100a" and len(module.instructions) > 100
    unhandled = [i for i in module.instructions if parser.rule_of(i) is not None]
    assert unhandled == []
    built = linker.build(text, name, optimize=0)
    assert built.cubin[:4] == b"\x7fELF"
    assert built.rewritten.replaced == len(module.instructions)
    code = [line for line in built.rewritten.text.splitlines() if not line.strip().startswith(("//", ".file"))]
    assert not [line for line in code if "tcgen05." in line]
