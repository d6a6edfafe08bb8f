#!/usr/bin/env bash
# Session 31: sm90_mqa_decode variants (.ab/<v>/, sources at the tree's paths) checked one by one:
# the decode kernel's CPU and GPU tests, verify dsv4-long, and (CS=1) compute-sanitizer memcheck /
# racecheck on a split top-k launch, an unsplit one and a window one; then nothing else (benches:
# aba30.sh). "new" is the tree itself.
#     OUT=/dir VARIANTS="new prod" [CS=1] bash scripts/device/check31.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
VARIANTS=${VARIANTS:-new}
source scripts/device/steps.sh
require_ab_sources $VARIANTS
device_start check31 300 "${1:-}"
V=sm90_mqa_decode
CSAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
for v in $VARIANTS; do
  use_ab_sources "$v"
  export FMHACTL_HOME=/tmp/fmhactl-check31-$v
  run "test-$v" 120 python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_mqa_decode.py tests/sm90/test_mqa_decode.py
  log "$v tests: $(tail -n 1 "$RAW/test-$v.out" 2>/dev/null)"
  run "verify-$v" 60 python3 -m fmhactl verify $V --grid dsv4-long --seed 31 --timeout 55
  # verify prints its per-config lines (max |err|, LSE error) on stderr and its closing line on stdout
  grep -h -E "^(PASS|FAIL)|passed" "$RAW/verify-$v.err" "$RAW/verify-$v.out" 2>/dev/null | while read -r line; do log "$v $line"; done
  if [ -n "${CS:-}" ] && [ -n "$CSAN" ]; then
    for tool in memcheck racecheck; do
      run "cs-$tool-$v" 90 "$CSAN" --tool "$tool" --target-processes all --report-api-errors no python3 -m fmhactl bench $V \
        --seed 31 --warmup 0 --iters 1 --timeout 85 --shape b=2,h=64,hkv=1,t=1,s=4096,d=512,kvshared,sink,topk=512 \
        --shape b=64,h=64,hkv=1,t=1,s=4096,d=512,kvshared,sink,topk=500 --shape b=8,h=64,hkv=1,t=1,s=4096,d=512,kvshared,sink,causal,wl=200
      log "$v cs-$tool: $(grep -h "SUMMARY" "$RAW/cs-$tool-$v.out" "$RAW/cs-$tool-$v.err" 2>/dev/null | tr '\n' ' ')"
    done
  fi
done
use_ab_sources new
[ -n "${DRY:-}" ] || cp "$RAW/device.log" "$OUT/device.log"
