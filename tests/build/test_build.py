import json
import subprocess
import sys

import pytest

from fmhactl.build.compiler import BuildTarget, CompileError, targets_for
from fmhactl.build.entry import build
from fmhactl.build.hashing import source_hash, transitive_sources
from fmhactl.registry import Variant, get_variant


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_ref_builds_with_resources_and_then_hits_the_cache(arch):
    ref = get_variant("ref")
    first = build(ref, BuildTarget(arch))
    assert first.cubin_path.is_file() and first.cubin_path.stat().st_size > 1000
    names = {k.kernel for k in first.kernels}
    assert names == {"fmha_ref_bf16", "fmha_ref_f16"}
    assert all(k.registers > 0 for k in first.kernels)
    again = build(ref, BuildTarget(arch))
    assert again.cache_hit and again.cubin_path == first.cubin_path


def test_hash_covers_included_headers():
    ref = get_variant("ref")
    files = {p.name for p in transitive_sources(ref.source_path)}
    assert {"fmha_ref.cu", "fmha_ref.cuh", "fmha_params.h", "dtypes.cuh"} <= files


def test_header_change_changes_the_hash(tmp_path):
    header = tmp_path / "h.cuh"
    header.write_text("#define X 1\n")
    src = tmp_path / "k.cu"
    src.write_text('#include "h.cuh"\nextern "C" __global__ void k() {}\n')
    before = source_hash(src)
    header.write_text("#define X 2\n")
    assert source_hash(src) != before


def _variant(tmp_path, body: str) -> Variant:
    src = tmp_path / "broken.cu"
    src.write_text(body)
    return Variant(name="broken", description="", source=str(src), archs=("sm_90a",),
                   launcher="ref", kernel="k_{dtype}")


def test_compile_error_shows_file_line_and_source(tmp_path):
    variant = _variant(tmp_path, 'extern "C" __global__ void k_bf16(int* x) {\n  x[0] = not_declared;\n}\n')
    with pytest.raises(CompileError) as info:
        build(variant, BuildTarget("sm_90a"), force=True)
    message = str(info.value)
    assert "broken.cu:2: error:" in message
    assert "x[0] = not_declared;" in message


def test_targets_for_arch_choices():
    ref = get_variant("ref")
    assert [t.arch for t in targets_for(ref, None)] == list(ref.archs)
    assert targets_for(ref, "sm_100a") == [BuildTarget("sm_100a")]
    emulated = Variant(name="e", description="", source="x.cu", archs=("sm_100a",), launcher="ref",
                       kernel="k", emulated_on=("sm_90a",))
    assert targets_for(emulated, "sm_90a") == [BuildTarget("sm_90a", emulated=True)]
    assert targets_for(emulated, "sm_80") == []


@pytest.mark.heavy  # builds every variant for every arch (~2.5 min on 2 cores); scripts/main.sh does too
def test_cli_build_all_twice_is_all_cache_hits():
    cmd = [sys.executable, "-m", "fmhactl", "build", "--all", "--json"]
    subprocess.run(cmd, check=True, capture_output=True)
    second = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    archs = {(r["variant"], r["arch"]) for r in second}
    assert ("ref", "sm_90a") in archs and ("ref", "sm_100a") in archs
    assert all(r["cache_hit"] for r in second)


def test_emulated_ptxas_level_is_an_option_of_emulated_builds_only(monkeypatch):
    from fmhactl.build.compiler import BuildTarget, _options
    from fmhactl.errors import BadInput
    from fmhactl.registry import load_registry

    variant = load_registry()["sm100_tma_s2_tmem"]
    emulated, native = BuildTarget("sm_90a", emulated=True, strict=True), BuildTarget("sm_100a")
    monkeypatch.delenv("FMHACTL_EMU_PTXAS_O", raising=False)
    assert not any("-O" in o for o in _options(variant, emulated))
    monkeypatch.setenv("FMHACTL_EMU_PTXAS_O", "0")
    assert "--ptxas-options=-O0" in _options(variant, emulated)
    assert not any("-O" in o for o in _options(variant, native))
    monkeypatch.setenv("FMHACTL_EMU_PTXAS_O", "fast")
    with pytest.raises(BadInput, match="FMHACTL_EMU_PTXAS_O"):
        _options(variant, emulated)
