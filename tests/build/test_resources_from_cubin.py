"""When NVRTC's log carries no ptxas report, the build reads each entry's resources back from the
cubin (cuobjdump resource usage + STL/LDL bytes of the SASS); they must agree with what ptxas
reported for the same cubin where it did report."""

from __future__ import annotations

import pytest

from fmhactl.build import compiler
from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.build.resources import resources_from_cubin
from fmhactl.errors import MissingEnvironment
from fmhactl.registry import get_variant


def _built(variant: str):
    try:
        return build(get_variant(variant), BuildTarget("sm_90a"))
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


def _decode_built():
    """The split-KV decode kernels (fmhactl/torch/decode.py's variant): the ones with __shared__ bytes of their own."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from fmhactl.torch import decode

    try:
        return build(decode.variant(), BuildTarget(decode.ARCH))
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("which", ["sm90_pipelined", "sm90_mqa_decode", "decode"])
def test_cubin_resources_match_the_ptxas_report(which):
    """Static SMEM included: on sm_90 cuobjdump's SHARED also counts the driver's 1 KiB per-block
    reserve, which ptxas' report leaves out (the H200's fallback read 1024 for sm90_mqa_decode,
    whose SMEM is all dynamic, and its build test failed there only)."""
    result = _decode_built() if which == "decode" else _built(which)
    try:
        from_cubin = {k.kernel: k for k in resources_from_cubin(result.cubin_path)}
    except MissingEnvironment as exc:
        pytest.skip(str(exc))
    assert set(from_cubin) == {k.kernel for k in result.kernels}
    for reported in result.kernels:
        read = from_cubin[reported.kernel]
        assert read.registers == reported.registers
        assert read.stack_bytes == reported.stack_bytes
        assert read.static_smem == reported.static_smem, (reported.kernel, read.static_smem, reported.static_smem)
        assert (read.spill_stores == 0) == (reported.spill_stores == 0)
    if which == "decode":  # the case the reserve must not swallow: kernels with __shared__ bytes of their own
        assert any(k.static_smem > 0 for k in result.kernels)


def test_a_log_without_ptxas_report_falls_back_to_the_cubin(monkeypatch):
    real = compiler._compile_nvrtc

    def without_report(source, options):
        cubin, log = real(source, options)
        return cubin, "\n".join(line for line in log.splitlines() if "ptxas" not in line)

    monkeypatch.setattr(compiler, "_compile_nvrtc", without_report)
    result = build(get_variant("sm90_pipelined"), BuildTarget("sm_90a"), force=True)
    assert {k.kernel for k in result.kernels} == {f"fmha_sm90_{t}_d{d}" for t in ("bf16", "f16") for d in (64, 128, 256)}
    assert all(k.registers > 0 and k.spill_stores == 0 for k in result.kernels)
    assert any("no ptxas report" in w for w in result.warnings)


def test_a_template_entry_is_read_back_by_its_lowered_name():
    """A project's C++ entry (`kernel = "k<{head_dim}>"`) lowers to a mangled `_Z...` symbol: the
    cubin read-back lists it (it once dropped every name starting with `_`, so the PTX path's
    builds of such a kernel were refused as lacking their entry)."""
    from pathlib import Path

    from fmhactl.registry import project_registry

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "tma_project" / "fmhactl.toml"
    variant = project_registry(fixture)["tma_sm90"]
    try:
        result = build(variant, BuildTarget("sm_90a"))
        names = {k.kernel for k in resources_from_cubin(result.cubin_path)}
    except MissingEnvironment as exc:
        pytest.skip(str(exc))
    assert set(result.entry_names.values()) <= names
    assert all(symbol.startswith("_Z") for symbol in result.entry_names.values())
