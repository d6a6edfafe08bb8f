"""cuTensorMapEncodeTiled validator, randomized agreement cases and the driver plumbing (faked on CPU)."""

from __future__ import annotations

import importlib.util
import sys
import types
from dataclasses import replace
from enum import IntEnum
from pathlib import Path

import pytest

from fmhactl.errors import MissingEnvironment
from fmhactl.layout import tensormap as tm
from fmhactl.layout import tma_agreement as ta
from fmhactl.layout.common import LayoutError

REPO = Path(__file__).resolve().parents[2]


def good(**over) -> tm.TensorMapParams:
    p = tm.make_params("bf16", [64, 128], [128], [64, 64], swizzle="128B", global_address=0x10000)
    return replace(p, **over)


def errors(p: tm.TensorMapParams) -> set[str]:
    return {pr.code for pr in tm.validate(p) if pr.severity == "error"}


def test_a_clean_map_passes_every_rule():
    assert errors(good()) == set()
    summary = tm.box_summary(good())
    assert (summary.box_bytes, summary.smem_alignment, summary.inner_box_bytes) == (8192, 1024, 128)


@pytest.mark.parametrize("over,rule", [
    (dict(global_address=0x10008), "address-align"),
    (dict(rank=0, global_dim=(), global_strides=(), box_dim=(), element_strides=()), "rank-range"),
    (dict(rank=6), "rank-range"),
    (dict(global_dim=(64, 0)), "global-dim-range"),
    (dict(global_dim=(64, (1 << 32) + 1)), "global-dim-range"),
    (dict(global_strides=(136,)), "global-stride"),
    (dict(global_strides=(1 << 40,)), "global-stride"),
    (dict(box_dim=(64, 0)), "box-dim-range"),
    (dict(box_dim=(64, 257)), "box-dim-range"),
    (dict(box_dim=(60, 64), swizzle=0), "box-inner-16b"),
    (dict(element_strides=(1, 9)), "element-stride-range"),
    (dict(element_strides=(0, 1)), "element-stride-range"),
    (dict(box_dim=(128, 64)), "swizzle-span"),
    (dict(interleave=1), "rank-interleave"),
    (dict(dtype=int(tm.DataType.UINT16), oob_fill=1), "oob-nan-float"),
    (dict(map_address=0x1020), "map-align"),
    (dict(global_strides=(128, 4096)), "array-lengths"),
    (dict(swizzle=9), "swizzle-enum"),
    (dict(dtype=16), "data-type"),
])
def test_each_rule_is_named(over, rule):
    assert rule in errors(good(**over))


def test_interleave_32b_rules():
    p = tm.make_params("bf16", [16, 64, 64], [32, 2048], [16, 32, 8], interleave="32B", swizzle="128B",
                       global_address=0x10010)
    assert {"interleave32-swizzle", "address-align"} <= errors(p)


def test_packed_type_rules():
    p = tm.make_params("16u4_align16b", [100, 64], [256], [64, 16], swizzle="64B", global_address=0x10000)
    assert {"global-dim-packed", "box-packed", "packed-swizzle"} <= errors(p)
    assert "arch-sm100" in {pr.code for pr in tm.validate(p)}


def test_seed002_call_is_valid_and_its_whole_tensor_variants_are_not():
    assert errors(tm.seed002_params()) == set()
    assert errors(tm.seed002_params(128, 128, 128, 16, "128B")) == set()
    assert errors(tm.seed002_params(512, 128, 512, 128)) == {"box-dim-range"}
    assert errors(tm.seed002_params(128, 128, 128, 128, "128B")) == {"swizzle-span"}
    assert "cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3," in tm.seed002_params().c_call()


def test_enum_spellings():
    assert tm.parse_enum(tm.DataType, "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16") == tm.DataType.BFLOAT16
    assert tm.parse_enum(tm.DataType, "bf16") == tm.DataType.BFLOAT16
    assert tm.parse_enum(tm.Swizzle, "128B_atom_32B") == tm.Swizzle.B128_ATOM_32B
    assert tm.parse_enum(tm.Swizzle, "CU_TENSOR_MAP_SWIZZLE_128B") == tm.Swizzle.B128
    assert tm.cuda_name(tm.Swizzle.B128_ATOM_32B_FLIP_8B) == "CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B"
    assert tm.cuda_name(tm.DataType.U4_16_ALIGN8B) == "CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B"
    with pytest.raises(LayoutError):
        tm.parse_enum(tm.Swizzle, "96B")


def test_random_cases_break_exactly_the_rule_they_name():
    cases = ta.random_cases(count=240)
    valid = [c for c in cases if c.name.endswith("-valid")]
    assert 80 <= len(valid) <= 160
    for c in cases:
        rule = c.name.split("-", 1)[1]
        errs = errors(c.params)
        if rule == "valid":
            assert not errs, c
            assert ta._extent(c.params) <= 64 << 20
        else:
            want = {"stride-not-16": "global-stride", "stride-2^40": "global-stride",
                    "global-dim-zero": "global-dim-range", "global-dim-huge": "global-dim-range",
                    "box-dim-zero": "box-dim-range", "box-dim-over-256": "box-dim-range",
                    "element-stride-zero": "element-stride-range", "element-stride-over-8": "element-stride-range",
                    "rank-zero": "rank-range"}.get(rule, rule)
            assert want in errs, (c.name, errs)
    assert ta.random_cases(count=240) == cases  # seeded


