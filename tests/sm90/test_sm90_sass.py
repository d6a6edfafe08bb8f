"""Every SM90 variant, built for sm_90a on the CPU through NVRTC: HGMMA and TMA loads/stores in
the SASS, no local memory (spills), and no wgmma serialization reported by ptxas."""

import json

import pytest

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.build.sass import opcode_counts
from fmhactl.errors import MissingEnvironment
from fmhactl.registry import load_registry
from fmhactl.plans.sm90 import plan_from_switches

SM90 = [v for v in load_registry().values() if v.launcher == "sm90"]


@pytest.fixture(scope="module", params=SM90, ids=lambda v: v.name)
def built(request):
    try:
        result = build(request.param, BuildTarget("sm_90a"))
        return result, opcode_counts(result.cubin_path)
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


def test_sass_has_wgmma_and_tma(built):
    _, ops = built
    assert ops["HGMMA"] > 0, "wgmma (HGMMA) missing"
    assert ops["UTMALDG"] > 0, "TMA tile load (UTMALDG) missing"
    assert ops["UTMASTG"] > 0, "TMA tile store of the epilogue (UTMASTG) missing"


def test_no_local_memory(built):
    result, ops = built
    assert ops["LDL"] == 0 and ops["STL"] == 0, "local-memory traffic (spills or indexed arrays)"
    for k in result.kernels:
        assert k.spill_stores == 0 and k.spill_loads == 0 and k.stack_bytes == 0, k.kernel


def test_ptxas_does_not_serialize_wgmma(built):
    result, _ = built
    meta = result.cubin_path.with_suffix(".json")
    if not meta.is_file():
        pytest.skip("no build log beside the cubin")
    log = json.loads(meta.read_text()).get("log", "")
    assert "Used" in log, "the ptxas resource log is missing"
    assert "C7519" not in log and "C7510" not in log and "serialized" not in log, log


def test_qk_is_ss_and_pv_is_rs_with_register_reallocation(built):
    """QK^T reads A from a descriptor (SS); PV reads A (P) from registers with V transposed (RS,
    tnspB); the producer gives registers back (24; 32 in the persistent variant, whose producer
    also claims tiles) and the consumers take the rest (240; 232; 160 each of 3 consumer WGs)."""
    import re

    from fmhactl.build.sass import sass

    result, _ = built
    text = sass(result.cubin_path)
    hgmma = re.findall(r"HGMMA\.64x\d+x16\.F32\.(?:BF16|F16) (R\d+, (?:R\d+|gdesc\[UR\d+\])[^;]*)", text)
    ss = [h for h in hgmma if re.match(r"R\d+, gdesc\[UR\d+\], (?:R\d+|RZ)", h)]
    rs = [h for h in hgmma if re.match(r"R\d+, R\d+, gdesc\[UR\d+\]\.tnspB", h)]
    assert ss, "no SS wgmma (QK^T from shared memory)"
    assert rs, "no RS wgmma with a transposed B (PV with P in registers)"
    assert len(ss) + len(rs) == len(hgmma), "an HGMMA of an unexpected form"
    plan = plan_from_switches(64, load_registry()[result.variant].switches)
    producer, consumer = plan.registers
    assert (producer, consumer) == ((32, 232) if plan.persistent else (24, 240)) or plan.consumers != 2
    assert producer * 128 + consumer * 128 * plan.consumers <= 65536, "register split exceeds the register file"
    assert f"USETMAXREG.DEALLOC.CTAPOOL {producer:#x}" in text, f"producer does not give registers back ({producer})"
    assert re.search(rf"USETMAXREG\.TRY_ALLOC\.CTAPOOL UP\d, {consumer:#x}\b", text), f"consumers do not take {consumer}"
