#!/usr/bin/env bash
# Session 30, call 2: more CTAs for small T = 1 decode steps. Settings (decode26.sh RULE_<name>):
#   c128   d.CLUSTER_MIN_CTAS = 128 (the cluster kernel's short splits up to ~128 CTAs, not 64)
#   cl     d.CLUSTER_MIN_PARTIAL_ROWS = 0 (the cluster kernel also where the plain merge reads < 64 rows)
#   cl128  both
# against default: bench --decode ROUNDS rounds (events), then one ncu pass of each setting.
#     OUT=/dir [SETTINGS=...] [ROUNDS=3] bash scripts/device/more30.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start more30 540 "${1:-}"
export RULE_c128="d.CLUSTER_MIN_CTAS = 128" RULE_cl="d.CLUSTER_MIN_PARTIAL_ROWS = 0"
export RULE_cl128="d.CLUSTER_MIN_CTAS = 128; d.CLUSTER_MIN_PARTIAL_ROWS = 0"
SH=${MORE_SHAPES:-"b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=16384,d=128 b=1,h=16,hkv=2,t=1,s=4096,d=128 b=1,h=16,hkv=2,t=1,s=8192,d=128 b=1,h=16,hkv=4,t=1,s=2048,d=128 b=1,h=16,hkv=4,t=1,s=2048,d=64 b=1,h=32,hkv=8,t=1,s=2048,d=128 b=1,h=32,hkv=8,t=1,s=8192,d=128 b=2,h=8,hkv=1,t=1,s=8192,d=128 b=1,h=16,hkv=2,t=1,s=8192,d=256 b=1,h=8,hkv=1,t=1,s=16384,d=64"}
S=${SETTINGS:-"default c128 cl cl128"}
OUT=$OUT/bench SHAPES="$SH" ROUNDS=${ROUNDS:-3} SETTINGS="$S" BUDGET=$(( $(left) - ${NCU_RESERVE:-150} )) \
  bash scripts/device/decode26.sh > "$RAW/bench.log" 2>&1
log "bench: $(tail -n 1 "$RAW/bench.log")"
grep -v "^\[" "$OUT/bench/decode26.txt" 2>/dev/null | while read -r line; do log "$line"; done
OUT=$OUT/ncu SHAPES="$SH" NCU_ONLY=1 ROUNDS=1 SETTINGS="$S" BUDGET=$(( $(left) - 10 )) \
  bash scripts/device/decode26.sh > "$RAW/ncu.log" 2>&1
cat "$OUT/ncu/ncu.txt" 2>/dev/null | while read -r line; do log "$line"; done
cp "$RAW/device.log" "$OUT/device.log"
