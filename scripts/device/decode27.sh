#!/usr/bin/env bash
# Issue 27, decode: sm90_mqa_gather's split-K decode on one H100. Usage:
#   OUT=/path BUDGET=300 bash scripts/device/decode27.sh   (or: bash scripts/device/decode27.sh OUT BUDGET)
# Builds, runs the GPU test (split and unsplit shapes), verifies dsv4 and dsv4-long, then benches
# decode (T=1, h64:1, d512, s=32k, K=V, sink; top-k 512 and window 128 apart; b=1,4,16,64) with
# flex and sdpa-mask beside it (flex in its own capped call per shape group: a row it cannot
# finish says so), and the prefill T=S=8k window 128 row. Never runs past BUDGET. $OUT gets
# summary.txt, bench.json, verify.json, raw.tgz (every step's logs).
# Note: bench times one launch between CUDA events; a launch shorter than the host's enqueue
# (~20 us from Python) reads as the enqueue time (sparse27's 0.023 ms floor).
set -u -o pipefail
OUT=${1:-${OUT:-/tmp/decode27-out}}; BUDGET=${2:-${BUDGET:-300}}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/decode27-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode27}
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
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
B="--seed 27 --warmup 5 --iters 30 --json"
run bench-decode-topk 45 python3 -m fmhactl bench $V $B --timeout 40 \
  --shape b=1,$TOPK --shape b=4,$TOPK --shape b=16,$TOPK --shape b=64,$TOPK --baseline sdpa-mask
run bench-decode-win 45 python3 -m fmhactl bench $V $B --timeout 40 \
  --shape b=1,$WIN --shape b=4,$WIN --shape b=16,$WIN --shape b=64,$WIN --baseline sdpa-mask
run bench-flex-topk 60 python3 -m fmhactl bench $V $B --timeout 55 --shape b=4,$TOPK --shape b=16,$TOPK --baseline flex
run bench-flex-win 60 python3 -m fmhactl bench $V $B --timeout 55 --shape b=4,$WIN --shape b=16,$WIN --baseline flex
run bench-prefill 40 python3 -m fmhactl bench $V --seed 27 --timeout 35 --warmup 3 --iters 20 --json \
  --shape $PRE --baseline flex --baseline sdpa-mask
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
    --bench "$RAW"/bench-*.out
  echo "==== decode bandwidth (bytes the kernel must read/write: gathered K rows + Q + O + LSE)"
  python3 scripts/device/decode_bandwidth.py "$OUT/bench.json"
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
