#!/usr/bin/env bash
# Session 29: where the decode cluster kernel's warps stall at T = 1 with few KV heads: ncu's full
# set with source counters on one profiled op call per shape, exported, and its SASS page (per
# instruction: warp stall samples by reason) as CSV.
#     OUT=/dir [SHAPES="b=1,..."] bash scripts/device/srcprof29.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start srcprof29 200 "${1:-}"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
i=0
for shape in ${SHAPES:-b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=32,hkv=8,t=1,s=2048,d=128}; do
  i=$((i + 1))
  run "prof-$i" 90 "$NCU" --profile-from-start off --set full --import-source yes -k regex:fmha_decode -c 1 \
    --export "$RAW/prof-$i" -f python3 scripts/device/decode_ncu.py --impls fmhactl "$shape"
  run "src-$i" 60 "$NCU" -i "$RAW/prof-$i.ncu-rep" --page source --csv --print-source sass
  gzip -c "$RAW/src-$i.out" > "$OUT/src-$i.csv.gz"
  run "details-$i" 30 "$NCU" -i "$RAW/prof-$i.ncu-rep" --page details
  cp "$RAW/details-$i.out" "$OUT/details-$i.txt"
  log "shape $i: $shape"
done
cp "$RAW/device.log" "$OUT/device.log"
cat "$RAW/device.log"
