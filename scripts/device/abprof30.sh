#!/usr/bin/env bash
# Session 30: ncu's full set with source counters on one sm90_mqa_decode launch at SHAPE, for the
# tree's kernel and each .ab/<v>/ variant (VARIANTS, default old): duration, and each SASS
# instruction's stall samples (source page, CSV), to see where two sources' times part; read a
# CSV here with scripts/device/stall_summary.py.
#     OUT=/dir [SHAPE=b=1,...] [VARIANTS=old] bash scripts/device/abprof30.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
require_ab_sources ${VARIANTS:-old}  # before any work (else it would profile the tree twice)
device_start abprof30 300 "${1:-}"
V=sm90_mqa_decode
SHAPE=${SHAPE:-b=1,h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512}
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
for v in new ${VARIANTS:-old}; do
  use_ab_sources "$v"
  run "prof-$v" 90 env FMHACTL_HOME=/tmp/fmhactl-abprof30-$v "$NCU" --set full --import-source yes -k regex:fmha_mqa_decode \
    -c 1 --export "$RAW/prof-$v" -f python3 -m fmhactl bench $V --seed 30 --warmup 0 --iters 1 --timeout 60 --shape "$SHAPE"
  run "src-$v" 60 "$NCU" -i "$RAW/prof-$v.ncu-rep" --page source --csv --print-source sass
  [ -n "${DRY:-}" ] || gzip -c "$RAW/src-$v.out" > "$OUT/src-$v.csv.gz"
  run "details-$v" 30 "$NCU" -i "$RAW/prof-$v.ncu-rep" --page details
  [ -n "${DRY:-}" ] || cp "$RAW/details-$v.out" "$OUT/details-$v.txt"
  log "$v: $(grep -m1 -E '^\s+Duration' "$RAW/details-$v.out" 2>/dev/null)"
done
use_ab_sources new
[ -n "${DRY:-}" ] || cp "$RAW/device.log" "$OUT/device.log"
