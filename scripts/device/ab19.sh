#!/usr/bin/env bash
# Session 19: what carrying the attention features costs the 192-row tile when a call uses none
# (call 1: sm90_persistent_m192_feat 639 against sm90_persistent_m192's 567 us at b8 S4k hd64
# causal). Scratch variants (appended to kernels/family.toml on the device only, never committed):
# sm90_persistent_m192 plus ONE feature switch each (ab_m192_window, _sink, _kv_shared,
# _key_ranges), timed beside the plain and the all-features kernel on plain rows, two rounds in
# reversed order; then the feature rows on sm90_persistent_m192_feat against sm90_persistent_feat
# and flex; then the op against SDPA per call on the sm90 suite + B32 H16 S512 D128 (bench --overhead).
#     OUT=/dir [SKIP=...] bash scripts/device/ab19.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows, bench_rounds
device_start ab19 480 "${1:-}"
STEP_RESERVE=10 STEP_MIN=8
AB=$(switch_variants ${SWITCHES:-WINDOW SINK KV_SHARED KEY_RANGES})
SHAPES=${SHAPES:-"--shape b=8,h=16,t=4096,s=4096,d=64,causal --shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=8,h=16,t=4096,s=4096,d=64"}
SEED=19 bench_rounds 30 sm90_persistent_m192 sm90_persistent_m192_feat $AB
FSHAPES=$FEATURE_ROWS_D64
for v in sm90_persistent_m192_feat sm90_persistent_feat; do
  run bench-f-$v 60 python3 -m fmhactl bench $v $FSHAPES --baseline flex --seed 19 --json
done
SUITE=$(python3 -c "import tomllib; print(' '.join('--shape ' + s for s in tomllib.load(open('scenarios/bench/sm90.toml', 'rb'))['shapes']))")
run overhead 120 python3 -m fmhactl bench --overhead --json $SUITE --shape b=32,h=16,t=512,s=512,d=128 --shape b=1,h=8,t=32,s=32,d=64,causal
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
cp "$RAW/overhead.out" "$OUT/overhead.json" 2>/dev/null
{ python3 scripts/device/knobs15_summary.py "$OUT"
  echo "==== the op against SDPA per call (bench --overhead)"; python3 scripts/device/op24_summary.py --overhead "$OUT/overhead.json"
  cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
finish_call
