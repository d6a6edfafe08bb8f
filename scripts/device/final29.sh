#!/usr/bin/env bash
# Session 29's last call: every torch GPU test (the op, its integrations, the decode kernels with the
# short-split rule and the new one-cluster case), then compute-sanitizer memcheck and racecheck on op
# calls that take the cluster kernel's short splits (one cluster, two clusters, hd256).
#     OUT=/dir bash scripts/device/final29.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start final29 330 "${1:-}"
run gpu-tests 230 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch
log "gpu tests: $(tail -n 1 "$RAW/gpu-tests.out")"
grep -E "^(FAILED|ERROR)" "$RAW/gpu-tests.out" | head -n 20 | while read -r line; do log "$line"; done
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
SHORT="b=1,h=16,hkv=1,t=1,s=500,d=128 b=1,h=16,hkv=1,t=1,s=900,d=128 b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=8192,d=256 b=1,h=8,hkv=1,t=4,s=4096,d=64"
for tool in memcheck racecheck; do
  run "cs-$tool" 45 "$CS" --tool "$tool" --report-api-errors no python3 scripts/device/decode_ncu.py --impls fmhactl $SHORT
  log "cs-$tool: $(grep -h "SUMMARY" "$RAW/cs-$tool.out" "$RAW/cs-$tool.err" 2>/dev/null | tail -n 1)"
done
cp "$RAW/gpu-tests.out" "$OUT/gpu-tests.txt" 2>/dev/null
cp "$RAW/device.log" "$OUT/device.log"
cat "$RAW/device.log"
