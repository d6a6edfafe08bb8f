#!/usr/bin/env bash
# The peer baselines' packages (issue 24 item 6, issue 27 item 3) as a payload for the device
# machine, which has no internet and takes at most 64 MiB a call: run HERE (the CPU machine, pip
# reaching PyPI), from any directory; it writes .peers/ at the repository root.
#
#   FA4:        flash-attn-4, quack-kernels, nvidia-cutlass-dsl (+ libs-base, libs-core, libs-cu13),
#               apache-tvm-ffi
#   FlashInfer: flashinfer-python (pruned to its Python, headers and the prefill/decode sources:
#               420 MB -> ~130 MB), apache-tvm-ffi, cuRAND's headers (for a JIT build on a toolkit
#               without them), and its sm90 suite kernels built here ahead of time with this
#               machine's nvcc (flashinfer/data/aot/: FlashInfer loads those before it would JIT;
#               peers_aot.py says which), so the device compiles nothing for the suite.
#   Every Requires-Dist is checked (below): each is shipped, on the device image already, or left out
#   with the reason.
# One tar of that site tree, xz -9e, split into parts of at most PART_MIB (40) MiB:
#   .peers/call1/peers.tar.xz.part1, .peers/call2/peers.tar.xz.part2, ... (+ MANIFEST in each).
#
# Device calls (the repo travels in each; /.peers/ must be in .git/info/exclude, or the whole
# payload travels with every call and the call is refused as over 64 MiB). The machine keeps /tmp
# only while it stays warm (30 s after a call): make each call right after the last one.
#   call 1: carry [".peers/call1"]
#           command: bash scripts/device/peers_install.sh
#           (stages part 1 under /tmp/peers-parts; prints "staged 1/2")
#   call 2: carry [".peers/call2", ".whl"]
#           command: bash scripts/device/peers_bench.sh
#           (installs .whl under /tmp/site (steps.sh device_python), stages part 2, unpacks the site
#           into /tmp/peers-site, benches the sm90 suite on sm90_persistent beside cudnn, flash, fa4
#           and flashinfer within 540 s; $OUT: summary.txt, bench.json, raw.tgz)
# With more parts, calls 2..N-1 are like call 1 with their own folder, and the last is call 2's.
# If a call finds an earlier part missing (the machine went back in between), it says so: start
# again at call 1.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"
WORK=${PEERS_WORK:-/tmp/peers-payload}  # downloads and the site tree (kept: a rerun reuses both)
PART_MIB=${PART_MIB:-40}  # the tracked tree (~20 MB) travels beside each part: 45 + 20 passed 64 MiB
PY=${PYTHON:-$REPO/.venv/bin/python}      # the host interpreter with torch (scripts/setup.sh)
TARGET=(--python-version 3.12 --implementation cp --only-binary=:all: --platform manylinux_2_28_x86_64
        --platform manylinux_2_27_x86_64 --platform manylinux_2_24_x86_64 --platform manylinux_2_17_x86_64
        --platform manylinux2014_x86_64)
SHIPPED=(flash-attn-4==4.0.0b36 quack-kernels==0.6.5 nvidia-cutlass-dsl==4.8.1
         nvidia-cutlass-dsl-libs-base==4.8.1 nvidia-cutlass-dsl-libs-core==4.8.1
         nvidia-cutlass-dsl-libs-cu13==4.8.1 apache-tvm-ffi==0.1.15.post2 flashinfer-python==0.7.2.post1)
CURAND=nvidia-curand==10.4.5.25  # headers only (CUDA 13's cuRAND)
log() { echo "[peers_payload] $*" >&2; }

mkdir -p "$WORK/wheels" "$WORK/host"
log "downloading ${#SHIPPED[@]} wheels for CPython 3.12 x86_64 (and $CURAND for its headers)"
python3 -m pip download -q --no-deps --pre "${TARGET[@]}" -d "$WORK/wheels" "${SHIPPED[@]}" "$CURAND"

# ---- Requires-Dist, recursively: shipped, on the device image, or left out (with why) ----
python3 - "$WORK/wheels" <<'PY'
import re, sys, zipfile
from pathlib import Path
ON_DEVICE = {  # the device image's packages (/work/.library/device/KINDS.md)
    "torch", "einops", "typing-extensions", "numpy", "packaging", "requests", "tabulate", "tqdm", "click",
    "ninja", "nvidia-ml-py", "cuda-bindings", "cuda-core", "cuda-pathfinder", "protobuf", "nvidia-nccl-cu13"}
