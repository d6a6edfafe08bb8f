"""Numbers that cross the Python/CUDA boundary: error codes, op codes, struct layouts of
kernels/common/tcgen05_errors.h (mirrored in fmhactl/runtime/emulation.py) and of the test-kernel
parameter blocks (mirrored in tc5_harness.py). The header is compiled by the host C compiler."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from fmhactl import paths
from fmhactl.runtime import emulation as emu

import tc5_harness

COMPILER = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
pytestmark = pytest.mark.skipif(COMPILER is None, reason="no host C compiler")

ERR_MACROS = {name: "TC5_ERR_" + name.upper().replace("-", "_") for name in emu.ERROR_CODES}
OP_MACROS = {name: "TC5_OP_" + name.upper() for name in emu.OP_CODES}
OP_MACROS["relinquish_alloc_permit"] = "TC5_OP_RELINQUISH"

STRICT_MACROS = {"TC5_STRICT_MMA_SLOTS": emu.STRICT_MMA_SLOTS, "TC5_STRICT_COMMITS": emu.STRICT_COMMITS,
                 "TC5_STRICT_TX": emu.STRICT_TX, "TC5_STRICT_BARS": emu.STRICT_BARS,
                 "TC5_STRICT_WARPS": emu.STRICT_WARPS, "TC5_SMEM_BLOCK_BYTES": emu.SMEM_BLOCK_BYTES,
                 "TC5_SMEM_BLOCKS": emu.SMEM_BLOCKS, "TC5_MMA_TS": emu.MMA_TS}
TRACE_MACROS = {name: "TC5_EV_" + name.upper() for name in emu.TRACE_EVENTS}

STRUCTS = {
    "Tc5Violation": emu.ViolationRecord,
    "Tc5Alloc": emu.AllocRecord,
    "Tc5CtaMeta": emu.CtaMeta,
    "Tc5EmuState": emu.EmuState,
    "Tc5StrictMma": emu.StrictMma,
    "Tc5StrictCommit": emu.StrictCommit,
    "Tc5StrictTx": emu.StrictTx,
    "Tc5StrictWarp": emu.StrictWarp,
    "Tc5StrictBar": emu.StrictBar,
    "Tc5StrictCta": emu.StrictCta,
    "Tc5SmPool": emu.SmPool,
    "Tc5TraceEvent": emu.TraceEvent,
    **tc5_harness.PARAM_STRUCTS,
}


def _probe_program() -> str:
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "tcgen05_errors.h"',
             '#include "tc5_test_params.h"', "int main(void) {"]
    for macro in [*ERR_MACROS.values(), *OP_MACROS.values(), "TC5_ERR_COUNT", "TC5_TMEM_LANES",
                  "TC5_TMEM_COLUMNS", "TC5_ALLOC_UNIT", "TC5_ALLOC_CHUNKS", "TC5_WRITTEN_WORDS",
                  "TC5T_LDST_WORDS", "TC5T_MAX_K_STEPS", *STRICT_MACROS, *TRACE_MACROS.values()]:
        lines.append(f'    printf("{macro} %d\\n", (int)({macro}));')
    for c_name, py in STRUCTS.items():
        lines.append(f'    printf("sizeof {c_name} %zu\\n", sizeof(struct {c_name}));')
        for field, _ in py._fields_:
            lines.append(f'    printf("offsetof {c_name}.{field} %zu\\n", offsetof(struct {c_name}, {field}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def header_values(tmp_path_factory) -> dict[str, int]:
    folder = tmp_path_factory.mktemp("abi")
    src = folder / "probe.c"
    src.write_text(_probe_program())
    exe = folder / "probe"
    include_common = paths.kernels_dir() / "common"
    include_tests = Path(tc5_harness.HERE) / "kernels"
    subprocess.run([COMPILER, "-std=c11", "-Wall", "-Werror", f"-I{include_common}", f"-I{include_tests}",
                    str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    values: dict[str, int] = {}
    for line in out.splitlines():
        key, value = line.rsplit(" ", 1)
        values[key] = int(value)
    return values


def test_error_codes_match(header_values):
    for name, macro in ERR_MACROS.items():
        assert header_values[macro] == emu.ERROR_CODES[name], name
    assert header_values["TC5_ERR_COUNT"] == emu.ERROR_COUNT
    assert sorted(emu.ERROR_CODES.values()) == list(range(1, emu.ERROR_COUNT))


def test_op_codes_match(header_values):
    for name, macro in OP_MACROS.items():
        assert header_values[macro] == emu.OP_CODES[name], name


def test_geometry_matches(header_values):
    assert header_values["TC5_TMEM_LANES"] == emu.TMEM_LANES
    assert header_values["TC5_TMEM_COLUMNS"] == emu.TMEM_COLUMNS
    assert header_values["TC5_ALLOC_UNIT"] == emu.ALLOC_UNIT
    assert header_values["TC5_ALLOC_CHUNKS"] == emu.ALLOC_CHUNKS
    assert header_values["TC5_WRITTEN_WORDS"] == emu.WRITTEN_WORDS
    assert header_values["TC5T_LDST_WORDS"] == tc5_harness.LDST_WORDS
    assert header_values["TC5T_MAX_K_STEPS"] == tc5_harness.MAX_K_STEPS


def test_strict_constants_match(header_values):
    for macro, value in STRICT_MACROS.items():
        assert header_values[macro] == value, macro
    for name, macro in TRACE_MACROS.items():
        assert header_values[macro] == emu.TRACE_EVENTS[name], name


@pytest.mark.parametrize("c_name", list(STRUCTS))
def test_struct_layout_matches(header_values, c_name):
    py = STRUCTS[c_name]
    assert header_values[f"sizeof {c_name}"] == ctypes.sizeof(py)
    for field, _ in py._fields_:
        assert header_values[f"offsetof {c_name}.{field}"] == getattr(py, field).offset, field
