"""The test kernels' parameter blocks (tests/tcgen05/kernels/tc5_test_params.h, mirrored in
tc5_harness.py) compiled by the host C compiler. The emulator's own codes and records are declared
once in fmhactl/plans/tcgen05_abi.py and generated into tcgen05_errors.h (tests/plans)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from fmhactl import paths

import tc5_harness

COMPILER = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
pytestmark = pytest.mark.skipif(COMPILER is None, reason="no host C compiler")

STRUCTS = dict(tc5_harness.PARAM_STRUCTS)


def _probe_program() -> str:
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "tcgen05_errors.h"',
             '#include "tc5_test_params.h"', "int main(void) {"]
    for macro in ["TC5T_LDST_WORDS", "TC5T_MAX_K_STEPS"]:
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


def test_harness_geometry_matches(header_values):
    assert header_values["TC5T_LDST_WORDS"] == tc5_harness.LDST_WORDS
    assert header_values["TC5T_MAX_K_STEPS"] == tc5_harness.MAX_K_STEPS


@pytest.mark.parametrize("c_name", list(STRUCTS))
def test_struct_layout_matches(header_values, c_name):
    py = STRUCTS[c_name]
    assert header_values[f"sizeof {c_name}"] == ctypes.sizeof(py)
    for field, _ in py._fields_:
        assert header_values[f"offsetof {c_name}.{field}"] == getattr(py, field).offset, field
