#!/usr/bin/env bash
# Session 19: (1) does the TMA unit take a negative tensor row (scripts/device/tma_negative_probe.cu:
# load and store apart, one process each); (2) sm90_persistent_m192_feat (the 192-row tile with the
# attention features) verified fail-fast on dsv4 and awkward, then the feature GPU tests (window,
# sinks, K = V, the padded grid's key ranges); (3) the kernel alone on the feature rows beside the
# 128-row feature kernel and flex (sdpa-mask's dense mask is far behind), two rounds in reversed
# order, and the plain 192-row tile against its _feat namesake on plain causal rows (what carrying
# the features costs); memcheck last.
#     OUT=/dir bash scripts/device/feat19.sh [BUDGET_S]        carry: .whl
# $OUT: summary.txt, probe.txt, bench.json, verify.json, raw.tgz
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows, bench_rounds
device_start feat19 570 "${1:-}"
STEP_RESERVE=12 STEP_MIN=8

if [ -z "${DRY:-}" ]; then
  nvcc -arch=sm_90a -o /tmp/tma_probe scripts/device/tma_negative_probe.cu -lcuda > "$RAW/probe-build.txt" 2>&1
  log "probe build rc=$?"
  for case in "load 0" "load 192" "load 224" "load -1" "load -32" "load -64" "store 224" "store -32" "store -64"; do
    timeout 20 /tmp/tma_probe $case >> "$OUT/probe.txt" 2>&1 || echo "$case: rc=$?" >> "$OUT/probe.txt"
  done
  log "probe: $(grep -c ': ok' "$OUT/probe.txt") ok of 9"
fi

V=sm90_persistent_m192_feat
for g in dsv4 awkward; do  # padded: the key-range GPU test below
  run verify-$V-$g 90 python3 -m fmhactl verify $V --grid $g --seed 19 --json
  stop_unless_passed verify-$V-$g
done
run gpu-test-features 150 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/sm90/test_gpu_sm90_features.py \
  tests/sm90/test_gpu_sm90_key_ranges.py
SHAPES=$FEATURE_ROWS_D64
for r in 1 2; do
  order="sm90_persistent_feat $V"; [ $r = 2 ] && order="$V sm90_persistent_feat"
  for v in $order; do
    run bench-$r-$v $(( r == 1 ? 90 : 50 )) python3 -m fmhactl bench $v $SHAPES --baseline flex --seed 19 --json
  done
done
SHAPES="--shape b=8,h=16,t=4096,s=4096,d=64,causal --shape b=16,h=16,t=1024,s=1024,d=64,causal"
SEED=19 bench_rounds 30 sm90_persistent_m192 $V
run sanitize 80 compute-sanitizer --tool memcheck --error-exitcode 9 python3 scripts/sm90_sanitize.py \
  sm90_persistent_m192_feat sm90_persistent_feat sm90_persistent_m192
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
cp "$RAW/sanitize.out" "$OUT/sanitize.txt" 2>/dev/null
{
  echo "==== TMA negative-row probe"; cat "$OUT/probe.txt"; tail -n 5 "$RAW/probe-build.txt"
  python3 scripts/device/knobs15_summary.py "$OUT"
  echo "==== feature GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$RAW/gpu-test-features.out" | tail -n 12
  memcheck_summary
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
