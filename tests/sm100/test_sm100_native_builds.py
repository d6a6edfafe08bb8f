"""Every SM100 variant compiles for sm_100a with 0 spills and the plan's residency; the exp2
polynomial variant trades MUFU.EX2 for FFMA in its SASS (CPU only: NVRTC + cuobjdump wheels)."""

from __future__ import annotations

import re

import pytest

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.errors import MissingEnvironment
from fmhactl.plans.sm100 import ctas_by_registers
from fmhactl.registry import load_registry
from fmhactl.plans.launch import entry_plan

REGISTRY = load_registry()
SM100 = [v for v in REGISTRY.values() if v.launcher == "sm100"]


def _build(variant):
    try:
        return build(variant, BuildTarget("sm_100a"))
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("variant", SM100, ids=lambda v: v.name)
def test_native_build_has_no_spills_and_keeps_the_planned_residency(variant):
    result = _build(variant)
    entries = {k.kernel: k for k in result.kernels}
    assert {f"fmha_sm100_bf16_d{d}" for d in (64, 128, 256)} <= set(entries)
    for name, k in entries.items():
        assert k.spill_stores == 0 and k.spill_loads == 0, f"{name} spills"
        plan = entry_plan(variant.launcher, name, variant.switches)
        assert plan is not None and plan.supported
        assert ctas_by_registers(k.registers) >= plan.ctas_per_sm, f"{name}: registers undo the plan's CTAs/SM"


def _mix(variant) -> dict[str, dict[str, int]]:
    """Per entry point: MUFU.EX2 and FFMA counts in the sm_100a SASS (what `build --mix` shows)."""
    from fmhactl.build.sass import instruction_mix

    return instruction_mix(_build(variant).cubin_path, ("MUFU.EX2", "FFMA"))


def test_exp2_polynomial_moves_exponentials_from_mufu_to_ffma():
    import dataclasses

    # The baseline is the ex2 variant's own switches with the polynomial off (sm100_tma_s2_tmem
    # also builds the attention features, whose epilogue has FFMAs of its own).
    ex2 = REGISTRY["sm100_tma_s2_tmem_ex2"]
    exact = dataclasses.replace(ex2, name="sm100_tma_s2_tmem_ex2_off", switches={**ex2.switches, "FMHA_EXP2_POLY": 0})
    base, poly = _mix(exact), _mix(ex2)
    assert set(base) == set(poly)
    for name in base:
        # Pass 2 computes 32 exponentials per 32-key chunk: FMHA_EXP2_POLY=2 takes 16 of them.
        assert poly[name]["MUFU.EX2"] <= base[name]["MUFU.EX2"] - 16, (name, base[name], poly[name])
        assert poly[name]["FFMA"] >= base[name]["FFMA"] + 3 * 16, (name, base[name], poly[name])


def _kernel_poly_coefficients() -> list[float]:
    from fmhactl import paths

    src = (paths.kernels_dir() / "sm100" / "fmha_sm100.cuh").read_text()
    body = src[src.index("float exp2_poly(float x)"):]
    body = body[:body.index("}")]
    nums = [float(x) for x in re.findall(r"fmaf\(\s*([0-9.]+)f", body)]
    inner = re.search(r"fmaf\(fmaf\(fmaf\(([0-9.]+)f, frac, ([0-9.]+)f\), frac, ([0-9.]+)f\), frac, ([0-9.]+)f\)", body)
    assert inner, "exp2_poly no longer has the expected Horner form"
    return [float(inner.group(i)) for i in (4, 3, 2, 1)] or nums


def test_exp2_polynomial_is_accurate_below_16_bit_rounding():
    """The kernel's coefficients, evaluated in float32 the way the kernel does, over [-127, 0]."""
    import numpy as np

    c0, c1, c2, c3 = (np.float32(c) for c in _kernel_poly_coefficients())
    x = np.linspace(-126.999, 0.0, 200001, dtype=np.float32)
    fl = np.floor(x).astype(np.float32)
    frac = (x - fl).astype(np.float32)
    poly = ((c3 * frac + c2) * frac + c1) * frac + c0
    got = np.ldexp(poly.astype(np.float64), fl.astype(np.int32))
    rel = np.abs(got / np.exp2(x.astype(np.float64)) - 1.0)
    assert rel.max() < 1.0e-4  # bf16 P rounds at 2^-9 = 2e-3, f16 at 2^-11 = 4.9e-4


def test_build_mix_column_shows_the_counts():
    from typer.testing import CliRunner

    from fmhactl.cli.app import app

    _build(REGISTRY["sm100_tma_s2_tmem_ex2"])  # cached for the CLI call below
    result = CliRunner().invoke(app, ["build", "sm100_tma_s2_tmem_ex2", "--arch", "sm_100a", "--mix"],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    mix = _mix(REGISTRY["sm100_tma_s2_tmem_ex2"])["fmha_sm100_bf16_d256"]
    row = next(line for line in result.output.splitlines() if "fmha_sm100_bf16_d256" in line)
    # a terminal draws a table with │ between cells; a pipe (CliRunner) gets TSV
    cells = [c.strip() for c in row.replace("│", "\t").split("\t")]
    assert str(mix["MUFU.EX2"]) in cells and str(mix["FFMA"]) in cells
