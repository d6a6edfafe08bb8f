"""The PTX-path build of a variant: native sm_100a PTX from NVRTC, rewritten, linked for sm_90a.

Cached like every build (build/compiler.py's content-hash cache and its checks), under its own
label (`sm_90a+ptx-emu`) and a key that adds the emulator headers and the nvJitLink version.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from fmhactl import paths
from fmhactl.build import compiler
from fmhactl.build.compiler import BuildResult, BuildTarget
from fmhactl.build.hashing import source_hash
from fmhactl.ptx import emulator, linker
from fmhactl.registry import Variant

NATIVE_ARCH = "sm_100a"
PTX_LABEL = "sm_90a+ptx-emu"
PTX_STRICT_LABEL = "sm_90a+ptx-emu-strict"


def native_ptx(variant: Variant) -> str:
    """The PTX of the variant's native (sm_100a, inline-PTX backend) build, from NVRTC."""
    return native_ptx_named(variant)[0]


def native_ptx_named(variant: Variant) -> tuple[str, dict[str, str]]:
    """native_ptx, and the lowered symbol of each entry when the entry is a C++ name (a template
    instance: NVRTC instantiates only the names it is given, as for the cubin build)."""
    if NATIVE_ARCH not in variant.archs:
        from fmhactl.errors import BadInput

        raise BadInput(f"variant {variant.name} has no {NATIVE_ARCH} build: the PTX path runs sm100 variants only")
    options = [o for o in compiler._options(variant, BuildTarget(NATIVE_ARCH)) if "ptxas" not in o]
    ptx, _, lowered = compiler.compile_named(variant.source_path, options,
                                             variant.entries() if variant.name_expressions else [], ptx=True)
    return compiler.nvrtc_text(ptx), lowered


def cu_ptx(source: Path) -> str:
    """sm_100a PTX of any .cu file through NVRTC (quoted includes: its folder, then kernels/)."""
    options = [f"--gpu-architecture={NATIVE_ARCH}", "-std=c++17", "-lineinfo", "-DFMHACTL_ARCH=100",
               f"-I{source.parent}", f"-I{paths.kernels_dir()}"]
    return nvrtc_ptx(source, options)


def nvrtc_ptx(source: Path, options: list[str]) -> str:
    """The PTX of a .cu file through NVRTC with these options (CompileError on a failed compile)."""
    return compiler.nvrtc_text(compiler.compile_named(source, options, [], ptx=True)[0])


def _key(variant: Variant, src_hash: str, toolchain: str, strict: bool) -> str:
    emu_hash = source_hash(paths.kernels_dir() / "common" / emulator.EMU_HEADER)
    options = [o for o in compiler._options(variant, BuildTarget(NATIVE_ARCH)) if not o.startswith("-I")]
    blob = json.dumps([compiler.CACHE_SCHEMA, "ptx-path-strict" if strict else "ptx-path", linker.LINK_REVISION,
                       src_hash, emu_hash,
                       options, toolchain,
                       list(linker.linker_ptx_version()), compiler.emulated_ptxas_level(), variant.kernel,
                       variant.entries() if variant.name_expressions else []])
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def build_via_ptx(variant: Variant, target: BuildTarget, *, force: bool = False) -> BuildResult:
    """Build (or find in the cache) the PTX-path cubin of an sm100 variant for an sm_90 GPU."""
    if not variant.source_path.is_file():
        from fmhactl.errors import BadInput

        raise BadInput(f"variant {variant.name}: source {variant.source_path} not found")
    src_hash = source_hash(variant.source_path, variant.include_dirs)
    toolchain = compiler.nvrtc_version()
    key = _key(variant, src_hash, toolchain, target.strict)
    folder = paths.cache_dir() / variant.name / (PTX_STRICT_LABEL if target.strict else PTX_LABEL)
    cubin_path, meta_path = folder / f"{key}.cubin", folder / f"{key}.json"
    if not force and (hit := compiler._cached_result(variant, target, cubin_path, meta_path, src_hash, key,
                                                     toolchain, repair=False)):
        return hit
    with compiler._key_lock(cubin_path):
        if not force and (cubin_path.exists() or meta_path.exists()):
            hit = compiler._cached_result(variant, target, cubin_path, meta_path, src_hash, key, toolchain, repair=True)
            if hit is not None:
                return hit
        started = time.perf_counter()
        level = compiler.emulated_ptxas_level()
        ptx, entry_names = native_ptx_named(variant)
        built = linker.build(ptx, f"{variant.name} (native {NATIVE_ARCH} PTX)",
                             optimize=3 if level is None else level, strict=target.strict)
        elapsed = time.perf_counter() - started
        compiler._atomic_write(cubin_path, built.cubin)
        warnings: list[str] = []
        kernels = compiler._resources_without_ptxas_report(cubin_path, warnings)
        meta = {"kernels": [k.to_dict() for k in kernels], "compile_seconds": elapsed,
                "cubin_sha256": hashlib.sha256(built.cubin).hexdigest(), "cache_schema": compiler.CACHE_SCHEMA,
                "warnings": warnings, "log": built.log, "variant": variant.name, "arch": target.arch,
                "emulated": True, "ptx_path": True, "tcgen05_instructions": built.rewritten.replaced,
                "source_hash": src_hash, "toolchain": toolchain, "entry_names": entry_names}
        compiler.write_meta(meta_path, meta)
    return BuildResult(variant.name, target, cubin_path, kernels, elapsed, False, src_hash, key, toolchain, warnings,
                       entry_names, meta["cubin_sha256"])
