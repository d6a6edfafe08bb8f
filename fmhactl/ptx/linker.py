"""Link a rewritten module with the emulator by nvJitLink, for sm_90a (no GPU, no CUDA toolkit)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from fmhactl.errors import BadInput, CheckFailed, MissingEnvironment
from fmhactl.ptx import dyn_smem, emulator, parser, rewriter

_PTXAS_LINE = re.compile(r"line (\d+); (error|fatal)\s*:\s*(.*)")
# Part of every PTX-path build's cache key: a cubin linked by an older revision is not served.
# 2: static pads keep each kernel's declared dynamic-SMEM alignment (dyn_smem.py).
# 3: strict builds hook bulk stores, commit_group and wait_group (strict_hooks.bulk_store_hook).
LINK_REVISION = 3


class LinkFailed(CheckFailed):
    """nvJitLink (ptxas) refused the rewritten module: an instruction sm_90a lacks, named with its lines."""


@dataclass
class PtxBuild:
    cubin: bytes
    rewritten: rewriter.Rewritten
    module: parser.PtxModule
    emulator_ptx: str
    log: str


def _preload_from_sys_path() -> bool:
    """Load libnvJitLink from a `nvidia/cu13/lib` folder on sys.path (a `pip install --target` copy,
    which cuda.pathfinder does not search); pathfinder then finds it already loaded."""
    import ctypes
    import sys
    from pathlib import Path

    for base in sys.path:
        for lib in sorted(Path(base or ".").glob("nvidia/cu1*/lib/libnvJitLink.so*")):
            try:
                ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)
                return True
            except OSError:
                continue
    return False


def _nvjitlink():
    try:
        from cuda.bindings import nvjitlink

        try:
            nvjitlink.version()
        except Exception:
            if not _preload_from_sys_path():
                raise
            nvjitlink.version()
    except Exception as exc:  # ImportError, or the library is missing (pathfinder raises its own type)
        raise MissingEnvironment("nvJitLink is not available (pip install nvidia-nvjitlink cuda-bindings): "
                                 f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    return nvjitlink


def linker_ptx_version() -> tuple[int, int]:
    """The newest PTX ISA version the installed nvJitLink reads (CUDA 13.x reads PTX 9.x)."""
    major, minor = _nvjitlink().version()
    return (major - 4, minor) if major >= 13 else (8, min(minor, 8))


def _log(nvjitlink, handle, kind: str) -> str:
    size = getattr(nvjitlink, f"get_{kind}_log_size")(handle)
    buf = bytearray(size)
    getattr(nvjitlink, f"get_{kind}_log")(handle, buf)
    return bytes(buf).rstrip(b"\0").decode(errors="replace")


def register_limit(module: parser.PtxModule) -> int:
    """Registers per thread every kernel of the module allows (.maxnreg, or what .maxntid and
    .minnctapersm leave of the 64K-register file): the emulator's functions are called from all."""
    limit = 255
    threads, ctas = 0, 1
    for line in module.lines:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == ".maxnreg":
            limit = min(limit, int(parts[1].strip(",;")))
        elif parts[0] in (".maxntid", ".reqntid"):
            threads = 1
            for dim in " ".join(parts[1:]).replace(",", " ").split():
                threads *= int(dim.strip(";"))
        elif parts[0] == ".minnctapersm":
            ctas = int(parts[1].strip(",;"))
        elif parts[0] == "{" and threads:
            limit = min(limit, (65536 // (threads * ctas)) // 8 * 8)
            threads, ctas = 0, 1
    return limit


def link(rewritten_ptx: str, emulator_ptx: str, *, optimize: int = 3, max_registers: int = 255) -> tuple[bytes, str, str]:
    """(cubin, info log, error log); cubin empty when the link failed."""
    nvjitlink = _nvjitlink()
    handle = nvjitlink.create(3, ["-arch=sm_90a", f"-O{optimize}", f"-maxrregcount={max_registers}"])
    try:
        try:
            for name, text in (("tc5ptx_emulator", emulator_ptx), ("rewritten", rewritten_ptx)):
                if not text:
                    continue  # a module that calls no emulator entry point links alone
                data = text.encode()
                nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), name)
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError:
            return b"", _log(nvjitlink, handle, "info"), _log(nvjitlink, handle, "error")
        size = nvjitlink.get_linked_cubin_size(handle)
        cubin = bytearray(size)
        nvjitlink.get_linked_cubin(handle, cubin)
        return bytes(cubin), _log(nvjitlink, handle, "info"), ""
    finally:
        nvjitlink.destroy(handle)


def explain_link_errors(error_log: str, rewritten: rewriter.Rewritten, module: parser.PtxModule) -> str:
    """ptxas' errors on the rewritten module, mapped back to the original PTX line and its .loc."""
    out = []
    for m in _PTXAS_LINE.finditer(error_log):
        rewritten_line = int(m.group(1))
        original = rewritten.line_map.get(rewritten_line)
        if original is None:
            out.append(f"{m.group(3)} (rewritten line {rewritten_line})")
            continue
        text = module.lines[original - 1].strip()
        loc = source_of_line(module, original)
        out.append(f"ptx-not-sm90: `{text}` (PTX line {original}{', source ' + loc if loc else ''}): {m.group(3)}")
    return "; ".join(out[:5]) or error_log.strip().splitlines()[-1:][0] if error_log.strip() else "unknown error"


