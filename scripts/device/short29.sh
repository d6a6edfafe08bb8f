#!/usr/bin/env bash
# Session 29: the cluster kernel's short splits (decode.CLUSTER_MIN_CTAS: grids under 64 CTAs try
# splits down to 64 keys) against the rule before (`old`: CLUSTER_MIN_CTAS = 0) on few-KV-head
# short caches: ncu of one op call per shape (beside cuDNN's), then bench --decode kernel medians
# over ROUNDS rounds, then the decode GPU tests and the op/integration fuzz on the tree.
#     OUT=/dir [STEPS="ncu bench tests fuzz"] bash scripts/device/short29.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start short29 400 "${1:-}"
STEPS=${STEPS:-"ncu bench tests fuzz"}
export RULE_old="d.CLUSTER_MIN_CTAS = 0"
SH=${SHORT_SHAPES:-"b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=8192,d=128 b=1,h=8,hkv=1,t=1,s=16384,d=128 b=1,h=16,hkv=2,t=1,s=4096,d=128 b=1,h=16,hkv=2,t=1,s=8192,d=128 b=2,h=8,hkv=1,t=1,s=8192,d=128 b=1,h=8,hkv=1,t=1,s=8192,d=64 b=1,h=8,hkv=1,t=1,s=8192,d=256 b=1,h=8,hkv=1,t=4,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=32768,d=128"}
if has ncu; then
  OUT=$OUT/ncu NCU_ONLY=1 ROUNDS=1 SHAPES="$SH" NCU_SHAPES="$SH" SETTINGS="old default" \
    BUDGET=$(( $(left) - ${AFTER_NCU:-250} )) bash scripts/device/decode26.sh > "$RAW/ncu.log" 2>&1
  log "ncu rc=$?"
fi
if has bench; then
  OUT=$OUT/bench ROUNDS=${ROUNDS:-3} SHAPES="$SH" SETTINGS="old default" \
    BUDGET=$(( $(left) - ${AFTER_BENCH:-160} )) bash scripts/device/decode26.sh > "$RAW/bench.log" 2>&1
  log "bench rc=$?"
fi
if has tests || has fuzz; then
  S=""; has tests && S="tests"; has fuzz && S="$S fuzz"
  OUT=$OUT/tests STEPS="$S" FUZZ_CASES=${FUZZ_CASES:-120} FUZZ_HF_CASES=${FUZZ_HF_CASES:-30} \
    BUDGET=$(( $(left) - 5 )) bash scripts/device/cluster28.sh > "$RAW/tests.log" 2>&1
  log "tests: $(grep -h "pytest:\|fuzz:" "$RAW/tests.log" | tr '\n' ' ')"
fi
cp -r "$RAW" "$OUT/raw" 2>/dev/null
cat "$OUT/ncu/ncu.txt" "$OUT/bench/decode26.txt" 2>/dev/null
cat "$RAW/device.log"
