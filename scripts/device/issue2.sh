#!/usr/bin/env bash
# Issue 2 on the lent GPU: build the family, prove crash/hang isolation, verify ref on the named
# grids, bench against cuDNN/flash, run the GPU tests, and check that no worker is left behind.
set -u -o pipefail
OUT=${OUT:-/tmp/fmhactl-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-home}
fm() { python3 -m fmhactl "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
fm build --all 2>&1 | tail -n 25 | tee "$OUT/build.log"
echo "== sweep with planted fault and hang"
fm verify selftest_fault selftest_hang ref --grid smoke --timeout 20 --seed 7 2>&1 | tee "$OUT/sweep.log"
echo "== ref seeds72"
fm verify ref --grid seeds72 --seed 11 > "$OUT/seeds72.log" 2>&1; echo "rc=$?"; tail -n 3 "$OUT/seeds72.log"
grep -E "FAIL|CRASH|HANG|ERROR" "$OUT/seeds72.log" | head -n 5
echo "== ref awkward"
fm verify ref --grid awkward --seed 13 > "$OUT/awkward.log" 2>&1; echo "rc=$?"; tail -n 3 "$OUT/awkward.log"
grep -E "FAIL|CRASH|HANG|ERROR" "$OUT/awkward.log" | head -n 5
echo "== bench"
fm bench ref --shape b=4,h=16,t=2048,s=2048,d=128 --shape b=4,h=16,t=2048,s=2048,d=128,causal \
   --shape b=16,h=16,t=1024,s=1024,d=64 --iters 20 --warmup 3 2>&1 | tee "$OUT/bench.log"
echo "== gpu tests"
python3 -m pytest -q -m gpu tests 2>&1 | tail -n 15
echo "== leftover workers: $(pgrep -f fmhactl.runtime.worker | wc -l)"
