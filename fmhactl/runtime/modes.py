"""Execution mode: decided once, from the variant's builds and the GPU that is present."""

from __future__ import annotations

import os

from fmhactl.build.compiler import EMULATE_ENV, EMULATE_SOURCES, BuildTarget, native_ptx_requested
from fmhactl.errors import BadInput
from fmhactl.registry import Variant
from fmhactl.runtime.device import gpu_arch

NATIVE, EMULATED, COMPILE_ONLY = "native", "emulated", "compile-only"
MODES = (NATIVE, EMULATED, COMPILE_ONLY)

__all__ = ["EMULATE_ENV", "EMULATE_SOURCES", "native_ptx_requested", "NATIVE", "EMULATED", "COMPILE_ONLY", "MODES", "EMULATION_ENV", "EMULATION_MODES", "emulation_mode",
           "gpu_arch", "plan"]

# --emulation: strict (default) tracks asynchronous tcgen05 work from issue to completion;
# fast completes everything at issue. The CLI sets the variable so that every service that plans
# a build (verify, run, dump, bench, profile) follows it without an extra parameter.
EMULATION_ENV = "FMHACTL_EMULATION"
EMULATION_MODES = ("strict", "fast")


def emulation_mode() -> str:
    mode = os.environ.get(EMULATION_ENV, "strict")
    if mode not in EMULATION_MODES:
        raise BadInput(f"{EMULATION_ENV}={mode!r}: --emulation must be strict or fast")
    return mode


def plan(variant: Variant, cc: list[int] | tuple[int, int]) -> tuple[BuildTarget, str] | str:
    """The build to run on a GPU of compute capability cc, with its mode; or why none can run."""
    arch = gpu_arch(cc)
    if arch is None:
        return f"no build target for compute capability {cc[0]}.{cc[1]}"
    if arch in variant.archs:
        return BuildTarget(arch), NATIVE
    if arch in variant.emulated_on:
        strict = emulation_mode() == "strict"
        return BuildTarget(arch, emulated=True, strict=strict), EMULATED
    return f"variant {variant.name} has no {arch} build (archs: {', '.join(variant.archs)})"
