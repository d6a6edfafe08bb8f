#!/usr/bin/env bash
# Issue 24, session 18: causal query tiles aligned to the end of the queries (the partial tile is the
# first, lightest one). Verify the SM90 variants that share fmha_sm90.cuh on the grids with partial
# causal tiles, memcheck on small shapes (rows before 0 included), then the 192-row tile against
# sm90_persistent on causal hd64 (kernel alone, two rounds in reversed order, beside cuDNN) and the
# op forced to each. EVIDENCE=1: after the memcheck, the milestone evidence re-made
# (evidence.sh STEPS="gpu out", into $OUT/ev) once every verify passed.
# $OUT: summary.txt, raw.tgz (bench, verify, overhead JSON, the memcheck log), ev/ (evidence.sh's).
#     OUT=/dir [EVIDENCE=1] bash scripts/device/causal18.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows
device_start causal18 560 "${1:-}"
STEP_RESERVE=12 STEP_MIN=8
MANY="--shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=8,h=12,t=1000,s=1000,d=64,causal
 --shape b=4,h=40,hkv=8,t=1000,s=3000,d=128,causal --shape b=2,h=8,t=700,s=500,d=64,causal
 --shape b=3,h=16,t=577,s=577,d=64,causal,dtype=f16 --shape b=8,h=12,t=900,s=1100,d=64"
# Fail fast: a crashed config costs a worker restart, so the first non-passing step ends the call.
for item in ${VERIFY:-sm90_persistent_m192:awkward,fa,many sm90_persistent:many,awkward
            sm90_persistent_feat:dsv4,padded sm90_pingpong_feat:padded,dsv4}; do
  v=${item%%:*}; grids=${item#*:}
  for g in ${grids//,/ }; do
    shapes="--grid $g"; [ "$g" = many ] && shapes=$MANY
    [ "$v" = sm90_persistent_m192 ] && [ "$g" = many ] && shapes=$(echo "$MANY" | sed 's/--shape [^ ]*d=128[^ ]*//g')
    run verify-$v-$g 60 python3 -m fmhactl verify $v $shapes --seed 18 --json
    stop_unless_passed verify-$v-$g
  done
done
run sanitize 90 compute-sanitizer --tool memcheck --error-exitcode 9 python3 scripts/sm90_sanitize.py \
  sm90_persistent sm90_persistent_m192 sm90_persistent_feat
[ -n "${EVIDENCE:-}" ] && (( $(left) > 0 )) && evidence_step "${BENCH_RESERVE:-150}"
SHAPES="--shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=32,h=16,t=512,s=512,d=64,causal
 --shape b=8,h=16,t=2048,s=2048,d=64,causal --shape b=8,h=16,t=4096,s=4096,d=64,causal
 --shape b=16,h=16,t=576,s=576,d=64,causal --shape b=16,h=16,t=1000,s=1000,d=64,causal --shape b=16,h=16,t=1024,s=1024,d=64"
SEED=18 bench_rounds 45 sm90_persistent sm90_persistent_m192
OPSHAPES="--shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=32,h=16,t=512,s=512,d=64,causal"
for v in sm90_persistent sm90_persistent_m192; do
  run overhead-$v 45 env FMHACTL_TORCH_BACKEND=$v python3 -m fmhactl bench --overhead --json $OPSHAPES
done
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
for s in overhead-sm90_persistent overhead-sm90_persistent_m192; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
cp "$RAW/sanitize.out" "$OUT/sanitize.txt" 2>/dev/null
{
  python3 scripts/device/knobs15_summary.py "$OUT"
  echo "==== memcheck (errors by kind)"
  grep -h "^========= " "$RAW/sanitize.out" "$RAW/sanitize.err" 2>/dev/null | grep -v "^=========     \|^========= *$" | sort | uniq -c | sort -rn | head -12
  grep -h "passed\|FAIL" "$RAW/sanitize.out" | tail -n 3
  [ -f "$OUT/ev/summary.txt" ] && { echo "==== evidence"; cat "$OUT/ev/summary.txt"; }
  echo "==== the op forced to sm90_persistent, then to sm90_persistent_m192 (FMHACTL_TORCH_BACKEND)"
  python3 scripts/device/op24_summary.py --overhead "$OUT"/overhead-sm90_persistent.json "$OUT"/overhead-sm90_persistent_m192.json
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$OUT" --remove-files $(cd "$OUT" && ls *.json sanitize.txt 2>/dev/null)
rm -rf "$RAW"
cat "$OUT/summary.txt"
