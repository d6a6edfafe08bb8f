#!/usr/bin/env bash
# Session 19, after call 2 (scripts/device/ab19.sh) put the _feat kernels' cost on plain calls on
# FMHA_KV_SHARED's run-time ring (now a compile-time fork of both roles) and a little on the
# masked softmax's left-edge compares (now only on tiles a left edge crosses): every feature
# kernel verified fail-fast (dsv4, padded, awkward), the feature GPU tests, then the 192-row tile
# plain / all features / WINDOW or KEY_RANGES alone (scratch, appended on the device) on plain rows,
# the feature rows on both hd64 feature kernels beside flex, the op on the llama / qwen2 models
# (their padded batches run the _feat kernels), memcheck last. Call 4: + the WINDOWS verify step
# (VERIFY="...:window"), SWITCHES="" (no scratch variants), PLAIN (the plain-row variants).
#     OUT=/dir [SKIP=...] bash scripts/device/feat19b.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows, bench_rounds
device_start feat19b 560 "${1:-}"
STEP_RESERVE=12 STEP_MIN=8
WINDOWS=$WINDOW_VERIFY_SHAPES
for item in ${VERIFY:-sm90_persistent_m192_feat:dsv4,awkward,padded sm90_persistent_feat:dsv4,padded
            sm90_pingpong_feat:dsv4,padded}; do
  v=${item%%:*}; grids=${item#*:}
  for g in ${grids//,/ }; do
    shapes="--grid $g"; [ "$g" = window ] && shapes=$WINDOWS
    run verify-$v-$g 60 python3 -m fmhactl verify $v $shapes --seed 191 --json
    stop_unless_passed verify-$v-$g
  done
done
run gpu-test-features 120 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/sm90/test_gpu_sm90_features.py \
  tests/sm90/test_gpu_sm90_key_ranges.py
AB=$(switch_variants ${SWITCHES-WINDOW KEY_RANGES})
SHAPES="--shape b=8,h=16,t=4096,s=4096,d=64,causal --shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=8,h=16,t=4096,s=4096,d=64"
SEED=19 bench_rounds 30 ${PLAIN:-sm90_persistent_m192 sm90_persistent_m192_feat} $AB
FSHAPES="$FEATURE_ROWS_D64 --shape b=4,h=16,t=8192,s=8192,d=64,causal,wl=511"
for v in sm90_persistent_m192_feat sm90_persistent_feat; do
  run bench-f-$v 70 python3 -m fmhactl bench $v $FSHAPES --baseline flex --seed 19 --json
done
run model_llama 100 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run model_qwen2 110 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run sanitize 70 compute-sanitizer --tool memcheck --error-exitcode 9 python3 scripts/sm90_sanitize.py \
  sm90_persistent_m192_feat sm90_persistent_feat sm90_pingpong_feat sm90_persistent_m192
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
for s in model_llama model_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
cp "$RAW/sanitize.out" "$OUT/sanitize.txt" 2>/dev/null
{
  python3 scripts/device/knobs15_summary.py "$OUT"
  echo "==== feature GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$RAW/gpu-test-features.out" | tail -n 12
  echo "==== models"; python3 scripts/device/op24_summary.py --model "$OUT/model_llama.json" "$OUT/model_qwen2.json"
  memcheck_summary
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
