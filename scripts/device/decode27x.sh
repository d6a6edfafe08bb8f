#!/usr/bin/env bash
# Issue 27/24, decode: the pipelined sm90_mqa_decode, the shared split merge (loads in flight) and
# the in-order top-k filter, on one H100, with an A/B against the kernels before them in the same
# call. Usage:  OUT=/dir bash scripts/device/decode27x.sh [BUDGET_S]     carry: .whl .ab
# .ab/old/ holds the previous sources (kernels/..., and fmhactl/... where the plan changed; the same
# paths as in the tree); the A/B steps copy them over the tree's and build into a separate FMHACTL_HOME.
# Steps: build; GPU tests (decode, gather, the op's feature and cached-path tests); verify
# dsv4-long on both kernels; decode benches (top-k 512 and window 128, b = 1/4/16/64, sdpa-mask
# at b1/b4); the same benches on the old kernels; ncu of one b64 top-k launch.
# $OUT: summary.txt, bench.json, verify.json, ncu.txt, raw.tgz.
set -u -o pipefail
OUT=${OUT:-/tmp/decode27x}; [ -n "${DRY:-}" ] || mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/decode27x-raw.XXXX)
source scripts/device/steps.sh  # device_python, left, log, run, collect_rows
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode27x}
BUDGET=${BUDGET:-${1:-420}}
start=$(date +%s)
STEP_RESERVE=15 STEP_MIN=8
V=sm90_mqa_decode
G=sm90_mqa_gather
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
B="--seed 27 --warmup 5 --iters 30 --json"
shapes() { for b in 1 4 16 64; do printf -- "--shape b=%s,%s " "$b" "$1"; done; }
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
run build 40 python3 -m fmhactl build $V $G --arch sm_90a
run gpu-test 150 python3 -m pytest -q -rs -p no:cacheprovider tests/sm90/test_gpu_mqa_decode.py tests/sm90/test_gpu_mqa_gather.py \
  tests/torch/test_fastpath_features_gpu.py tests/torch/test_op_features_gpu.py
run verify-decode 30 python3 -m fmhactl verify $V --grid dsv4-long --seed 28 --timeout 28 --json
run verify-gather 60 python3 -m fmhactl verify $G --grid dsv4-long --seed 28 --timeout 55 --json
run bench-new-decode-topk 20 python3 -m fmhactl bench $V $B --timeout 18 $(shapes $TOPK) --baseline sdpa-mask
run bench-new-decode-win 20 python3 -m fmhactl bench $V $B --timeout 18 $(shapes $WIN) --baseline sdpa-mask
[ -n "${SKIP_GATHER:-}" ] || run bench-new-gather-topk 20 python3 -m fmhactl bench $G $B --timeout 18 $(shapes $TOPK) --baseline flash
[ -n "${SKIP_GATHER:-}" ] || run bench-new-gather-win 20 python3 -m fmhactl bench $G $B --timeout 18 $(shapes $WIN) --baseline flash
for n in ${SPLITS_AB:-1 2 4 8 16}; do  # the split count forced, for the plan's A/B
  run bench-new-decode-splits$n 15 env FMHACTL_DECODE_SPLITS=$n python3 -m fmhactl bench $V $B --timeout 12 $(shapes $TOPK)
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
if [ -n "$NCU" ]; then
  run ncu-b64-topk 35 "$NCU" -k regex:fmha_mqa_decode -c 1 --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum \
    python3 -m fmhactl bench $V --seed 27 --warmup 0 --iters 1 --timeout 30 --shape b=64,$TOPK
fi
# the A/B: the previous kernels in this tree, their own cache
if [ -z "${DRY:-}" ] && [ -d .ab/old ]; then
  rm -rf /tmp/decode27x-new && mkdir -p /tmp/decode27x-new && cp -r kernels fmhactl /tmp/decode27x-new/ && cp -r .ab/old/. . \
    && log "A/B: old sources in place ($(cd .ab/old && find . -type f | tr '\n' ' '))"
fi
FMHACTL_HOME=/tmp/fmhactl-decode27x-old run bench-old-decode-topk 30 python3 -m fmhactl bench $V $B --timeout 28 $(shapes $TOPK)
FMHACTL_HOME=/tmp/fmhactl-decode27x-old run bench-old-decode-win 20 python3 -m fmhactl bench $V $B --timeout 18 $(shapes $WIN)
if [ -z "${SKIP_GATHER:-}" ]; then  # else gather is unchanged
  FMHACTL_HOME=/tmp/fmhactl-decode27x-old run bench-old-gather-topk 30 python3 -m fmhactl bench $G $B --timeout 28 $(shapes $TOPK)
  FMHACTL_HOME=/tmp/fmhactl-decode27x-old run bench-old-gather-win 20 python3 -m fmhactl bench $G $B --timeout 18 $(shapes $WIN)
fi
[ -z "${DRY:-}" ] && [ -d /tmp/decode27x-new/kernels ] && rm -rf kernels fmhactl && cp -r /tmp/decode27x-new/kernels /tmp/decode27x-new/fmhactl .
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
collect_rows
grep -E "fmha_mqa_decode|Duration|gpu__time|dram__bytes|inst_executed|DRAM Throughput|Achieved Occupancy|Warp Cycles|Stall|SM Frequency" \
  "$RAW/ncu-b64-topk.out" > "$OUT/ncu.txt" 2>/dev/null
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== build"; tail -n 12 "$RAW/build.out" 2>/dev/null
  echo "==== GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|Error" "$RAW/gpu-test.out" | tail -n 25
  echo "==== ncu"; cat "$OUT/ncu.txt"
  python3 scripts/device/decode27x_summary.py "$OUT"
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
