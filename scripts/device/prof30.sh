#!/usr/bin/env bash
# Session 30: where sm90_mqa_decode (issue 27's hd512 MQA decode) spends a block of keys on the H200.
#   bench   b1..b256 top-k 512 and window 128 (T = 1, 64:1, hd512, K = V, sink; 32k cache, 8k from b128)
#   ncu     --set full with source counters on one b64 top-k 512 launch: SOL, tensor pipe, SMEM,
#           stall reasons (details page) and per-SASS stall samples (source page, CSV)
#     OUT=/dir [STEPS="bench ncu"] bash scripts/device/prof30.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start prof30 400 "${1:-}"
STEPS=${STEPS:-"bench ncu"}
V=sm90_mqa_decode
TOPK="h=64,hkv=1,t=1,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,d=512,causal,wl=127,kvshared,sink"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
run build 60 python3 -m fmhactl build $V --arch sm_90a
tail -n 12 "$RAW/build.out" | while read -r line; do log "$line"; done
if has bench; then
  shapes=""
  for b in 1 16 64; do shapes="$shapes --shape b=$b,s=32768,$TOPK --shape b=$b,s=32768,$WIN"; done
  for b in 128 256; do shapes="$shapes --shape b=$b,s=8192,$TOPK --shape b=$b,s=8192,$WIN"; done
  run bench 120 python3 -m fmhactl bench $V --seed 30 --warmup 5 --iters 30 --timeout 60 --json $shapes
  python3 scripts/device/decode_bandwidth.py "$RAW/bench.out" 4.8 | while read -r line; do log "$line"; done
fi
if has ncu && [ -n "$NCU" ]; then
  run prof 150 "$NCU" --set full --import-source yes -k regex:fmha_mqa_decode -c 1 --export "$RAW/prof" -f \
    python3 -m fmhactl bench $V --seed 30 --warmup 0 --iters 1 --timeout 60 --shape b=64,s=32768,$TOPK
  run src 60 "$NCU" -i "$RAW/prof.ncu-rep" --page source --csv --print-source sass
  gzip -c "$RAW/src.out" > "$OUT/src.csv.gz"
  run details 30 "$NCU" -i "$RAW/prof.ncu-rep" --page details
  cp "$RAW/details.out" "$OUT/details.txt"
fi
cp "$RAW/device.log" "$OUT/device.log"
cat "$RAW/device.log"
