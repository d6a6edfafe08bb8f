"""Built natively for sm_100a, every SM100 variant contains the tensor-core, TMEM and TMA instructions
its switches promise (and the emulated sm_90a build contains none of the tcgen05 ones)."""

import pytest

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.build.sass import opcode_counts
from fmhactl.errors import MissingEnvironment
from fmhactl.registry import load_registry

SM100 = [v for v in load_registry().values() if v.launcher == "sm100"]


def _opcodes(variant, target):
    try:
        return opcode_counts(build(variant, target).cubin_path)
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("variant", SM100, ids=lambda v: v.name)
def test_native_build_has_the_promised_instructions(variant):
    ops = _opcodes(variant, BuildTarget("sm_100a"))
    assert ops["UTCHMMA"] > 0, "tcgen05.mma (UTCHMMA) missing"
    assert ops["LDTM"] > 0, "tcgen05.ld (LDTM) missing"
    if variant.switches["FMHA_LOAD_TMA"]:
        assert ops["UTMALDG"] > 0, "TMA tile load (UTMALDG) missing"
    else:
        assert ops["UTMALDG"] == 0
    if not variant.switches["FMHA_P_SMEM"]:
        assert ops["STTM"] > 0, "tcgen05.st (STTM) of P missing"
    # FMHA_TOPK: the load warp gathers listed K/V rows with cp.async (LDGSTS); no other variant has one.
    assert (ops["LDGSTS"] > 0) == bool(variant.switches.get("FMHA_TOPK", 0)), ops["LDGSTS"]


@pytest.mark.parametrize("variant", SM100[:1], ids=lambda v: v.name)
def test_emulated_build_has_no_tcgen05_instructions(variant):
    ops = _opcodes(variant, BuildTarget("sm_90a", emulated=True))
    assert ops["UTCHMMA"] == 0 and ops["LDTM"] == 0 and ops["STTM"] == 0
    assert sum(ops.values()) > 100


@pytest.mark.slow
@pytest.mark.heavy  # ~3.5 min of ptxas on 2 cores
def test_strict_emulated_build_with_topk_compiles(monkeypatch):
    """sm100_tma_s2_tmem with FMHA_TOPK through the strict emulator (sm_90a; ptxas -O0 keeps it to
    minutes): the gather's cp.async stays, the tcgen05 instructions are emulated away."""
    monkeypatch.setenv("FMHACTL_EMU_PTXAS_O", "0")
    variant = load_registry()["sm100_tma_s2_tmem"]
    assert variant.switches["FMHA_TOPK"] == 1
    ops = _opcodes(variant, BuildTarget("sm_90a", emulated=True, strict=True))
    assert ops["LDGSTS"] > 0
    assert ops["UTCHMMA"] == 0 and ops["LDTM"] == 0 and ops["STTM"] == 0
