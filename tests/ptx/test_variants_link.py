"""CI: the native sm_100a PTX of every sm100 variant rewrites and links for sm_90a, 0 unhandled."""

from __future__ import annotations

import functools

import pytest

from fmhactl.ptx import linker, parser
from fmhactl.ptx.build import native_ptx
from fmhactl.registry import load_registry

SM100 = sorted(name for name, v in load_registry().items() if "sm_100a" in v.archs and "sm_90a" in v.emulated_on)


@functools.cache
def native(name: str) -> str:
    """A variant's native PTX, compiled once for both tests (the fast and the strict link)."""
    return native_ptx(load_registry()[name])


def test_the_family_has_sm100_variants():
    assert len(SM100) >= 6


@pytest.mark.parametrize("name", SM100)
def test_native_ptx_rewrites_and_links_for_sm90(name):
    text = native(name)
    module = parser.parse(text, name)
    assert module.targets[0] == "sm_100a" and len(module.instructions) > 100
    unhandled = [i for i in module.instructions if parser.rule_of(i) is not None]
    assert unhandled == []
    built = linker.build(text, name, optimize=0)
    assert built.cubin[:4] == b"\x7fELF"
    assert built.rewritten.replaced == len(module.instructions)
    code = [line for line in built.rewritten.text.splitlines() if not line.strip().startswith(("//", ".file"))]
    assert not [line for line in code if "tcgen05." in line]


@pytest.mark.parametrize("name", SM100)
def test_native_ptx_rewrites_and_links_for_the_strict_emulator(name):
    """--emulate native --emulation strict: 0 unhandled instructions, the strict emulator linked in,
    every mbarrier wait hooked (MMAs complete only when a thread observes their mbarrier)."""
    text = native(name)
    module = parser.parse(text, name)
    built = linker.build(text, name, optimize=0, strict=True)
    assert built.cubin[:4] == b"\x7fELF"
    assert built.rewritten.replaced == len(module.instructions)
    assert "tc5_emu_strict" in built.emulator_ptx and "tc5ptx_drain" not in built.rewritten.functions
    lines = [line.strip() for line in built.rewritten.text.splitlines()]
    waits = [i for i, line in enumerate(lines) if line.startswith("mbarrier.try_wait")]
    assert waits and all(any("call tc5ptx_mbar_observed" in x for x in lines[i + 1:i + 14]) for i in waits)
    arrives = sum(line.startswith("mbarrier.arrive") for line in lines)
    assert sum(line.startswith("call tc5ptx_mbar_arrive") for line in lines) == arrives > 0
