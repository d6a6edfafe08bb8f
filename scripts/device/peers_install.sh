#!/usr/bin/env bash
# ON THE DEVICE, in every call of the peers payload (scripts/device/peers_payload.sh says which):
# stages the part(s) this call carried (.peers/callN/peers.tar.xz.partN) under /tmp/peers-parts,
# and once every part the MANIFEST names is there and checks out, unpacks the site tree into
# /tmp/peers-site and writes /tmp/peers-site/env.sh (PYTHONPATH and the peers' cache folders, all
# under /tmp, which lasts while the machine stays warm). Prints "staged i/n" or "ready: source
# /tmp/peers-site/env.sh"; exit 0 either way, 1 on a damaged part (sha256 mismatch).
# PEERS_STAGE and PEERS_SITE move the two folders (the payload script's local check uses them).
set -euo pipefail
STAGE=${PEERS_STAGE:-/tmp/peers-parts}
SITE=${PEERS_SITE:-/tmp/peers-site}
CACHE=${PEERS_CACHE:-/tmp/peers-cache}
say() { echo "[peers_install] $*"; }
mkdir -p "$STAGE"
shopt -s nullglob
for f in .peers/call*/peers.tar.xz.part* .peers/call*/MANIFEST; do
  cp "$f" "$STAGE/$(basename "$f")"
done
if [ ! -f "$STAGE/MANIFEST" ]; then
  say "no part carried and none staged: carry .peers/call1 (see scripts/device/peers_payload.sh)"
  exit 1
fi
if [ -f "$SITE/.complete" ]; then
  say "ready (unpacked earlier): source $SITE/env.sh"
  exit 0
fi
n=$(awk '$1 == "parts" {print $2}' "$STAGE/MANIFEST")
have=0
missing=""
for i in $(seq 1 "$n"); do
  part=$STAGE/peers.tar.xz.part$i
  if [ ! -f "$part" ]; then missing="$missing $i"; continue; fi
  want=$(awk -v k="part$i" '$1 == k {print $2}' "$STAGE/MANIFEST")
  if [ "$(sha256sum "$part" | cut -d' ' -f1)" != "$want" ]; then
    say "part $i is damaged (sha256 mismatch): carry .peers/call$i again"
    rm -f "$part"
    exit 1
  fi
  have=$((have + 1))
done
if [ "$have" -lt "$n" ]; then
  say "staged $have/$n; missing part(s):$missing"
  say "(a part from an earlier call missing means the machine went back in between: start again at call 1)"
  exit 0
fi
rm -rf "$SITE"
mkdir -p "$SITE"
start=$(date +%s)
for i in $(seq 1 "$n"); do cat "$STAGE/peers.tar.xz.part$i"; done | xz -dc -T0 | tar -x -C "$SITE"
mkdir -p "$CACHE"
cat > "$SITE/env.sh" <<EOF
# the peers (fa4, flashinfer) on the path, their caches under /tmp (written by peers_install.sh)
export PYTHONPATH="$SITE:$SITE/nvidia_cutlass_dsl/dsl_packages\${PYTHONPATH:+:\$PYTHONPATH}"
export FLASHINFER_WORKSPACE_BASE="$CACHE"
export FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED=1 FLASH_ATTENTION_CUTE_DSL_CACHE_DIR="$CACHE/fa4"
export TVM_FFI_CACHE_DIR="$CACHE/tvm-ffi"
# a JIT build of a module not built ahead of time, on a toolkit without cuRAND's headers
export FLASHINFER_EXTRA_CUDAFLAGS="\${FLASHINFER_EXTRA_CUDAFLAGS:-} -isystem $SITE/_curand/include"
EOF
touch "$SITE/.complete"
say "unpacked $n parts into $SITE ($(du -sm "$SITE" | cut -f1) MiB) in $(( $(date +%s) - start )) s"
say "ready: source $SITE/env.sh"
