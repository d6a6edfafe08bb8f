#!/usr/bin/env bash
# Issue 27, decode profile: where sm90_mqa_gather's decode time goes, on one H100. Usage:
#   OUT=/path bash scripts/device/decode27_profile.sh [BUDGET]   (or: ... decode27_profile.sh OUT BUDGET)
# Never runs past BUDGET seconds (default 200). Steps, most telling first:
#  1. build (regs/spills of the 8 entry points);
#  2. ncu on ONE launch each of b1 window-128 decode and b64 top-k-512 decode: duration (the
#     GPU's own time, to set against bench's event timing), DRAM bytes/throughput, achieved
#     occupancy, warp stall reasons, launch stats;
#  3. the GPU test, verify dsv4 and dsv4-long;
#  4. decode benches (b1/4/16/64 top-k 512 and window 128, sdpa-mask beside them), an A/B of the
#     plan (FMHACTL_GATHER_TILES=1: the old 16-head CTAs at b16/b64), the prefill row, flex at b4.
# $OUT gets summary.txt, ncu.txt, bench.json, verify.json, raw.tgz (5 files).
set -u -o pipefail
OUT=${OUT:-/tmp/decode27-profile}; BUDGET=200
case "${1:-}" in ''|*[!0-9]*) [ -n "${1:-}" ] && OUT=$1; [ -n "${2:-}" ] && BUDGET=$2;; *) BUDGET=$1;; esac
mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/decode27p-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode27p}
start=$(date +%s)
STEP_RESERVE=8 STEP_MIN=8
source scripts/device/steps.sh  # left, log, run
V=sm90_mqa_gather
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
PRE="b=1,h=64,hkv=1,t=8192,s=8192,d=512,causal,wl=127,kvshared,sink"
B="--seed 27 --warmup 5 --iters 30 --json"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
SECTIONS="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis"

log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null) ncu=${NCU:-none}"
run build 30 python3 -m fmhactl build $V --arch sm_90a
if [ -n "$NCU" ]; then
  # bench's first launch (its one warm-up) is the captured one; the bench itself does nothing else on the GPU
  run ncu-b1-win 35 "$NCU" -k regex:fmha_mqa_gather -c 1 $SECTIONS --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
    python3 -m fmhactl bench $V --seed 27 --warmup 0 --iters 1 --timeout 30 --shape b=1,$WIN
  run ncu-b64-topk 35 "$NCU" -k regex:fmha_mqa_gather -c 1 $SECTIONS --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
    python3 -m fmhactl bench $V --seed 27 --warmup 0 --iters 1 --timeout 30 --shape b=64,$TOPK
else
  log "ncu: not found"
fi
run gpu-test 30 python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_mqa_gather.py
run verify-dsv4 20 python3 -m fmhactl verify $V --grid dsv4 --seed 27 --timeout 18 --json
run verify-dsv4-long 25 python3 -m fmhactl verify $V --grid dsv4-long --seed 27 --timeout 22 --json
run bench-decode-topk 25 python3 -m fmhactl bench $V $B --timeout 22 \
  --shape b=1,$TOPK --shape b=4,$TOPK --shape b=16,$TOPK --shape b=64,$TOPK --baseline sdpa-mask
run bench-decode-win 25 python3 -m fmhactl bench $V $B --timeout 22 \
  --shape b=1,$WIN --shape b=4,$WIN --shape b=16,$WIN --shape b=64,$WIN --baseline sdpa-mask
# A/B: the previous plan's 16-head CTAs (each key row gathered once per 16 heads, through L2)
run bench-ab-tiles1 20 env FMHACTL_GATHER_TILES=1 python3 -m fmhactl bench $V $B --timeout 18 \
  --shape b=16,$TOPK --shape b=64,$TOPK --shape b=64,$WIN
run bench-prefill 20 python3 -m fmhactl bench $V --seed 27 --timeout 18 --warmup 3 --iters 10 --json --shape $PRE
run bench-flex-b4 45 python3 -m fmhactl bench $V $B --timeout 40 --shape b=4,$TOPK --shape b=4,$WIN --baseline flex
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi

collect_rows
{
  for f in "$RAW"/ncu-*.out; do
    [ -f "$f" ] || continue
    echo "==== $(basename "$f" .out)"
    grep -E "fmha_mqa_gather|Duration|gpu__time_duration|dram__bytes|lts__t_bytes|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Dynamic Shared|Block Size|Grid Size|Waves Per SM|Warp Cycles Per Issued|Block Limit|Stall|stall|cycles being stalled|OPT|Est\. Speedup" "$f" | head -n 60
  done
} > "$OUT/ncu.txt" 2>&1
{
  echo "==== steps"
  cat "$RAW/device.log"
  echo "==== build"
  tail -n 9 "$RAW/build.out" 2>/dev/null
  echo "==== GPU test"
  tail -n 3 "$RAW/gpu-test.out" 2>/dev/null
  echo "==== ncu (full text: ncu.txt, raw.tgz)"
  grep -E "^====|Duration|gpu__time_duration|dram__bytes_read|DRAM Throughput|Achieved Occupancy" "$OUT/ncu.txt"
  python3 scripts/device/sparse27_summary.py --verify "$RAW/verify-dsv4.out" "$RAW/verify-dsv4-long.out" \
    --bench "$RAW"/bench-*.out
  echo "==== decode: kernel median vs the bytes it must move (gathered K rows + Q + O + LSE) at 3350 GB/s"
  python3 scripts/device/decode_bandwidth.py "$OUT/bench.json"
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
