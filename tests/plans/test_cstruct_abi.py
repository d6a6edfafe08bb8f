"""Every struct declared once in Python (fmhactl/plans) against the C compiler: the generated header,
compiled on the host, puts every member at the offset the ctypes twin computes, and the codes and
constants the header defines are the declared numbers. (The declarations are single; this checks
that the C spelling of each type has the size and alignment its ctypes type claims.)"""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import pytest

from fmhactl import paths
from fmhactl.plans import params, tcgen05_abi
from fmhactl.plans.cstruct import CStruct, ctypes_struct

COMPILER = shutil.which("cc") or shutil.which("gcc")
pytestmark = pytest.mark.skipif(COMPILER is None, reason="needs a host C compiler")

STRUCTS: list[tuple[str, CStruct]] = [("common/fmha_params.h", params.FMHA_PARAMS)] + [
    ("common/tcgen05_errors.h", s) for s in (
        tcgen05_abi.VIOLATION, tcgen05_abi.ALLOC, tcgen05_abi.CTA_META, tcgen05_abi.EMU_STATE,
        tcgen05_abi.STRICT_MMA, tcgen05_abi.STRICT_COMMIT, tcgen05_abi.STRICT_TX_RECORD, tcgen05_abi.STRICT_WARP,
        tcgen05_abi.STRICT_BAR, tcgen05_abi.STRICT_BULK_STORE, tcgen05_abi.STRICT_CTA, tcgen05_abi.TMA_BOX,
        tcgen05_abi.SM_POOL, tcgen05_abi.TRACE_EVENT)]


def _run_c(tmp_path, include: str, body: list[str]) -> dict[str, int]:
    program = tmp_path / "probe.c"
    program.write_text(f'#include <stdio.h>\n#include <stddef.h>\n#include "{include}"\nint main(void) {{\n'
                       + "\n".join(body) + "\n    return 0;\n}\n")
    exe = tmp_path / "probe"
    subprocess.run([COMPILER, "-std=c11", "-I", str(paths.kernels_dir()), str(program), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    return {name: int(value) for name, value in (line.split() for line in out.splitlines())}


@pytest.mark.parametrize("header, struct", STRUCTS, ids=lambda x: x.name if isinstance(x, CStruct) else "")
def test_struct_offsets_match_ctypes(header, struct, tmp_path):
    twin = ctypes_struct(struct)
    body = [f'    printf("{f.name} %zu\\n", offsetof(struct {struct.name}, {f.name}));' for f in struct.fields]
    body.append(f'    printf("sizeof %zu\\n", sizeof(struct {struct.name}));')
    printed = _run_c(tmp_path, header, body)
    for f in struct.fields:
        assert printed[f.name] == getattr(twin, f.name).offset, f"{struct.name}.{f.name}"
    assert printed["sizeof"] == ctypes.sizeof(twin)


def test_codes_in_the_header_are_the_declared_numbers(tmp_path):
    expected = {code.macro("TC5_ERR_"): code.value for code in tcgen05_abi.ERRORS}
    expected |= {code.macro("TC5_OP_"): code.value for code in tcgen05_abi.OPS}
    expected |= {code.macro("TC5_EV_"): code.value for code in tcgen05_abi.EVENTS}
    expected |= {"TC5_ERR_COUNT": tcgen05_abi.ERROR_COUNT, "TC5_ALLOC_CHUNKS": tcgen05_abi.ALLOC_CHUNKS,
                 "TC5_WRITTEN_WORDS": tcgen05_abi.WRITTEN_WORDS, "TC5_STRICT_TX": tcgen05_abi.STRICT_TX,
                 "TC5_SMEM_BLOCKS": tcgen05_abi.SMEM_BLOCKS, "TC5_MMA_TS": tcgen05_abi.MMA_FLAGS["TS"],
                 "TC5_STRICT_BULK": tcgen05_abi.STRICT_BULK, "TC5_BULK_MIN_BYTES": tcgen05_abi.BULK_MIN_BYTES,
                 "TC5_TMA_BOXES": tcgen05_abi.TMA_BOXES, "TC5_TMA_MAP_WORDS": tcgen05_abi.TMA_MAP_WORDS}
    body = [f'    printf("{name} %llu\\n", (unsigned long long)({name}));' for name in expected]
    assert _run_c(tmp_path, "common/tcgen05_errors.h", body) == expected
    assert sorted(tcgen05_abi.ERROR_CODES.values()) == list(range(1, tcgen05_abi.ERROR_COUNT))
