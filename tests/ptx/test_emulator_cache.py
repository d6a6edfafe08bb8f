"""The emulator PTX cache (ptx/emulator.compile_emulator): one NVRTC compile per distinct emulator
(entry points, fast or strict, headers, NVRTC), served again only when it matches its recorded
sha256; a cache folder that cannot be used still gives the PTX. NVRTC itself is stubbed here (the
real compiles are tests/ptx/test_rewrite_link.py's and the others' links)."""

from __future__ import annotations

import pytest

from fmhactl import paths
from fmhactl.errors import MissingEnvironment
from fmhactl.ptx import emulator

LD = emulator.LdStEntry("ld", "32x32b", 2, False, 0)


@pytest.fixture
def compiles(monkeypatch, tmp_path):
    """NVRTC stubbed (each compile recorded), in a cache of the test's own."""
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "home"))
    done: list[str] = []

    def fake(source: str, options: list[str]) -> str:
        done.append(source)
        return f"// PTX {len(done)}\n.version 9.0\n{source}{' '.join(o for o in options if o.startswith('-D'))}\n"

    monkeypatch.setattr(emulator, "_compile", fake)
    return done


def _entries() -> list:
    return sorted((paths.cache_dir() / emulator.EMU_CACHE).glob("*.ptx"))


def test_one_compile_per_distinct_emulator(compiles):
    first = emulator.compile_emulator([LD])
    assert emulator.compile_emulator([LD]) == first and len(compiles) == 1
    strict = emulator.compile_emulator([LD], strict=True)
    other = emulator.compile_emulator([])
    assert len(compiles) == 3 and len({first, strict, other}) == 3
    assert "FMHACTL_TC5_STRICT" in strict and LD.name in first and LD.name not in other
    assert len(_entries()) == 3
    assert emulator.compile_emulator([], strict=False) == other and len(compiles) == 3


@pytest.mark.parametrize("damage", ["edit ptx", "truncate ptx", "garble meta", "remove meta", "remove ptx"])
def test_a_damaged_entry_is_compiled_again_never_served(compiles, damage):
    good = emulator.compile_emulator([LD])
    (ptx,) = _entries()
    meta = ptx.with_suffix(".json")
    if damage == "edit ptx":
        ptx.write_text(good.replace("9.0", "9.1"))
    elif damage == "truncate ptx":
        ptx.write_text(good[: len(good) // 2])
    elif damage == "garble meta":
        meta.write_text("{not json")
    elif damage == "remove meta":
        meta.unlink()
    else:
        ptx.unlink()
    again = emulator.compile_emulator([LD])
    assert len(compiles) == 2 and again != good and again.startswith("// PTX 2")
    assert emulator.compile_emulator([LD]) == again and len(compiles) == 2  # stored again


def test_headers_are_part_of_the_key(compiles, monkeypatch):
    emulator.compile_emulator([LD])
    monkeypatch.setattr(emulator, "source_hash", lambda path, extra=(): "an edited header")
    emulator.compile_emulator([LD])
    assert len(compiles) == 2


def test_a_cache_that_cannot_be_used_still_gives_the_ptx(compiles, monkeypatch):
    def no_cache():
        raise MissingEnvironment("build cache /x cannot be created: Read-only file system")

    monkeypatch.setattr(paths, "cache_dir", no_cache)
    assert emulator.compile_emulator([LD]).startswith("// PTX 1")
    assert emulator.compile_emulator([LD]).startswith("// PTX 2")  # compiled each time


def test_a_cache_that_cannot_be_written_still_gives_the_ptx(compiles, monkeypatch):
    import fmhactl.ptx.emulator as module

    def no_write(path, data):
        raise MissingEnvironment(f"build cache {path.parent} is not writable: Permission denied")

    monkeypatch.setattr(module, "_atomic_write", no_write)
    first = emulator.compile_emulator([LD])
    assert first.startswith("// PTX 1") and emulator.compile_emulator([LD]).startswith("// PTX 2")
