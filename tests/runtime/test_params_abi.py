"""The parameter block is defined in C once and mirrored in ctypes: check every offset on the host."""

import shutil
import subprocess

import pytest

from fmhactl import paths
from fmhactl.runtime.params import PARAMS_HEADER, FmhaParams


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs a host C compiler")
def test_ctypes_block_matches_the_c_header(tmp_path):
    names = [name for name, _ in FmhaParams._fields_]
    prints = "\n".join(f'    printf("{n} %zu\\n", offsetof(struct FmhaParams, {n}));' for n in names)
    program = tmp_path / "abi.c"
    program.write_text(f'#include <stdio.h>\n#include <stddef.h>\n#include "{PARAMS_HEADER}"\n'
                       f"int main(void) {{\n{prints}\n"
                       '    printf("sizeof %zu\\n", sizeof(struct FmhaParams));\n    return 0;\n}\n')
    exe = tmp_path / "abi"
    subprocess.run(["gcc", "-std=c11", "-I", str(paths.kernels_dir()), str(program), "-o", str(exe)], check=True)
    printed = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True,
                                                           check=True).stdout.splitlines())
    for name in names:
        assert int(printed[name]) == getattr(FmhaParams, name).offset, name
    assert int(printed["sizeof"]) == __import__("ctypes").sizeof(FmhaParams)
