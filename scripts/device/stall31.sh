#!/usr/bin/env bash
# Session 31: where sm90_mqa_decode's warps stall, per SASS instruction: ncu --set full with source
# counters on one launch per shape, for the tree's kernel and each .ab/<v>/ variant in VARIANTS
# (sources at the tree's paths). Writes OUT/src-<v>-<i>.csv.gz and details-<v>-<i>.txt.
#     OUT=/dir [VARIANTS="new bare"] [SHAPES="b=64,..."] bash scripts/device/stall31.sh [BUDGET_S]   carry: .whl
# Read a CSV here with scripts/device/stall_summary.py.
set -u -o pipefail
VARIANTS=${VARIANTS:-new}
source scripts/device/steps.sh
require_ab_sources $VARIANTS
device_start stall31 300 "${1:-}"
V=sm90_mqa_decode
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
for v in $VARIANTS; do
  use_ab_sources "$v"
  i=0
  for shape in ${SHAPES:-b=64,s=32768,h=64,hkv=1,t=1,d=512,kvshared,sink,causal,wl=2047}; do
    i=$((i + 1))
    run "prof-$v-$i" 120 env FMHACTL_HOME=/tmp/fmhactl-stall31-$v "$NCU" --set full --import-source yes -k regex:fmha_mqa_decode -c 1 \
      --export "$RAW/prof-$v-$i" -f python3 -m fmhactl bench $V --seed 31 --warmup 0 --iters 1 --timeout 60 --shape "$shape"
    run "src-$v-$i" 60 "$NCU" -i "$RAW/prof-$v-$i.ncu-rep" --page source --csv --print-source sass
    [ -n "${DRY:-}" ] || gzip -c "$RAW/src-$v-$i.out" > "$OUT/src-$v-$i.csv.gz"
    run "details-$v-$i" 30 "$NCU" -i "$RAW/prof-$v-$i.ncu-rep" --page details
    [ -n "${DRY:-}" ] || cp "$RAW/details-$v-$i.out" "$OUT/details-$v-$i.txt"
    log "$v shape $i: $shape"
  done
done
use_ab_sources new
[ -n "${DRY:-}" ] || cp "$RAW/device.log" "$OUT/device.log"
[ -n "${DRY:-}" ] || cat "$RAW/device.log"
