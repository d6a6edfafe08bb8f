"""No SM90 wgmma kernel makes ptxas serialise its wgmma (C7513 "Potential Performance Loss").

ptxas waits for every wgmma before the next one is issued when it cannot prove a pipeline stage
safe, with no error: the kernel stays correct and only gets slow. Which code trips it depends on
the ptxas release: NVRTC 13.5 (this machine's build) compiled sm90_mqa_decode's pipelined loop
cleanly while CUDA 13.0 (the lent H100's torch wheels' NVRTC, and nvcc 13.0) serialised it, so
every wgmma variant is checked with nvcc's ptxas and the build's options here, beside the NVRTC
build's own log (tests/sm90/test_sm90_sass.py, test_mqa_decode.py: the build's warnings carry
ptxas's performance-loss lines)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from fmhactl.build.compiler import PERFORMANCE_LOSS, BuildTarget, _options, log_warnings
from fmhactl.registry import load_registry

WGMMA_LAUNCHERS = ("sm90", "sm90_decode")
VARIANTS = sorted(v.name for v in load_registry().values() if v.launcher in WGMMA_LAUNCHERS)
NVCC = shutil.which("nvcc")


def test_the_wgmma_variants_are_found():
    assert "sm90_mqa_decode" in VARIANTS and "sm90_persistent" in VARIANTS and "sm90_persistent_m192" in VARIANTS


def test_performance_loss_lines_are_warnings():
    log = ("ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async instructions are serialized due to x\n"
           "ptxas info    : Used 168 registers\nfoo.cu(3): warning #177-D: variable unused\n")
    got = log_warnings(log)
    assert len(got) == 2 and PERFORMANCE_LOSS in got[0] and "warning #177" in got[1]


@pytest.mark.skipif(NVCC is None, reason="no nvcc on PATH")
@pytest.mark.parametrize("name", VARIANTS)
def test_nvcc_ptxas_does_not_serialise_wgmma(name, tmp_path):
    variant = load_registry()[name]
    proc = subprocess.run([NVCC, "-cubin", "-o", str(tmp_path / "k.cubin"), *_options(variant, BuildTarget("sm_90a")),
                           str(variant.source_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lost = [line for line in proc.stderr.splitlines() if PERFORMANCE_LOSS in line]
    assert not lost, "\n".join(lost)