class _Fake:
    """A stand-in for cuda.bindings.driver whose encode answers with the model (plumbing test only)."""

    class CUresult(IntEnum):
        CUDA_SUCCESS = 0
        CUDA_ERROR_INVALID_VALUE = 1

    CUtensorMapDataType = tm.DataType
    CUtensorMapInterleave = tm.Interleave
    CUtensorMapSwizzle = tm.Swizzle
    CUtensorMapL2promotion = tm.L2Promotion
    CUtensorMapFloatOOBfill = tm.OobFill
    CUdevice_attribute = types.SimpleNamespace(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR=75,
                                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR=76)

    class cuuint64_t(int):  # noqa: N801
        pass

    class cuuint32_t(int):  # noqa: N801
        pass

    ok = CUresult.CUDA_SUCCESS

    def cuInit(self, flags):  # noqa: N802
        return (self.ok,)

    def cuDeviceGet(self, i):  # noqa: N802
        return (self.ok, 0)

    def cuDevicePrimaryCtxRetain(self, dev):  # noqa: N802
        return (self.ok, "ctx")

    def cuCtxSetCurrent(self, ctx):  # noqa: N802
        return (self.ok,)

    def cuMemAlloc(self, n):  # noqa: N802
        return (self.ok, 0x7F00_0000_0000)

    def cuMemFree(self, p):  # noqa: N802
        return (self.ok,)

    def cuDevicePrimaryCtxRelease(self, dev):  # noqa: N802
        return (self.ok,)

    def cuDriverGetVersion(self):  # noqa: N802
        return (self.ok, 13000)

    def cuDeviceGetAttribute(self, attr, dev):  # noqa: N802
        return (self.ok, 9 if attr == 75 else 0)

    def cuDeviceGetName(self, n, dev):  # noqa: N802
        return (self.ok, b"Fake H100\0")

    def cuTensorMapEncodeTiled(self, dtype, rank, addr, dims, strides, box, es, inter, swz, l2, oob):  # noqa: N802
        assert all(isinstance(x, self.cuuint64_t) for x in dims + strides) and dims and strides and box and es
        p = tm.TensorMapParams(int(dtype), rank, addr, tuple(dims[:rank] if rank else ()),
                               tuple(strides[:max(rank - 1, 0)]), tuple(box[:rank] if rank else ()),
                               tuple(es[:rank] if rank else ()), int(inter), int(swz), int(l2), int(oob))
        return (self.ok if tm.is_valid(p) else self.CUresult.CUDA_ERROR_INVALID_VALUE, object())


@pytest.fixture
def fake_driver(monkeypatch):
    fake = _Fake()
    module = types.ModuleType("cuda.bindings.driver")
    for name in dir(fake):
        if not name.startswith("__"):
            setattr(module, name, getattr(fake, name))
    import cuda.bindings

    monkeypatch.setitem(sys.modules, "cuda.bindings.driver", module)
    monkeypatch.setattr(cuda.bindings, "driver", module, raising=False)
    return module


def test_build_reports_both_verdicts(fake_driver):
    from fmhactl.layout.tensormap_driver import build

    report = build(tm.seed002_params())
    assert report.model_ok and report.driver.ok and report.agree
    assert "Fake H100" in report.driver_note
    bad = build(good(box_dim=(128, 64)))
    assert not bad.model_ok and not bad.driver.ok and bad.agree


def test_device_script_runs_end_to_end(fake_driver, capsys):
    spec = importlib.util.spec_from_file_location("tma_agreement_script", REPO / "scripts/device/tma_agreement.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--count", "210", "--quiet"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("tma agreement: 216/216 agree (valid ")
    assert any("seed002-Q-T128-HD128-tile128x16" in line for line in out)
    assert any(line.startswith("probes") for line in out)


def test_without_a_driver_the_builder_says_why():
    from fmhactl.layout.tensormap_driver import DriverSession, build

    try:
        DriverSession(buffer_bytes=1 << 20).close()
    except MissingEnvironment:
        report = build(tm.seed002_params())
        assert report.driver is None and "driver not consulted" in report.driver_note
    else:
        pytest.skip("a CUDA driver is present")


@pytest.mark.gpu
def test_model_agrees_with_the_real_driver():
    from fmhactl.layout.tensormap_driver import DriverSession

    try:
        session = DriverSession(buffer_bytes=64 << 20)
    except MissingEnvironment as exc:
        pytest.skip(f"no usable CUDA driver: {exc}")
    with session:
        def encode(p):
            v = session.encode(p)
            return v.ok, v.name
        outcomes = ta.run(ta.seed002_cases() + ta.random_cases(), encode, session.base)
    bad = [o.line() for o in outcomes if o.case.counted and not o.agree]
    assert not bad, "\n".join(bad)
