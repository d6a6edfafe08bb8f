#!/usr/bin/env bash
# Issue 27: sm90_mqa_gather (DeepSeek-V4 attention on SM90: top-k gather, window, sinks, K=V,
# hd 64..512) on one H100, in <= 240 s. Builds the variant, runs its GPU test, verifies grids
# dsv4 and dsv4-long (seed 27), then benches the decode shape (T=1, h=64, hkv=1, d=512, s=32k,
# top-k 512, causal 128-key window, K=V, sinks; b=1 and b=16) and the prefill shape (T=S=8k,
# causal window 128, K=V, sinks) beside flex and sdpa-mask, and a kernel-only decode sweep
# (b=1..16; plus top-k without the window, where each token gathers its ~430 listed keys)
# whose summary lines give the gathered bytes and GB/s. Every step is time-bounded; a step
# that has no time left is skipped and says so.
# $OUT gets 4 files: summary.txt (printed last), bench.json and verify.json (every row of the
# steps), raw.tgz (each step's stdout/stderr and device.log).
# Knobs: BUDGET (s, default 232), SKIP="step ..." (build gpu-test verify-dsv4 verify-dsv4-long
# bench-decode bench-prefill bench-sweep), DRY=1 (print the commands, run nothing: a CPU check).
set -u -o pipefail
OUT=${OUT:-/tmp/sparse27-out}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/sparse27-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-sparse27}
BUDGET=${BUDGET:-232}
start=$(date +%s)
SINCE=$(date +%Y-%m-%dT%H:%M:%S)  # local time, as `fmhactl results --since` reads it
STEP_RESERVE=12 STEP_MIN=10
source scripts/device/steps.sh  # left, log, run, rows_if_cut
V=sm90_mqa_gather
DEC="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink,topk=512"
PRE="b=1,h=64,hkv=1,t=8192,s=8192,d=512,causal,wl=127,kvshared,sink"
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"

log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
run build 25 python3 -m fmhactl build $V --arch sm_90a
run gpu-test 40 python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_mqa_gather.py
run verify-dsv4 25 python3 -m fmhactl verify $V --grid dsv4 --seed 27 --timeout 20 --json
rows_if_cut verify-dsv4 dsv4
run verify-dsv4-long 35 python3 -m fmhactl verify $V --grid dsv4-long --seed 27 --timeout 30 --json
rows_if_cut verify-dsv4-long dsv4-long
# One bench call per baseline-timed shape group (bench prints its JSON at the end: a call cut
# by its timeout loses its rows). flex compiles once per shape, outside the timing; sdpa-mask
# may run out of memory at b=16 (it repeats K and V for the 64 heads: 2 x 34 GB) and then says so.
run bench-decode 50 python3 -m fmhactl bench $V --seed 27 --timeout 45 --warmup 5 --iters 30 --json \
  --shape b=1,$DEC --shape b=16,$DEC --baseline flex --baseline sdpa-mask
run bench-prefill 40 python3 -m fmhactl bench $V --seed 27 --timeout 35 --warmup 3 --iters 20 --json \
  --shape $PRE --baseline flex --baseline sdpa-mask
run bench-sweep 25 python3 -m fmhactl bench $V --seed 27 --timeout 20 --warmup 10 --iters 50 --json \
  --shape b=2,$DEC --shape b=4,$DEC --shape b=8,$DEC --shape b=1,$TOPK --shape b=4,$TOPK --shape b=16,$TOPK \
  --baseline sdpa-mask
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi

collect_rows
{
  echo "==== steps"
  cat "$RAW/device.log"
  echo "==== build"
  tail -n 9 "$RAW/build.out" 2>/dev/null
  echo "==== GPU test (tests/sm90/test_gpu_mqa_gather.py)"
  tail -n 3 "$RAW/gpu-test.out" 2>/dev/null
  python3 scripts/device/sparse27_summary.py --verify "$RAW/verify-dsv4.out" "$RAW/verify-dsv4-long.out" \
    --bench "$RAW/bench-decode.out" "$RAW/bench-prefill.out" "$RAW/bench-sweep.out"
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
