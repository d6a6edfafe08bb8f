"""Strict emulation (--emulation strict): one deliberately broken micro-kernel per rule
(tests/kernels/emu_rules/rules.cu, p.which = the rule's TC5_ERR code) must be reported by that
rule's name, with the block, warp, source line and the second operation; the correct kernel
(which = 0) must report nothing. Also: co-resident CTAs share one SM's 512 TMEM columns, and lanes
of one warp that see an mbarrier phase at different times do not wait for each other in the hook.

The build test runs on the CPU (NVRTC); the rest needs a CUDA GPU (sm_90 runs the emulator).
"""

from __future__ import annotations

import ctypes
import re

import pytest

from fmhactl.build.compiler import BuildResult, BuildTarget
from fmhactl.build.entry import build
from fmhactl.plans.tcgen05_abi import PTX_PATH_ERRORS
from fmhactl.registry import Variant
from fmhactl.runtime import emulation as emu

import tc5_harness

RULES_SOURCE = "../tests/kernels/emu_rules/rules.cu"
RULES_PATH = tc5_harness.HERE.parent / "kernels" / "emu_rules" / "rules.cu"
DYN_SMEM = 24576 + 128 + 1024  # kDynSmem in rules.cu
THREADS = 128

# Rule -> (the warp that must be named, the second operation that must be named, or "").
CASES: dict[str, tuple[int, str]] = {
    "tmem-busy": (0, "mma_ss"),
    "smem-busy": (0, "generic_store"),
    "ld-not-waited": (0, "ld"),
    "st-not-waited": (0, "st"),
    "missing-proxy-fence": (0, "fence_proxy"),
    "missing-fence-after": (0, "mbar_wait"),
    "missing-fence-before": (0, "st"),
    "commit-without-mma": (1, ""),
    "mma-uncommitted": (0, "exit"),
    "partial-warp": (0, ""),
    "non-uniform": (0, ""),
    "tma-in-flight-at-exit": (0, "exit"),
    "mma-in-flight-at-exit": (0, "commit"),
    "alloc-timeout": (1, "alloc"),
    "cp-async-not-waited": (0, "cp_async"),
    "cp-async-pending-at-exit": (1, "exit"),
}
# Correct kernels (p.which): 0, and kCorrectCpSpan (one pending cp.async group on both sides of the
# operand an MMA reads: neither the group's span nor its blocks alone may decide), read from rules.cu.
CORRECT = {"plain": 0, "cp-span": int(re.search(r"constexpr u32 kCorrectCpSpan = (\d+);", RULES_PATH.read_text())[1])}


