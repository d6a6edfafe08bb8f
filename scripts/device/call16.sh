#!/usr/bin/env bash
# Session 16, one H100 call: the causal S1k knobs (knobs15.sh: FMHA_HALF_DIAG, FMHA_KV_ASCENDING
# against sm90_persistent, verified first), then the greedy host cost (bench --overhead at
# llama-small's decode shape, bench --model llama-small --greedy 128 twice).
#   OUT=/dir bash scripts/device/call16.sh            carry: .whl
# KNOBS=0 skips the kernel part, MODEL=0 the model part; OVERHEAD_SHAPES (--shape ... words) and
# OVERHEAD_CAP replace the overhead step's shapes and time cap (call17.sh).
set -u -o pipefail
OUT=${OUT:-/tmp/call16}; mkdir -p "$OUT"
if [ "${KNOBS:-1}" != 0 ]; then
  OUT=$OUT/knobs VERIFY=${VERIFY:-"knob_halfdiag knob_ascending"} \
  BENCH=${BENCH:-"sm90_persistent knob_halfdiag knob_ascending"} \
  SHAPES=${SHAPES:-"--shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=32,h=16,t=512,s=512,d=64,causal
 --shape b=8,h=16,t=2048,s=2048,d=64,causal --shape b=8,h=16,t=4096,s=4096,d=64,causal
 --shape b=16,h=16,t=1024,s=1024,d=64 --shape b=8,h=16,t=4096,s=4096,d=128,causal
 --shape b=16,h=16,t=1024,s=1024,d=128,causal"} \
  bash scripts/device/knobs15.sh "${KNOB_BUDGET:-280}"
fi
if [ "${MODEL:-1}" != 0 ]; then
  source scripts/device/steps.sh
  OUT=$OUT/model device_start call16 "${MODEL_BUDGET:-200}"
  # shellcheck disable=SC2086  # one word a --shape flag or value
  run overhead ${OVERHEAD_CAP:-60} python3 -m fmhactl bench --overhead --json ${OVERHEAD_SHAPES:-"--shape b=1,h=16,hkv=4,t=1,s=2048,d=64,causal
    --shape b=1,h=8,t=32,s=32,d=64,causal"}
  for r in 1 2; do
    run greedy-$r 80 python3 -m fmhactl bench --model llama-small --prompt 17 --greedy 128 --json
  done
  for s in overhead greedy-1 greedy-2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
  { python3 scripts/device/op24_summary.py --overhead "$OUT/overhead.json" 2>&1
    python3 scripts/device/op24_summary.py --model "$OUT"/greedy-*.json 2>&1
    cat "$RAW/device.log"; } > "$OUT/summary.txt"
  rm -rf "$RAW"
  cat "$OUT/summary.txt"
fi
