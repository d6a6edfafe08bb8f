"""Compile kernel variants to cubins through NVRTC, with a content-addressed cache."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from fmhactl import locks, paths
from fmhactl.build.hashing import include_dirs, source_hash
from fmhactl.build.resources import KernelResources, parse_ptxas_log, resources_from_cubin
from fmhactl.errors import BadInput, ExitCode, FmhactlError, MissingEnvironment, warn
from fmhactl.registry import Variant

CACHE_SCHEMA = 3  # 2: meta carries the cubin's sha256, checked on every hit; 3: and its own (meta_sha256)
EMULATE_DEFINE = "FMHACTL_TCGEN05_EMULATE"
STRICT_DEFINE = "FMHACTL_TC5_STRICT"
_ARCH_NUMBER = {"sm_80": 80, "sm_90a": 90, "sm_100a": 100}
_DIAGNOSTIC = re.compile(r"^(?P<file>[^\s(][^(]*)\((?P<line>\d+)\): (?P<kind>error|warning|catastrophic error)\s*:?\s*(?P<msg>.*)$")


class CompileError(FmhactlError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.VERIFY_FAILED)


@dataclass(frozen=True)
class BuildTarget:
    arch: str
    emulated: bool = False  # an sm_100a variant built for an sm_90 GPU through the emulation backend
    strict: bool = False    # emulated builds: the strict (time-keeping) emulator, --emulation strict

    @property
    def label(self) -> str:
        return f"{self.arch}{('+emu-strict' if self.strict else '+emu') if self.emulated else ''}"


@dataclass
class BuildResult:
    variant: str
    target: BuildTarget
    cubin_path: Path
    kernels: list[KernelResources]
    compile_seconds: float
    cache_hit: bool
    source_hash: str
    cache_key: str
    toolchain: str
    warnings: list[str] = field(default_factory=list)
    # C++ entry names (a template instance of a project kernel) -> the symbol NVRTC lowered them to
    entry_names: dict[str, str] = field(default_factory=dict)
    # the sha256 of the cubin's bytes this build made or found (the meta's record): the runtime
    # checks the bytes it loads against it (runtime/driver.py read_cubin)
    cubin_sha256: str = ""

    def to_dict(self) -> dict:
        return {
            "variant": self.variant, "arch": self.target.arch, "emulated": self.target.emulated,
            "strict": self.target.strict,
            "cubin": str(self.cubin_path), "kernels": [k.to_dict() for k in self.kernels],
            "compile_seconds": round(self.compile_seconds, 4), "cache_hit": self.cache_hit,
            "source_hash": self.source_hash, "cache_key": self.cache_key,
            "toolchain": self.toolchain, "warnings": self.warnings,
        }


def targets_for(variant: Variant, arch: str | None) -> list[BuildTarget]:
    """The builds an --arch choice means for a variant (empty: the variant has no such build)."""
    if arch is None:
        return ([BuildTarget(a) for a in variant.archs]
                + [BuildTarget(a, emulated=True) for a in variant.emulated_on if a not in variant.archs])
    if arch not in _ARCH_NUMBER:
        raise BadInput(f"unknown arch {arch!r} (choose from {', '.join(_ARCH_NUMBER)} or native)")
    if arch in variant.archs:
        return [BuildTarget(arch)]
    if arch in variant.emulated_on:
        return [BuildTarget(arch, emulated=True)]
    return []


def nvrtc_version() -> str:
    nvrtc = _nvrtc()
    _, major, minor = nvrtc.nvrtcVersion()
    return f"nvrtc-{major}.{minor}"


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as exc:
        raise MissingEnvironment(f"NVRTC is not available (pip install cuda-bindings nvidia-cuda-nvrtc): {exc}") from None
    return nvrtc


# ptxas reports lost performance as "info" (C7513: wgmma serialised, C7510: wgmma pipeline split
# across functions, ...): a kernel engineer wants those beside the warnings.
PERFORMANCE_LOSS = "Potential Performance Loss"


def log_warnings(log: str) -> list[str]:
    """The compile log's warnings, and ptxas's performance-loss notes (one line each)."""
    return [line.strip() for line in log.splitlines() if "warning" in line.lower() or PERFORMANCE_LOSS in line]


def _options(variant: Variant, target: BuildTarget) -> list[str]:
    source = variant.source_path
    opts = [f"--gpu-architecture={target.arch}", "-std=c++17", "-lineinfo", "--ptxas-options=-v",
            f"-DFMHACTL_ARCH={_ARCH_NUMBER[target.arch]}"]
    opts += [f"-I{d}" for d in include_dirs(source, variant.include_dirs)]
    opts += [f"-D{name}={value}" for name, value in sorted(variant.switches.items())]
    if target.emulated:
        opts.append(f"-D{EMULATE_DEFINE}=1")
        if target.strict:
            opts.append(f"-D{STRICT_DEFINE}=1")
        level = emulated_ptxas_level()
        if level is not None:  # part of the options, so part of the cache key
            opts.append(f"--ptxas-options=-O{level}")
    return opts


EMU_PTXAS_ENV = "FMHACTL_EMU_PTXAS_O"


def emulated_ptxas_level() -> int | None:
    """ptxas optimisation level for emulated builds (FMHACTL_EMU_PTXAS_O=0..3; unset: ptxas default).

    An emulated SM100 kernel inlines the emulator at every tcgen05 call, and ptxas spends minutes
    optimising code whose speed means nothing; -O0 cuts a strict build several-fold. Native builds
    never take it: their SASS is what the resource report and the SASS tests are about."""
    import os

    text = os.environ.get(EMU_PTXAS_ENV)
    if text is None or text == "":
        return None
    if text not in ("0", "1", "2", "3"):
        raise BadInput(f"{EMU_PTXAS_ENV}={text[:20]!r}: the ptxas level must be 0, 1, 2 or 3")
    return int(text)


def _cache_key(variant: Variant, target: BuildTarget, src_hash: str, toolchain: str) -> str:
    # Include directories are absolute paths; hash only what changes the generated code.
    options = [o for o in _options(variant, target) if not o.startswith("-I")]
    blob = json.dumps([CACHE_SCHEMA, src_hash, options, toolchain, variant.kernel], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _cache_paths(variant: Variant, target: BuildTarget, key: str) -> tuple[Path, Path]:
    folder = paths.cache_dir() / variant.name / target.label
    return folder / f"{key}.cubin", folder / f"{key}.json"


def _atomic_write(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    except OSError as exc:
        raise MissingEnvironment(f"build cache {path.parent} is not writable: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _meta_digest(meta: dict) -> str:
    """sha256 of a meta file's content but its own meta_sha256 (canonical JSON)."""
    body = {k: v for k, v in meta.items() if k != "meta_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def write_meta(meta_path: Path, meta: dict) -> None:
    """A cache entry's meta file, sealed with meta_sha256 (the hash of the rest of it): the cubin's
    sha256 proves the cubin, this proves the facts served beside it (resources, entry names, log)."""
    _atomic_write(meta_path, json.dumps({**meta, "meta_sha256": _meta_digest(meta)}, indent=1).encode())


def _seal_problem(meta: object) -> str:
    """Why a parsed meta file cannot vouch for its cache entry ('' when it can): a cache record of
    this fmhactl's schema, sealed by its own sha256, recording the cubin's. One check for the
    build's cache hits and the runtime's load (recorded_cubin_sha256)."""
    if not isinstance(meta, dict) or meta.get("cache_schema") != CACHE_SCHEMA:
        return "meta file is not a cache record of this fmhactl"
    if meta.get("meta_sha256") != _meta_digest(meta):
        return "meta file does not match its own sha256"
    if not isinstance(meta.get("cubin_sha256"), str):
        return "meta file records no cubin sha256"
    return ""


def recorded_cubin_sha256(cubin_path: Path) -> str | None:
    """The sha256 a cache entry's meta records for its cubin; None where the cubin has no meta
    beside it (not a cache entry); MissingEnvironment (exit 3) where the meta is damaged."""
    meta_path = cubin_path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MissingEnvironment(f"build cache entry {cubin_path.with_suffix('')}: meta file unreadable "
                                 f"({type(exc).__name__}): not loaded; build it again to rebuild it") from None
    problem = _seal_problem(meta)
    if problem:
        raise MissingEnvironment(f"build cache entry {cubin_path.with_suffix('')}: {problem}: not loaded; "
                                 "build it again to rebuild it")
    return meta["cubin_sha256"]


def _key_lock(cubin_path: Path):
    """An exclusive advisory lock on one cache key, across processes."""
    return locks.exclusive(cubin_path.with_suffix(".lock"), f"build cache {cubin_path.parent}")


# --emulate native: emulated sm100 builds run the native backend's sm_100a PTX, rewritten by
# fmhactl/ptx (docs/ptx-emulation.md); tc5 (default) builds the tc5:: emulated backend.
EMULATE_ENV = "FMHACTL_EMULATE"
EMULATE_SOURCES = ("tc5", "native")


def native_ptx_requested() -> bool:
    mode = os.environ.get(EMULATE_ENV, "tc5")
    if mode not in EMULATE_SOURCES:
        raise BadInput(f"{EMULATE_ENV}={mode[:20]!r}: --emulate must be tc5 or native")
    return mode == "native"


def build_nvrtc(variant: Variant, target: BuildTarget, *, force: bool = False) -> BuildResult:
    """NVRTC with the content-hash cache. Callers use fmhactl.build.entry.build, which picks this or
    the PTX-level emulator's path (that path reuses this module's NVRTC helpers)."""
    source = variant.source_path
    if not source.is_file():
        raise BadInput(f"variant {variant.name}: source {source} not found")
    src_hash = source_hash(source, variant.include_dirs)
    toolchain = nvrtc_version()
    key = _cache_key(variant, target, src_hash, toolchain)
    cubin_path, meta_path = _cache_paths(variant, target, key)
    if not force and (hit := _cached_result(variant, target, cubin_path, meta_path, src_hash, key, toolchain,
                                            repair=False)):
        return hit
    # Parallel builds (--jobs, other fmhactl processes) of one key compile once: the rest wait
    # here, then find the entry. Each file is replaced atomically, the meta (with the cubin's
    # hash) last, so a reader sees a complete, matching pair or a miss, never a torn entry. Only
    # under the lock (no writer active) is a damaged entry reported and removed.
    with _key_lock(cubin_path):
        if not force and (cubin_path.exists() or meta_path.exists()):
            hit = _cached_result(variant, target, cubin_path, meta_path, src_hash, key, toolchain, repair=True)
            if hit is not None:
                return hit
        started = time.perf_counter()
        entry_names: dict[str, str] = {}
        if variant.name_expressions:
            cubin, log, entry_names = compile_named(source, _options(variant, target), variant.entries())
        else:
            cubin, log = _compile_nvrtc(source, _options(variant, target))
        elapsed = time.perf_counter() - started
        kernels = parse_ptxas_log(log)
        warnings = log_warnings(log)
        _atomic_write(cubin_path, cubin)
        if not kernels:
            kernels = _resources_without_ptxas_report(cubin_path, warnings)
        meta = {"kernels": [k.to_dict() for k in kernels], "compile_seconds": elapsed,
                "cubin_sha256": hashlib.sha256(cubin).hexdigest(), "cache_schema": CACHE_SCHEMA,
                "warnings": warnings, "log": log, "variant": variant.name, "arch": target.arch,
                "emulated": target.emulated, "source_hash": src_hash, "toolchain": toolchain,
                "entry_names": entry_names}
        write_meta(meta_path, meta)
    return BuildResult(variant.name, target, cubin_path, kernels, elapsed, False, src_hash, key,
                       toolchain, warnings, entry_names, meta["cubin_sha256"])


def _resources_without_ptxas_report(cubin_path: Path, warnings: list[str]) -> list[KernelResources]:
    try:
        kernels = resources_from_cubin(cubin_path)
    except MissingEnvironment as exc:
        warnings.append(f"NVRTC's log has no ptxas report and the cubin cannot be read back ({exc}): resources unknown")
        return []
    warnings.append("NVRTC's log has no ptxas report (a program NVRTC did not run ptxas for): resources read from "
                    "the cubin, spills as STL/LDL bytes in the SASS")
    return kernels


def _cached_result(variant: Variant, target: BuildTarget, cubin_path: Path, meta_path: Path, src_hash: str,
                   key: str, toolchain: str, *, repair: bool) -> BuildResult | None:
    """The cache entry if its meta parses and the cubin's sha256 matches it; else None (rebuild).

    A damaged entry (truncated or edited cubin, garbled meta, one half missing) is never served.
    With repair (the caller holds the key's lock) it is reported in one warning line and removed.
    """
    problem = ""
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        cubin = cubin_path.read_bytes()
        problem = _seal_problem(meta)
        if not problem and hashlib.sha256(cubin).hexdigest() != meta["cubin_sha256"]:
            problem = "cubin does not match the sha256 in its meta file"
        if not problem:
            kernels = [KernelResources(**k) for k in meta["kernels"]]
            return BuildResult(variant.name, target, cubin_path, kernels, float(meta["compile_seconds"]),
                               True, src_hash, key, toolchain,
                               log_warnings(meta["log"]) if isinstance(meta.get("log"), str) else list(meta.get("warnings", [])),
                               dict(meta.get("entry_names") or {}), meta["cubin_sha256"])
    except FileNotFoundError as exc:
        problem = f"{Path(exc.filename or '').name or 'a file'} is missing"
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        problem = f"meta file unreadable ({type(exc).__name__})"
    if not repair:
        return None
    warn(f"build cache entry {cubin_path.with_suffix('')} for {variant.name} {target.label} is damaged "
         f"({problem}); rebuilding it")
    for path in (cubin_path, meta_path):
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            raise MissingEnvironment(f"build cache entry {path} is damaged and cannot be removed: {exc}") from None
    return None


def _compile_nvrtc(source: Path, options: list[str]) -> tuple[bytes, str]:
    cubin, log, _ = compile_named(source, options, [])
    return cubin, log


def compile_named(source: Path, options: list[str], expressions: list[str], *,
                  ptx: bool = False) -> tuple[bytes, str, dict[str, str]]:
    """cubin (ptx=True: the PTX, as NVRTC wrote it), log, and the lowered symbol of each C++ name
    expression (NVRTC instantiates them: a project's `kernel = "k<{head_dim}>"`)."""
    done = nvrtc_compile(source.read_bytes(), program_name(source), options, expressions=expressions or (),
                         want="ptx" if ptx else "cubin")
    return done.output, done.log, done.lowered


def program_name(source: Path) -> str:
    """The name NVRTC gives a source file in its diagnostics: project-relative where it can be
    (format_compile_errors resolves it against the project root)."""
    try:
        return str(source.resolve().relative_to(paths.project_root()))
    except ValueError:
        return str(source)


@dataclass(frozen=True)
class NvrtcOutput:
    output: bytes                 # the PTX or CUBIN as NVRTC wrote it (PTX: with its trailing NUL)
    log: str                      # nvrtc_text of the compile log ('' when it was empty)
    lowered: dict[str, str]       # name expression -> the symbol NVRTC lowered it to

    @property
    def text(self) -> str:
        """The PTX as text (want="ptx")."""
        return nvrtc_text(self.output)


_NVRTC_OUTPUTS = {"ptx": ("nvrtcGetPTXSize", "nvrtcGetPTX"), "cubin": ("nvrtcGetCUBINSize", "nvrtcGetCUBIN")}


def nvrtc_compile(source: bytes, name: str, options: list[str], *, expressions: tuple[str, ...] | list[str] = (),
                  want: str = "cubin") -> NvrtcOutput:
    """The one NVRTC program compile: create the program, add the C++ name expressions, compile
    with the options, read the log and the wanted output (want: "ptx" or "cubin"), fetch each
    expression's lowered name, destroy the program (always). A failed compile is a CompileError
    with format_compile_errors' message; a failing NVRTC call, _check_nvrtc's error."""
    if want not in _NVRTC_OUTPUTS:
        raise ValueError(f"nvrtc_compile: want must be one of {', '.join(_NVRTC_OUTPUTS)}, not {want!r}")
    nvrtc = _nvrtc()
    err, prog = nvrtc.nvrtcCreateProgram(source, name.encode(), 0, [], [])
    _check_nvrtc(nvrtc, err, "nvrtcCreateProgram")
    try:
        for expression in expressions:
            (err,) = nvrtc.nvrtcAddNameExpression(prog, expression.encode())
            _check_nvrtc(nvrtc, err, f"nvrtcAddNameExpression({expression})")
        encoded = [o.encode() for o in options]
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(encoded), encoded)
        log = nvrtc_text(nvrtc_output(nvrtc, prog, nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog),
                         errors="replace")
        if result != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise CompileError(format_compile_errors(log))
        get_size, get = (getattr(nvrtc, call) for call in _NVRTC_OUTPUTS[want])
        output = nvrtc_output(nvrtc, prog, get_size, get)
        lowered = {}
        for expression in expressions:
            err, symbol = nvrtc.nvrtcGetLoweredName(prog, expression.encode())
            _check_nvrtc(nvrtc, err, f"nvrtcGetLoweredName({expression})")
            lowered[expression] = symbol.decode() if isinstance(symbol, bytes) else str(symbol)
        return NvrtcOutput(output, log, lowered)
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def nvrtc_text(buffer: bytes, errors: str = "strict") -> str:
    """An NVRTC char buffer (log, PTX) as text: its trailing NUL (and padding spaces) dropped.
    Logs decode with errors="replace" (a diagnostic may quote any byte); PTX decodes strictly."""
    return buffer.rstrip(b"\0 ").decode(errors=errors)