LEFT_OUT = {
    "torch-c-dlpack-ext": "optional (tvm-ffi); prebuilt for torch <= 2.9 only, and a torch with its own DLPack exchange API (2.13 here) needs none",
    "cuda-python": "a meta package of cuda-bindings/core/pathfinder, which the device has",
    "cuda-tile": "FlashInfer's cuTile backend (Blackwell); not imported by the prefill/decode paths",
    "nccl4py": "FlashInfer's communication kernels; not imported by `import flashinfer`",
    "nccl-extensions": "as nccl4py",
    "nvidia-cudnn-frontend": "FlashInfer's cuDNN backend (chosen on SM100 only); import is optional",
    "nvidia-cutlass-dsl-libs-cu12": "the cu13 flavour is shipped (torch cu130, driver CUDA 13)",
    "nvidia-cuda-nvdisasm": "the cutlass DSL's 'sass' extra only",
    "backports-strenum": "Python < 3.11 only",
}
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
shipped, needs = set(), {}
for whl in Path(sys.argv[1]).glob("*.whl"):
    with zipfile.ZipFile(whl) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        text = z.read(meta).decode()
    name = norm(re.search(r"^Name: (.+)$", text, re.M).group(1))
    shipped.add(name)
    for line in re.findall(r"^Requires-Dist: (.+)$", text, re.M):
        req, _, marker = line.partition(";")
        if "extra ==" in marker or "python_version < \"3.1" in marker:
            continue
        needs.setdefault(norm(re.split(r"[\s\[<>=!~(]", req.strip())[0]), set()).add(name)
bad = []
for dep, by in sorted(needs.items()):
    where = "shipped" if dep in shipped else "on the device" if dep in ON_DEVICE else LEFT_OUT.get(dep)
    print(f"[peers_payload]   {dep:30s} <- {', '.join(sorted(by))}: {where or 'MISSING'}", file=sys.stderr)
    if where is None:
        bad.append(dep)
sys.exit(f"[peers_payload] unaccounted requirements: {', '.join(bad)}" if bad else 0)
PY

# ---- the site tree ----
SITE=$WORK/site
rm -rf "$SITE" "$WORK/fi-full"
log "installing into $SITE"
python3 -m pip install -q --no-deps --no-compile --no-index "${TARGET[@]}" --target "$WORK/fi-full" \
  "$WORK"/wheels/flashinfer_python-*.whl
