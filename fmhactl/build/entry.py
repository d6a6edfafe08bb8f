"""The one build entry: the PTX-level emulator's path when `--emulate native` asks for it
(fmhactl.ptx.build), NVRTC with the content-hash cache otherwise (compiler.build_nvrtc).

It sits above both so that compiler.py, whose NVRTC and cache helpers the PTX path reuses, does not
import the PTX path back (that was an import cycle).
"""

from __future__ import annotations

from fmhactl.build.compiler import BuildResult, BuildTarget, build_nvrtc, native_ptx_requested
from fmhactl.registry import Variant


def build(variant: Variant, target: BuildTarget, *, force: bool = False) -> BuildResult:
    # emulate = "native" in a project file: this variant's emulated builds always take the PTX path
    # (raw inline tcgen05 PTX has no tc5:: backend to swap).
    if target.emulated and (variant.emulate == "native" or native_ptx_requested()):
        from fmhactl.ptx.build import build_via_ptx

        return build_via_ptx(variant, target, force=force)
    return build_nvrtc(variant, target, force=force)