def _check_nvrtc(nvrtc, err, what: str) -> None:
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise FmhactlError(f"{what} failed: {err}", ExitCode.MISSING_ENV)


def nvrtc_output(nvrtc, prog, get_size, get) -> bytes:
    """One of a program's NVRTC outputs (log, PTX, CUBIN: get_size and get are the pair of NVRTC
    calls), read into a fresh writable buffer. NVRTC writes into the buffer it is handed, so that
    buffer must never be an immutable bytes object: `b" " * size` with size 1 (an empty log is its
    NUL alone) is CPython's one shared single-byte object b" ", and the write made it b"\0" in the
    whole process, so every later one-byte read of a space gave 0 (torch.load's weights-only
    unpickler read a pickled stride 32, BININT1 0x20, as 0; the CI failures of
    test_cli_merges_segment_files in sessions 24-28)."""
    err, size = get_size(prog)
    _check_nvrtc(nvrtc, err, get_size.__name__)
    buffer = bytearray(size)
    (err,) = get(prog, buffer)
    _check_nvrtc(nvrtc, err, get.__name__)
    return bytes(buffer)


def format_compile_errors(log: str) -> str:
    """'file:line: error: message' plus the offending source line, for each diagnostic."""
    root = paths.project_root()
    out: list[str] = []
    for line in log.splitlines():
        m = _DIAGNOSTIC.match(line.strip())
        if not m or m.group("kind") == "warning":
            continue
        file, lineno = m.group("file"), int(m.group("line"))
        path = Path(file) if Path(file).is_absolute() else root / file
        try:
            file = str(path.resolve().relative_to(root))
        except ValueError:
            pass
        out.append(f"{file}:{lineno}: {m.group('kind')}: {m.group('msg')}")
        try:
            text = path.read_text().splitlines()[lineno - 1]
            out.append(f"    {lineno} | {text.strip()}")
        except (OSError, IndexError):
            pass
    if not out:
        out = [line for line in log.splitlines() if line.strip()][:20]
    return "compile failed:\n" + "\n".join(out)
