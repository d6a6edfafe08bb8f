"""Shared pieces of the tcgen05 tests: test-kernel variants, ctypes mirrors of
tests/tcgen05/kernels/tc5_test_params.h, the pip-installed disassemblers, and a small GPU runner."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from pathlib import Path

from fmhactl.build.compiler import BuildResult, BuildTarget
from fmhactl.build.entry import build
from fmhactl.registry import Variant

HERE = Path(__file__).resolve().parent
LDST_SHAPE_SETS = {0: "32x32b", 1: "16x64b", 2: "16x128b", 3: "16x256b", 4: "16x32bx2"}
TEST_SOURCES = ("ldst.cu", "mma.cu", "conformance.cu", "rate.cu")


def variant(source: str, **switches: int) -> Variant:
    """A sm_100a test kernel that also builds for sm_90a through the emulator."""
    tag = "_".join(f"{k}{v}" for k, v in sorted(switches.items()))
    return Variant(name=f"tc5test_{Path(source).stem}{'_' + tag if tag else ''}", description="tcgen05 test kernel",
                   source=f"../tests/tcgen05/kernels/{source}", archs=("sm_100a",), launcher="none",
                   kernel="unused", switches=dict(switches), emulated_on=("sm_90a",))


def build_test_kernel(source: str, emulated: bool, **switches: int) -> BuildResult:
    target = BuildTarget("sm_90a", emulated=True) if emulated else BuildTarget("sm_100a")
    return build(variant(source, **switches), target)


def all_test_builds() -> list[tuple[str, dict[str, int]]]:
    builds: list[tuple[str, dict[str, int]]] = [(s, {}) for s in TEST_SOURCES if s != "ldst.cu"]
    builds += [("ldst.cu", {"TC5T_LDST_SHAPE_SET": k}) for k in LDST_SHAPE_SETS]
    return builds


# ---- disassemblers from the pip wheels (nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm) ----------

def find_tool(name: str) -> Path | None:
    for base in map(Path, sys.path):
        for candidate in (base / "nvidia" / "cu13" / "bin" / name, base / "nvidia" / "cuda_cuobjdump" / "bin" / name,
                          base / "nvidia" / "cuda_nvdisasm" / "bin" / name):
            if candidate.is_file():
                return candidate
    found = shutil.which(name)
    return Path(found) if found else None


def disassemble(cubin: Path) -> str:
    tool = find_tool("cuobjdump")
    if tool is not None:
        return subprocess.run([str(tool), "-sass", str(cubin)], check=True, capture_output=True, text=True).stdout
    tool = find_tool("nvdisasm")
    if tool is None:
        raise FileNotFoundError("neither cuobjdump nor nvdisasm found (pip install nvidia-cuda-cuobjdump)")
    return subprocess.run([str(tool), str(cubin)], check=True, capture_output=True, text=True).stdout


# ---- ctypes mirrors of tc5_test_params.h --------------------------------------------------------

LDST_WORDS = 128 * 512
MAX_K_STEPS = 8


class LdStParams(ctypes.Structure):
    _fields_ = [("out", ctypes.c_uint64), ("col_base", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class MmaTestParams(ctypes.Structure):
    _fields_ = [("a_image", ctypes.c_uint64), ("b_image", ctypes.c_uint64), ("a_tmem", ctypes.c_uint64),
                ("d_out", ctypes.c_uint64), ("a_desc", ctypes.c_uint64 * MAX_K_STEPS),
                ("b_desc", ctypes.c_uint64 * MAX_K_STEPS), ("a_bytes", ctypes.c_uint32),
                ("b_bytes", ctypes.c_uint32), ("idesc", ctypes.c_uint32), ("k_steps", ctypes.c_uint32),
                ("n", ctypes.c_uint32), ("ts", ctypes.c_uint32), ("a_cols", ctypes.c_uint32),
                ("d_lane0", ctypes.c_uint32)]


class ConformanceParams(ctypes.Structure):
    _fields_ = [("scratch", ctypes.c_uint64), ("which", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


class RateParams(ctypes.Structure):
    _fields_ = [("sink", ctypes.c_uint64), ("iters", ctypes.c_uint32), ("reserved", ctypes.c_uint32)]


PARAM_STRUCTS = {"LdStParams": LdStParams, "MmaTestParams": MmaTestParams,
                 "ConformanceParams": ConformanceParams, "RateParams": RateParams}


# ---- GPU side ----------------------------------------------------------------------------------

def cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


class EmulatedModule:
    """An emulated test kernel loaded on the GPU with its EmulationSession."""

    def __init__(self, source: str, ctas: int, **switches: int) -> None:
        import torch

        from fmhactl.runtime.driver import LoadedModule
        from fmhactl.runtime.emulation import EmulationSession

        torch.zeros(1, device="cuda")  # torch's primary context becomes current for the driver API
        self.result = build_test_kernel(source, emulated=True, **switches)
        self.module = LoadedModule(self.result.cubin_path)
        self.session = EmulationSession(self.module, ctas)
        self.ctas = ctas

    def run(self, kernel: str, params: ctypes.Structure, grid: tuple[int, int, int] = (1, 1, 1),
            block: tuple[int, int, int] = (128, 1, 1), smem: int = 0):
        """Launch, wait, and return the violations of this launch."""
        import torch

        from fmhactl.runtime.driver import launch, synchronize

        assert grid[0] * grid[1] * grid[2] <= self.ctas
        stream = torch.cuda.current_stream().cuda_stream
        self.session.reset(stream)
        launch(self.module.function(kernel), grid, block, smem, stream, params)
        synchronize(stream)
        return self.session.collect()

    def close(self) -> None:
        self.session.close()
