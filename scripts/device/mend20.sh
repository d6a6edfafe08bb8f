#!/usr/bin/env bash
# Session 20, call 1: the review's kernel mends (K = V's ring chosen at compile time in KvSlot
# <D, kShared>, one keys_begin_seen rule for tiles_for and masked_trail_blocks) left every SM90
# variant's SASS identical but sm90_persistent_m192_feat's (instruction order, 32 fewer
# instructions): that one verified fail-fast (dsv4, awkward, padded, 5 windows), the feature GPU
# tests, its feature rows beside flex. Then issue 24's host-bound model rows: the greedy probe
# (fmhactl/bench/greedy_probe.py: host us per step, GC, plan builds, cProfile, kernel us per step,
# sdpa / fmhactl / fmhactl without the decode kernels) on llama-small and qwen2-small, and
# `bench --model` on both (ratio_per_round: each interleaved round's ratio alone).
#     OUT=/dir [SKIP=...] bash scripts/device/mend20.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows, stop_unless_passed
device_start mend20 560 "${1:-}"
STEP_RESERVE=12 STEP_MIN=8
WINDOWS=$WINDOW_VERIFY_SHAPES
V=sm90_persistent_m192_feat
for g in ${GRIDS:-dsv4 awkward padded window}; do
  shapes="--grid $g"; [ "$g" = window ] && shapes=$WINDOWS
  run verify-$V-$g 60 python3 -m fmhactl verify $V $shapes --seed 201 --json
  stop_unless_passed verify-$V-$g
done
run gpu-test-features 120 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/sm90/test_gpu_sm90_features.py \
  tests/sm90/test_gpu_sm90_key_ranges.py
FSHAPES="$FEATURE_ROWS_D64 --shape b=8,h=16,t=4096,s=4096,d=64,causal"
run bench-f-$V 70 python3 -m fmhactl bench $V $FSHAPES --baseline flex --seed 20 --json
PROBE=(python3 scripts/device/run_by_path.py fmhactl/bench/greedy_probe.py run_greedy_probe)
run probe_llama 80 "${PROBE[@]}" '{"name": "llama-small"}'
run probe_qwen2 80 "${PROBE[@]}" '{"name": "qwen2-small"}'
run model_llama 100 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run model_qwen2 100 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
for s in model_llama model_qwen2 probe_llama probe_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  python3 scripts/device/knobs15_summary.py "$OUT"
  echo "==== feature GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$RAW/gpu-test-features.out" | tail -n 12
  echo "==== greedy probes"; python3 scripts/device/greedy_probe_summary.py "$OUT/probe_llama.json" "$OUT/probe_qwen2.json"
  echo "==== models"; python3 scripts/device/op24_summary.py --model "$OUT/model_llama.json" "$OUT/model_qwen2.json"
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