def input_errors(ptx_text: str, module: parser.PtxModule) -> str:
    """ptxas' errors on the input PTX itself, compiled for its own target ('' when it compiles, or
    when this nvJitLink cannot compile for that target): a malformed input is bad input, named
    with its lines, and not a failure of the rewrite."""
    nvjitlink = _nvjitlink()
    target = module.targets[0]
    try:
        handle = nvjitlink.create(2, [f"-arch={target}", "-O0"])
    except nvjitlink.nvJitLinkError:
        return ""
    try:
        data = ptx_text.encode()
        nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "input")
        nvjitlink.complete(handle)
        return ""
    except nvjitlink.nvJitLinkError:
        log = _log(nvjitlink, handle, "error")
    finally:
        nvjitlink.destroy(handle)
    found = []
    for m in _PTXAS_LINE.finditer(log):
        line = int(m.group(1))
        text = module.lines[line - 1].strip() if 1 <= line <= len(module.lines) else ""
        loc = source_of_line(module, line) if text else ""
        found.append(f"`{text[:100]}` (PTX line {line}{', source ' + loc if loc else ''}): {m.group(3).strip()}")
    return "; ".join(found[:3])


def source_of_line(module: parser.PtxModule, line: int) -> str:
    """The `.loc` in force at a PTX line, as file:line ('' when none)."""
    for index in range(line - 1, -1, -1):
        text = module.lines[index].strip()
        if text.startswith(".loc"):
            parts = text.split()
            if len(parts) >= 3 and parts[1].isdigit():
                return f"{module.files.get(int(parts[1]), 'file' + parts[1])}:{parts[2].rstrip(',')}"
        if text.startswith((".entry", ".visible", ".func")):
            break
    return ""


def build(ptx_text: str, origin: str, *, optimize: int = 3, strict: bool = False) -> PtxBuild:
    """Parse, check, rewrite and link one sm_100a PTX module into an sm_90a cubin (strict: with the
    strict emulator and its mbarrier hooks, docs/ptx-emulation.md)."""
    module = parser.parse(ptx_text, origin)
    rewriter.check_target(module, origin)
    rewriter.check_supported(module, origin)
    emulator_ptx = emulator.compile_emulator(rewriter.needed_entries(module), strict=strict)
    version = linker_ptx_version()
    emulator_ptx = re.sub(r"^\.version\s+\d+\.\d+", lambda m: _lowered(m.group(0), version), emulator_ptx,
                          count=1, flags=re.MULTILINE)
    rewritten = rewriter.rewrite(module, emulator.prototypes(emulator_ptx), version, origin, strict=strict)
    registers = register_limit(module)
    cubin, info, errors = link(rewritten.text, emulator_ptx, optimize=optimize, max_registers=registers)
    if not cubin:
        invalid = input_errors(ptx_text, module)
        if invalid:
            raise BadInput(f"{origin}: not valid PTX (ptxas for {module.targets[0]}, before any rewrite): {invalid}")
        raise LinkFailed(f"{origin}: the rewritten module does not link for sm_90a: "
                         f"{explain_link_errors(errors, rewritten, module)}")
    cubin, info = _keep_dyn_smem_alignment(cubin, info, rewritten, emulator_ptx, origin, optimize, registers)
    return PtxBuild(cubin, rewritten, module, emulator_ptx, info)


def _keep_dyn_smem_alignment(cubin: bytes, info: str, rewritten: rewriter.Rewritten, emulator_ptx: str,
                             origin: str, optimize: int, registers: int) -> tuple[bytes, str]:
    """Relink with static pads until every kernel's dynamic SMEM starts at the alignment the module
    declares (fmhactl/ptx/dyn_smem.py says why); `rewritten.text` becomes the padded module."""
    short = dyn_smem.short_kernels(cubin, rewritten.text)
    pads: dict[str, int] = {}
    plain = rewritten.text
    for _ in range(3):  # the pad lands after the kernel's own variables; a second round covers any reordering
        if not short:
            return cubin, info
        for kernel, missing in short.items():
            pads[kernel] = pads.get(kernel, 0) + missing
        padded = dyn_smem.add_pads(plain, pads)
        cubin, info, errors = link(padded, emulator_ptx, optimize=optimize, max_registers=registers)
        if not cubin:
            raise LinkFailed(f"{origin}: the module padded for its dynamic SMEM alignment does not link: "
                             f"{errors.strip().splitlines()[-1:] or ['unknown error']}")
        rewritten.text = padded
        short = dyn_smem.short_kernels(cubin, padded)
    raise LinkFailed(f"{origin}: dyn-smem-align: dynamic SMEM of {', '.join(sorted(short))} would start short of the "
                     f"alignment their `.extern .shared` arrays declare, after padding")


def _lowered(directive: str, version: tuple[int, int]) -> str:
    major, minor = (int(x) for x in directive.split()[1].split("."))
    major, minor = min((major, minor), version)
    return f".version {major}.{minor}"
