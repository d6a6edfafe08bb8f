#!/usr/bin/env bash
# Issue 24: compile-time knobs of the SM90 kernel (and the variants themselves), A/B on the H100 in one call. The scratch variants
# of scripts/device/knobs15.toml are appended to the device's copy of kernels/family.toml; VERIFY
# ("variant[:grid,...]" ...) verifies them on the grids named (default seeds72,awkward,fa) and on
# shapes with many tiles a CTA (MANY); then every variant of BENCH is benched on SHAPES beside
# cuDNN, ROUNDS times, the order reversed every other round.
#   OUT=/dir VERIFY="knob_poly1" BENCH="sm90_persistent knob_poly1" bash scripts/device/knobs15.sh [BUDGET_S]
# carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows
device_start knobs15 300 "${1:-}"
STEP_RESERVE=10 STEP_MIN=8
if [ -z "${DRY:-}" ] && ! grep -q '^name = "knob_' kernels/family.toml; then
  { echo; grep -v '^#' scripts/device/knobs15.toml; } >> kernels/family.toml
fi
MANY=${MANY:-"--shape b=16,h=16,t=1024,s=1024,d=64 --shape b=16,h=16,t=1024,s=1024,d=64,causal
 --shape b=8,h=16,t=1024,s=1024,d=128,causal --shape b=4,h=16,hkv=4,t=2048,s=512,d=128,causal
 --shape b=8,h=12,t=900,s=1100,d=64,dtype=f16 --shape b=4,h=40,hkv=8,t=1000,s=3000,d=128,causal"}
SHAPES=${SHAPES:-"--shape b=16,h=16,t=1024,s=1024,d=64 --shape b=16,h=16,t=1024,s=1024,d=64,causal
 --shape b=8,h=16,t=4096,s=4096,d=64 --shape b=8,h=16,t=4096,s=4096,d=64,causal
 --shape b=8,h=16,t=4096,s=4096,d=128 --shape b=32,h=16,t=512,s=512,d=128"}
ROUNDS=${ROUNDS:-2}
for item in ${VERIFY:-}; do
  v=${item%%:*}; grids=seeds72,awkward,fa; [ "$item" != "$v" ] && grids=${item#*:}
  for g in ${grids//,/ }; do run verify-$v-$g 60 python3 -m fmhactl verify $v --grid $g --seed 15 --json; done
  run verify-$v-many 60 python3 -m fmhactl verify $v $MANY --seed 15 --json
done
order=(${BENCH:-sm90_persistent})
for r in $(seq 1 "$ROUNDS"); do
  for v in "${order[@]}"; do run bench-$r-$v 60 python3 -m fmhactl bench $v $SHAPES --baseline cudnn --seed 15 --json; done
  order=($(printf '%s\n' "${order[@]}" | tac))
done
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
python3 scripts/device/knobs15_summary.py "$OUT" > "$OUT/summary.txt" 2>&1
cat "$RAW/device.log" >> "$OUT/summary.txt"
for f in "$RAW"/*.err; do [ -s "$f" ] && grep -qv "results stored\|passed, 0 failed" "$f" && { echo "== $f"; tail -n 5 "$f"; }; done >> "$OUT/summary.txt"
rm -rf "$RAW"
cat "$OUT/summary.txt"
