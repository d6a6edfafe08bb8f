#!/usr/bin/env bash
# Session 30: the decode merge as a programmatic dependent launch (decode.COMBINE_DEPENDENT: the
# plain split kernel, then the combine kernel in slices, launched with cuLaunchKernelEx's
# programmatic stream serialization) against the fused merges (default), on the small-batch steps
# where cuDNN is ahead and on the models' greedy step shape.
#   tests      the decode GPU tests (now with the "dependent" merge)
#   bench      decode26.sh: default vs dep, ROUNDS rounds, kernel medians beside cuDNN
#   sanitizer  compute-sanitizer memcheck / racecheck of op calls with the dependent merge
# Not kept: apply notes/op-session30/call1-dependent-merge/dependent_merge.patch first (the script
# refuses to run without decode.COMBINE_DEPENDENT, where "dep" would silently time the default).
#     OUT=/dir [STEPS="tests bench sanitizer"] bash scripts/device/dep30.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
grep -q "^COMBINE_DEPENDENT" fmhactl/torch/decode.py || {
  echo "dep30.sh: fmhactl/torch/decode.py has no COMBINE_DEPENDENT: apply notes/op-session30/call1-dependent-merge/dependent_merge.patch first" >&2
  exit 2
}
source scripts/device/steps.sh
device_start dep30 560 "${1:-}"
STEPS=${STEPS:-"tests bench sanitizer"}
if has tests; then
  run pytest-decode 200 python3 -m pytest -q -m gpu tests/torch/test_decode_gpu.py -p no:cacheprovider
  cp "$RAW/pytest-decode.out" "$OUT/pytest-decode.txt" 2>/dev/null
  log "pytest: $(tail -n 1 "$RAW/pytest-decode.out" 2>/dev/null)"
  grep -E "^(FAILED|ERROR)" "$RAW/pytest-decode.out" | head -n 20 | while read -r line; do log "$line"; done
fi
DEP_SHAPES=${DEP_SHAPES:-"b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=8192,d=128 b=1,h=8,hkv=1,t=1,s=16384,d=128 b=1,h=8,hkv=1,t=1,s=32768,d=128 b=1,h=16,hkv=2,t=1,s=4096,d=128 b=1,h=16,hkv=4,t=1,s=2048,d=64 b=1,h=16,hkv=4,t=1,s=2048,d=128 b=1,h=32,hkv=8,t=1,s=2048,d=128 b=2,h=8,hkv=1,t=1,s=8192,d=128 b=1,h=8,hkv=1,t=1,s=8192,d=256 b=1,h=8,hkv=1,t=4,s=4096,d=128 b=8,h=32,hkv=8,t=1,s=8192,d=128"}
if has bench; then
  OUT=$OUT/bench SHAPES="$DEP_SHAPES" ROUNDS=${ROUNDS:-3} SETTINGS="default dep" RULE_dep="d.COMBINE_DEPENDENT = True" \
    BUDGET=$(( $(left) - ${SAN_RESERVE:-100} )) bash scripts/device/decode26.sh > "$RAW/bench.log" 2>&1
  log "bench: $(tail -n 2 "$RAW/bench.log" | tr '\n' ' ')"
  cat "$OUT/bench/decode26.txt" 2>/dev/null | grep -v "^\[" | while read -r line; do log "$line"; done
fi
if has sanitizer; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
  SAN="b=1,h=16,hkv=1,t=1,s=900,d=128 b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=8192,d=256 b=1,h=8,hkv=1,t=4,s=4096,d=64 b=1,h=32,hkv=8,t=1,s=2048,d=128"
  for tool in memcheck racecheck; do
    run "cs-$tool" 45 "$CS" --tool "$tool" --report-api-errors no python3 scripts/device/decode_ncu.py \
      --rule "d.COMBINE_DEPENDENT = True" --impls fmhactl $SAN
    log "cs-$tool: $(grep -h "SUMMARY" "$RAW/cs-$tool.out" "$RAW/cs-$tool.err" 2>/dev/null | tail -n 1)"
  done
fi
cp "$RAW/device.log" "$OUT/device.log"
cat "$RAW/device.log"