class RuleParams(ctypes.Structure):
    _fields_ = [("scratch", ctypes.c_uint64), ("which", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


def rules_variant() -> Variant:
    return Variant(name="emu_rules", description="strict-emulation rule kernels", source=RULES_SOURCE,
                   archs=("sm_100a",), launcher="none", kernel="unused", switches={}, emulated_on=("sm_90a",))


def build_rules() -> BuildResult:
    return build(rules_variant(), BuildTarget("sm_90a", emulated=True, strict=True))


def test_every_strict_rule_has_a_broken_kernel():
    # PTX-path-only rules (no tc5:: op to break) are covered in tests/ptx
    assert set(CASES) == set(emu.STRICT_ERRORS) - PTX_PATH_ERRORS
    source = RULES_PATH.read_text()
    for name in CASES:
        assert f"case TC5_ERR_{name.upper().replace('-', '_')}:" in source, name


def test_rules_kernel_builds_strict():
    result = build_rules()
    meta = result.cubin_path.with_suffix(".json").read_text()
    assert {k.kernel for k in result.kernels} >= {"rule", "hog", "split_observe"}, (
        f"entries parsed from the ptxas log: {result.kernels} (cache hit {result.cache_hit}, "
        f"{result.compile_seconds:.1f} s); meta: {meta[:600]}")


@pytest.fixture(scope="module")
def rules_module():
    import torch

    from fmhactl.runtime.driver import LoadedModule

    torch.zeros(1, device="cuda")
    module = LoadedModule(build_rules().cubin_path)
    session = emu.EmulationSession(module, ctas=264, alloc_timeout_s=0.5)
    assert session.strict
    yield module, session
    session.close()


def _tma_map():
    import torch

    from fmhactl.runtime.tma_maps import encode

    tensor = torch.randn(1, 128, 1, 64, device="cuda").to(torch.bfloat16)
    return tensor, encode(tensor, 128)


def _launch(rules_module, kernel: str, which: int, grid: int = 1, seed: int = 0):
    import torch

    from fmhactl.runtime.driver import launch, synchronize
    from fmhactl.runtime.tma_maps import TmaMap

    module, session = rules_module
    scratch = torch.zeros(1024, dtype=torch.int32, device="cuda")
    keep, tmap = _tma_map() if which == emu.ERROR_CODES["tma-in-flight-at-exit"] else (None, TmaMap())
    stream = torch.cuda.current_stream().cuda_stream
    session.reset(stream, seed)
    launch(module.function(kernel), (grid, 1, 1), (THREADS, 1, 1), DYN_SMEM if kernel == "rule" else 0, stream,
           RuleParams(scratch.data_ptr(), which, 0), tmap)
    synchronize(stream)
    del keep
    return session.collect()


@pytest.mark.parametrize("seed", [0, 1, 12345])
@pytest.mark.parametrize("case", list(CORRECT))
@pytest.mark.gpu
@pytest.mark.skipif(not tc5_harness.cuda_available(), reason="needs a CUDA GPU (torch.cuda)")
def test_correct_kernel_reports_nothing(rules_module, case, seed):
    violations = _launch(rules_module, "rule", CORRECT[case], seed=seed)
    assert violations == [], "\n".join(map(str, violations))


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.gpu
@pytest.mark.skipif(not tc5_harness.cuda_available(), reason="needs a CUDA GPU (torch.cuda)")
def test_broken_kernel_reports_its_rule(rules_module, name):
    violations = _launch(rules_module, "rule", emu.ERROR_CODES[name])
    text = "\n".join(map(str, violations))
    names = {v.name for v in violations}
    assert names == {name}, text
    warp, other = CASES[name]
    assert warp in {v.warp for v in violations}, text
    hit = next(v for v in violations if v.warp == warp)
    assert hit.block == 0, text
    assert hit.site > 0 and str(hit).startswith(f"tcgen05 {name}:"), text
    lines = RULES_PATH.read_text().splitlines()
    assert any(k in lines[hit.site - 1] for k in ("tc5::", "mbar::", "tma::", "cp_async::", "mma_and_commit",
                                                  "read_d")), (
        f"line {hit.site} is not a tcgen05/mbarrier/TMA/cp.async call: {lines[hit.site - 1]!r}")
    if other:
        assert hit.other_op == other, text
        assert "other operation: " + other in str(hit)


@pytest.mark.gpu
@pytest.mark.skipif(not tc5_harness.cuda_available(), reason="needs a CUDA GPU (torch.cuda)")
def test_coresident_ctas_share_one_sms_tmem(rules_module):
    violations = _launch(rules_module, "hog", 0, grid=264)
    assert violations == [], "\n".join(map(str, violations))
    stats = rules_module[1].pool_stats
    # 264 CTAs of 128 threads and no SMEM: several reside on each SM; each takes all 512 columns,
    # so the others wait in tcgen05.alloc and never two hold columns of one SM at once.
    assert stats["max_ctas_holding_tmem_per_sm"] == 1, stats
    assert stats["allocs_blocked"] > 0, stats


@pytest.mark.gpu
@pytest.mark.skipif(not tc5_harness.cuda_available(), reason="needs a CUDA GPU (torch.cuda)")
def test_lanes_that_see_a_phase_at_different_times_do_not_wait_for_each_other(rules_module):
    """Lane 0 observes the phase complete, lanes 1-31 do not and go on to __syncwarp: before the
    fix the strict hook held lane 0 in a full-warp __shfl_sync and the launch never ended."""
    violations = _launch(rules_module, "split_observe", 0)
    assert violations == [], "\n".join(map(str, violations))
