"""Execution mode: decided once, from the variant's builds and the GPU that is present."""

from __future__ import annotations

from fmhactl.build.compiler import BuildTarget
from fmhactl.registry import Variant
from fmhactl.runtime.device import gpu_arch

NATIVE, EMULATED, COMPILE_ONLY = "native", "emulated", "compile-only"
MODES = (NATIVE, EMULATED, COMPILE_ONLY)

__all__ = ["NATIVE", "EMULATED", "COMPILE_ONLY", "MODES", "gpu_arch", "plan"]


def plan(variant: Variant, cc: list[int] | tuple[int, int]) -> tuple[BuildTarget, str] | str:
    """The build to run on a GPU of compute capability cc, with its mode; or why none can run."""
    arch = gpu_arch(cc)
    if arch is None:
        return f"no build target for compute capability {cc[0]}.{cc[1]}"
    if arch in variant.archs:
        return BuildTarget(arch), NATIVE
    if arch in variant.emulated_on:
        return BuildTarget(arch, emulated=True), EMULATED
    return f"variant {variant.name} has no {arch} build (archs: {', '.join(variant.archs)})"
