"""CPU tests: the tcgen05 micro-kernels compile natively for sm_100a (tensor-core / TMEM
instructions present in the SASS) and through the emulator for sm_90a (none present), with no
warnings; the generated native ld/st table covers PTX Table 49; the API refuses a plain sm_90a build."""

from __future__ import annotations

import re

import pytest

from fmhactl.build.compiler import BuildTarget, CompileError
from fmhactl.build.entry import build

import tc5_harness

from fmhactl.plans import tcgen05_ldst

BUILDS = tc5_harness.all_test_builds()
BUILD_IDS = [f"{src}{''.join(f'-{k}{v}' for k, v in sw.items())}" for src, sw in BUILDS]

# SASS mnemonics the native builds must contain (sm_100a, CUDA 13.0 ptxas):
#   UTCHMMA  tcgen05.mma kind::f16/tf32        UTCATOMSWS  tcgen05.alloc / dealloc
#   UTCBAR   tcgen05.commit -> mbarrier        LDTM / STTM tcgen05.ld / tcgen05.st
#   FENCE.VIEW.ASYNC.T tcgen05.wait::ld/st
EXPECTED_SASS = {
    "mma.cu": ["UTCHMMA", "UTCBAR", "UTCATOMSWS", "LDTM", "STTM", "FENCE.VIEW.ASYNC.T"],
    "conformance.cu": ["UTCHMMA", "UTCBAR", "UTCATOMSWS", "LDTM", "STTM"],
    "rate.cu": ["UTCHMMA", "UTCBAR", "UTCATOMSWS", "LDTM"],
    "ldst.cu": ["UTCATOMSWS", "LDTM", "STTM", "FENCE.VIEW.ASYNC.T"],
}
TCGEN05_SASS = re.compile(r"\b(UTCHMMA|UTCBAR|UTCATOMSWS|LDTM|STTM|UTC[A-Z]*MMA)\b")


def _sass(source: str, switches: dict[str, int], emulated: bool) -> str:
    result = tc5_harness.build_test_kernel(source, emulated=emulated, **switches)
    assert result.warnings == [], result.warnings
    return tc5_harness.disassemble(result.cubin_path)


needs_disassembler = pytest.mark.skipif(tc5_harness.find_tool("cuobjdump") is None
                                        and tc5_harness.find_tool("nvdisasm") is None,
                                        reason="no cuobjdump/nvdisasm (pip install nvidia-cuda-cuobjdump)")


@needs_disassembler
@pytest.mark.parametrize(("source", "switches"), BUILDS, ids=BUILD_IDS)
def test_native_sm100a_build_has_tcgen05_sass(source, switches):
    sass = _sass(source, switches, emulated=False)
    missing = [m for m in EXPECTED_SASS[source] if not re.search(rf"\b{re.escape(m)}\b", sass)]
    assert not missing, f"{source}: SASS lacks {missing}"


@needs_disassembler
def test_native_ldst_sass_covers_every_shape_num_and_pack():
    """Every (num, pack) of LDTM/STTM appears: 74 ld and 74 st variants reach the hardware."""
    seen: set[str] = set()
    for source, switches in BUILDS:
        if source == "ldst.cu":
            sass = _sass(source, switches, emulated=False)
            seen |= set(re.findall(r"\b(?:LDTM|STTM)[A-Za-z0-9_.]*", sass))
    for op in ("LDTM", "STTM"):
        packed = "PACK16BIT" if op == "LDTM" else "EXPAND16BIT"
        assert any(packed in s for s in seen if s.startswith(op)), f"no {op} with {packed}"
        assert any(".x128" in s for s in seen if s.startswith(op)), f"no {op}.x128"


@needs_disassembler
@pytest.mark.parametrize(("source", "switches"), BUILDS, ids=BUILD_IDS)
def test_emulated_sm90a_build_has_no_tcgen05_sass(source, switches):
    sass = _sass(source, switches, emulated=True)
    assert not TCGEN05_SASS.search(sass)


def test_plain_sm90a_build_is_refused():
    v = tc5_harness.variant("mma.cu")
    with pytest.raises(CompileError, match="FMHACTL_TCGEN05_EMULATE"):
        build(v, BuildTarget("sm_90a", emulated=False), force=True)


def test_generated_native_ldst_covers_table_49():
    text = tcgen05_ldst.render()
    assert text.count("struct LdSt<Shape::") == 74  # (8 + 8 + 7 + 6 + 8) shape/num pairs x pack
    assert "tcgen05.ld.sync.aligned.16x256b.x32.pack::16b.b32" in text
    assert "16x256b.x64" not in text and "16x128b.x128" not in text