python3 -m pip install -q --no-deps --no-compile --no-index "${TARGET[@]}" --target "$SITE" \
  $(ls "$WORK"/wheels/*.whl | grep -v -e flashinfer_python -e nvidia_curand)
python3 - "$WORK/fi-full/flashinfer" "$SITE/flashinfer" <<'PY'
# FlashInfer pruned: every .py/.json (its imports reach far), the headers its JIT builds include
# (flashinfer/jit/cpp_ext.py: include, cutlass, spdlog, cccl) and csrc's top-level sources (the
# prefill, decode and binding templates); csrc's subfolders (MoE, sampling, Blackwell, ...) and
# the other folders' CUDA sources go. A JIT build of a pruned source fails at build time, loudly.
import shutil, sys
from pathlib import Path
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
headers = ("include/", "cutlass/include/", "cutlass/tools/util/include/", "spdlog/include/", "cccl/cub/",
           "cccl/libcudacxx/include/", "cccl/thrust/")
kept = 0
for p in src.rglob("*"):
    if p.is_dir():
        continue
    parts = p.relative_to(src).parts
    if parts[0] == "data":
        sub = "/".join(parts[1:])
        keep = (len(parts) == 3 and parts[1] == "csrc") or sub.startswith(headers)
    else:
        keep = p.suffix in (".py", ".json", ".typed")
    if keep:
        (dst / p.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, dst / p.relative_to(src))
        kept += 1
print(f"[peers_payload] flashinfer pruned to {kept} files", file=sys.stderr)
PY
cp -r "$WORK/fi-full/flashinfer_python-"*.dist-info "$SITE/"
rm -rf "$WORK/fi-full" "$SITE/bin" "$SITE/nvidia_cutlass_dsl/cu13/lib/stubs"
find "$SITE" -name __pycache__ -prune -exec rm -rf {} +
mkdir -p "$SITE/_curand"
(cd "$WORK" && rm -rf curand && mkdir curand && cd curand && unzip -q "$WORK"/wheels/nvidia_curand-*.whl 'nvidia/cu13/include/*')
cp -r "$WORK/curand/nvidia/cu13/include" "$SITE/_curand/include"
# one fixed mtime: a rerun's ninja then finds the ahead-of-time builds below up to date (the headers
# are no newer than their objects), and the archive does not change with the day it was packed
find "$SITE" -exec touch -h -d "2000-01-01 00:00:00" {} +

# ---- FlashInfer's suite kernels, built here (nvcc needs no GPU) ----
# The host interpreter imports flashinfer from the site with host builds of its binary pieces.
HOSTPY=$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$HOSTPY" -d "$WORK/host" \
  apache-tvm-ffi==0.1.15.post2 nvidia-ml-py einops tabulate
rm -rf "$WORK/host-site"
python3 -m pip install -q --no-deps --no-compile --no-index --target "$WORK/host-site" \
  --python-version "$HOSTPY" --only-binary=:all: "$WORK"/host/*.whl
NVCC=$(command -v nvcc || true)
if [ -n "$NVCC" ] && [ "${PEERS_AOT:-1}" = 1 ]; then
  # the toolkit nvcc runs from (nvcc on PATH may be a wrapper script elsewhere): its lib64 has libcudart
  CUDA_HOME=${CUDA_HOME:-$(readlink -f "$("$NVCC" --dryrun -c -x cu /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)")}
  mkdir -p "$WORK/cudastub"  # -lcuda at link time: the driver's libcuda.so.1 is loaded at run time
  echo "" | gcc -shared -x c - -o "$WORK/cudastub/libcuda.so" -Wl,-soname,libcuda.so.1
  log "building FlashInfer's sm90 suite modules with $("$NVCC" --version | tail -n 2 | head -n 1)"
  CUDA_HOME=$CUDA_HOME FLASHINFER_CUDA_ARCH_LIST=9.0a FLASHINFER_WORKSPACE_BASE="$WORK/fi-jit" \
    FLASHINFER_EXTRA_LDFLAGS="-L$WORK/cudastub" FLASHINFER_EXTRA_CUDAFLAGS="-isystem $SITE/_curand/include" \
    MAX_JOBS=$(nproc) PYTHONPATH="$WORK/host-site:$SITE" \
    "$PY" scripts/device/peers_aot.py "$SITE" scenarios/bench/sm90.toml 2>&1 | { grep -v "INFO" || true; } >&2
else
  log "no nvcc here (or PEERS_AOT=0): FlashInfer will JIT-compile its kernels on the device (minutes)"
fi

# ---- pack, split, manifest ----
rm -rf .peers
mkdir -p .peers
log "packing (xz -9e -T2: a few minutes)"
tar -C "$SITE" --sort=name --owner=0 --group=0 --numeric-owner -cf - . | xz -9e -T2 > "$WORK/peers.tar.xz"
split -b "${PART_MIB}M" -d -a 1 "$WORK/peers.tar.xz" "$WORK/peers.tar.xz.part"
n=0
for f in "$WORK"/peers.tar.xz.part?; do n=$((n + 1)); done
i=0
for f in "$WORK"/peers.tar.xz.part?; do
  i=$((i + 1))
  mkdir -p ".peers/call$i"
  mv "$f" ".peers/call$i/peers.tar.xz.part$i"
done
{
  echo "parts $n"
  echo "archive $(sha256sum "$WORK/peers.tar.xz" | cut -d' ' -f1)"
  for i in $(seq 1 "$n"); do echo "part$i $(sha256sum ".peers/call$i/peers.tar.xz.part$i" | cut -d' ' -f1)"; done
} > "$WORK/MANIFEST"
for i in $(seq 1 "$n"); do cp "$WORK/MANIFEST" ".peers/call$i/MANIFEST"; done
log "site $(du -sm "$SITE" | cut -f1) MiB unpacked, archive $(($(stat -c %s "$WORK/peers.tar.xz") / 1048576)) MiB in $n parts:"
for i in $(seq 1 "$n"); do log "  .peers/call$i: $(du -k ".peers/call$i" | cut -f1) KiB"; done

# ---- the install path, here: stage every part, unpack, import with the host interpreter ----
if [ "${PEERS_CHECK:-1}" = 1 ]; then
  CHECK=$(mktemp -d /tmp/peers-check.XXXX)
  for i in $(seq 1 "$n"); do
    PEERS_STAGE=$CHECK/parts PEERS_SITE=$CHECK/site bash scripts/device/peers_install.sh >&2
  done
  # cp312 extension modules do not load in another Python: the host's builds of the binary
  # wheels go first on the path (their Python code is the same release)
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version "$HOSTPY" -d "$WORK/host-check" \
    nvidia-cutlass-dsl-libs-core==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1 nvidia-cutlass-dsl-libs-cu13==4.8.1 triton
  python3 -m pip install -q --no-deps --no-compile --no-index --target "$CHECK/host" \
    --python-version "$HOSTPY" --only-binary=:all: "$WORK"/host-check/*.whl
  (source "$CHECK/site/env.sh"
   export PYTHONPATH="$CHECK/host:$CHECK/host/nvidia_cutlass_dsl/dsl_packages:$WORK/host-site:$PYTHONPATH"
   "$PY" -c 'import flash_attn.cute.interface as fa, flashinfer, os
print("[peers_payload] import check: flash_attn.cute", fa.__file__.split("/site/")[-1], "| flashinfer",
      flashinfer.__version__, flashinfer.__file__.split("/site/")[-1])' >&2) || log "IMPORT CHECK FAILED"
  rm -rf "$CHECK"
fi
log "done: add '/.peers/' to .git/info/exclude, then make the calls in this script's header"
