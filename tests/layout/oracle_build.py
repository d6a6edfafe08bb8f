"""Build and run the CuTe oracles (tests/layout/oracle/*.cpp) for the host, cached by content hash.

The oracles include CUTLASS's CuTe headers from the nvidia-cutlass wheel (cutlass_library/source/
include) and CCCL's libcu++ from the CUDA toolkit, and compile with the host C++ compiler.
Binaries live in <repo>/.fmhactl/cache/layout-oracle/<hash>/ (FMHACTL_ORACLE_CACHE overrides).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORACLE_DIR = HERE / "oracle"
REPO = HERE.parents[1]

# (binary name, source, extra flags)
TARGETS = [
    ("tmem_oracle", "tmem_oracle.cpp", []),
    ("desc_fields", "desc_oracle.cpp", ["-DORACLE_PART=1"]),
    ("canon_k", "desc_oracle.cpp", ["-DORACLE_PART=2"]),
    ("canon_mn", "desc_oracle.cpp", ["-DORACLE_PART=3"]),
]


class OracleUnavailable(Exception):
    """Why the oracle cannot be built here (the tests skip with this reason)."""


@dataclass(frozen=True)
class Toolchain:
    compiler: str
    includes: tuple[str, ...]
    version: str


def cutlass_include() -> Path:
    spec = importlib.util.find_spec("cutlass_library")
    if spec is None or spec.origin is None:
        raise OracleUnavailable("cutlass_library is not importable (pip install nvidia-cutlass)")
    inc = Path(spec.origin).parent / "source" / "include"
    if not (inc / "cute" / "atom" / "copy_traits_sm100.hpp").is_file():
        raise OracleUnavailable(f"{inc} has no CuTe SM100 headers")
    return inc


def cuda_roots() -> list[Path]:
    roots = [Path(os.environ[v]) for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)]
    nvcc = shutil.which("nvcc")
    if nvcc:
        roots.append(Path(nvcc).resolve().parent.parent)
    roots.append(Path("/usr/local/cuda"))
    return roots


def cccl_include() -> Path:
    for root in cuda_roots():
        for inc in (root / "include" / "cccl", root / "include"):
            if (inc / "cuda" / "std" / "utility").is_file():
                return inc
    raise OracleUnavailable("no CCCL headers (cuda/std/utility) in the CUDA toolkit; set CUDA_HOME")


def toolchain() -> Toolchain:
    for name in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        if name and shutil.which(name):
            compiler = shutil.which(name)
            break
    else:
        raise OracleUnavailable("no host C++ compiler (g++, c++ or clang++)")
    assert compiler is not None
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    includes = [str(cutlass_include()), str(cccl_include())]
    for root in cuda_roots():
        if (root / "include" / "cuda_runtime.h").is_file():
            includes.append(str(root / "include"))
            break
    return Toolchain(compiler, tuple(includes), version)


def cache_root() -> Path:
    env = os.environ.get("FMHACTL_ORACLE_CACHE")
    return Path(env) if env else REPO / ".fmhactl" / "cache" / "layout-oracle"


def _key(tc: Toolchain, source: Path, flags: list[str]) -> str:
    h = hashlib.sha256()
    h.update(source.read_bytes())
    h.update(repr((tc.compiler, tc.version, tc.includes, flags)).encode())
    version_file = Path(tc.includes[0]).parent.parent / "__init__.py"
    if version_file.is_file():
        h.update(version_file.read_bytes())
    return h.hexdigest()[:20]


def _build_one(tc: Toolchain, name: str, source: str, flags: list[str]) -> Path:
    src = ORACLE_DIR / source
    out_dir = cache_root() / f"{name}-{_key(tc, src, flags)}"
    binary = out_dir / name
    if binary.is_file():
        return binary
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        tmp_bin = Path(tmp) / name
        cmd = [tc.compiler, "-std=c++17", "-O0", "-w", *flags, *(f"-I{i}" for i in tc.includes), str(src),
               "-o", str(tmp_bin)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"oracle {name} failed to compile:\n{' '.join(cmd)}\n{proc.stderr[-4000:]}")
        os.replace(tmp_bin, binary)  # atomic: concurrent sessions see a whole binary or none
    return binary


def build_all() -> dict[str, Path]:
    """Compile (or reuse) every oracle binary, in parallel."""
    tc = toolchain()
    workers = max(1, min(len(TARGETS), os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        futures = {name: pool.submit(_build_one, tc, name, src, flags) for name, src, flags in TARGETS}
        return {name: f.result() for name, f in futures.items()}


def run(binary: Path, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run([str(binary), *args], input=stdin, capture_output=True, text=True, check=True)
    return proc.stdout
