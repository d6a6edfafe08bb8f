#!/usr/bin/env bash
# The SM90 family after the persistent scheduler work, in one device call: sm90_final.sh without
# the SM100 rule tests (verify of every sm90 variant on seeds72/awkward/fa, memcheck of the family,
# bench of pingpong and persistent on the issue-12 suite), then the GPU tests of tests/sm90 and
# tests/torch (the scheduler test launches back to back on two streams; the op now dispatches to
# sm90_persistent), racecheck and synccheck of sm90_persistent and sm90_pingpong on shapes with
# more tiles than SMs, and `fmhactl profile sm90_persistent` at B8 H16 S4k D128.
#   OUT=/dir bash scripts/device/sm90_sched.sh
set -u -o pipefail
OUT=${OUT:-/tmp/sm90-sched}; mkdir -p "$OUT"
RULE_LEVELS= DEADLINE_S=${DEADLINE_S:-200} OUT=$OUT bash scripts/device/sm90_final.sh
T0=$(date +%s)
say() { echo "[sched +$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/summary.txt"; }
timeout 150 python3 -m pytest -q -p no:cacheprovider -rA -m gpu tests/sm90/test_gpu_sm90.py tests/torch/test_torch_gpu.py \
  > "$OUT/gpu-tests.txt" 2>&1
say "gpu tests rc=$?: $(tail -n 1 "$OUT/gpu-tests.txt")"
grep -E '^(PASSED|FAILED|ERROR|SKIPPED)' "$OUT/gpu-tests.txt" | cut -c1-160 | tee -a "$OUT/summary.txt"
for v in sm90_persistent sm90_pingpong; do
  for tool in racecheck synccheck; do
    timeout 140 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 \
      python3 scripts/sm90_sanitize.py $v > "$OUT/$tool-$v.txt" 2>&1
    say "$tool $v rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$OUT/$tool-$v.txt" | tr '\n' ' ')"
  done
done
timeout 150 python3 -m fmhactl profile sm90_persistent --shape b=8,h=16,t=4096,s=4096,d=128 \
  > "$OUT/profile-persistent.txt" 2>&1
say "profile rc=$?"; tail -n 14 "$OUT/profile-persistent.txt" >> "$OUT/summary.txt"
