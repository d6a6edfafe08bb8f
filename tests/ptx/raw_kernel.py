"""The raw-PTX attention tile (tests/ptx/kernels/raw_attn.cu) through the PTX path, on a GPU."""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from pathlib import Path

from fmhactl.ptx import linker
from fmhactl.ptx.build import cu_ptx

SOURCE = Path(__file__).resolve().parent / "kernels" / "raw_attn.cu"
T, S, D = 128, 64, 64


@dataclass
class RawRun:
    max_abs_error: float
    violations: list
    ok: bool


def build_cubin(folder: Path, source_text: str | None = None, *, strict: bool = False) -> Path:
    """Link the raw kernel (or a mutated copy of its PTX) for sm_90a, with the fast or the strict
    emulator; returns the cubin path."""
    ptx = source_text if source_text is not None else cu_ptx(SOURCE)
    from fmhactl.build.compiler import emulated_ptxas_level

    level = emulated_ptxas_level()  # FMHACTL_EMU_PTXAS_O, as for every emulated build
    built = linker.build(ptx, str(SOURCE.name), strict=strict, optimize=3 if level is None else level)
    path = folder / f"raw_attn_ptx{'_strict' if strict else ''}.cubin"
    path.write_bytes(built.cubin)
    return path


def run(cubin: Path, seed: int = 0) -> RawRun:
    import torch

    from fmhactl.runtime.driver import LoadedModule, launch, synchronize
    from fmhactl.runtime.emulation import EmulationSession

    torch.zeros(1, device="cuda")
    gen = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(T, D, device="cuda", generator=gen).half()
    k = torch.randn(S, D, device="cuda", generator=gen).half()
    v = torch.randn(S, D, device="cuda", generator=gen).half()
    o = torch.full((T, D), float("nan"), device="cuda")
    scale = 1.0 / math.sqrt(D)
    module = LoadedModule(cubin)
    with EmulationSession(module, 1) as session:
        stream = torch.cuda.current_stream().cuda_stream
        session.reset(stream)
        args = [ctypes.c_uint64(t.data_ptr()) for t in (q, k, v, o)] + [ctypes.c_float(scale)]
        launch(module.function("raw_attn"), (1, 1, 1), (128, 1, 1), 0, stream, *args)
        synchronize(stream)
        violations = session.collect()
    p = torch.softmax((q.float() @ k.float().T) * scale, dim=-1)
    ref = p @ v.float()
    err = float((o - ref).abs().max()) if torch.isfinite(o).all() else float("inf")
    return RawRun(err, violations, err <= 2e-2 and not violations)
