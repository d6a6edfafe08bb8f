#!/usr/bin/env bash
# Issue 24 item 3: the op's split-KV decode kernel with the per-warp cp.async ring (branch h24d),
# A/B against the register version in the same call, on one H100.
#   OUT=/dir bash scripts/device/decode24_ring.sh [BUDGET_S]        carry: .whl .ab
# .ab/old/ holds main's version of every file the branch changed (kernels/sm90/fmha_decode.cuh,
# fmha_decode_split.h, kernels/common/cp_async.cuh, fmhactl/torch/decode.py, the tests, docs), at
# the same paths; only the bench of the old tree runs on them.
# Steps: build; the decode GPU tests; bench --decode (the default grid: t 1/4/16, s 2k-32k, hd 64/128,
# b8, MHA) on the new tree; then .ab/old copied over the tree, build + the same bench into its own
# FMHACTL_HOME, and the tree restored; last, ncu of one hd128 s32k and one hd64 s32k split launch
# of the new kernel (DRAM bandwidth, SMEM bank conflicts, occupancy). ~300 s of a 480 s budget.
# $OUT: summary.txt (decode24_ring_summary.py: new vs old vs cuDNN per shape), decode_new.json,
# decode_old.json, pytest.txt, ncu.txt, device.log, raw.tgz.
set -u -o pipefail
OUT=${OUT:-/tmp/decode24_ring}; [ -n "${DRY:-}" ] || mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/decode24-raw.XXXX)
source scripts/device/steps.sh  # device_python, left, log, run
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode24-new}
OLD_HOME=/tmp/fmhactl-decode24-old
BUDGET=${BUDGET:-${1:-480}}
start=$(date +%s)
STEP_RESERVE=20 STEP_MIN=10
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
BUILD='from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.torch import decode
for k in build(decode.variant(), BuildTarget(decode.ARCH)).kernels: print(k)'
run build-new 60 python3 -c "$BUILD"
run pytest-decode 150 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch/test_decode_gpu.py
run bench-new 90 python3 -m fmhactl bench --decode --json
# the A/B: main's versions (.ab/old) over the tree, their own kernel cache; every file they
# replace is saved first and put back right after
SAVED=/tmp/decode24-new.tar
if [ -z "${DRY:-}" ] && [ -d .ab/old ]; then
  (cd .ab/old && find . -type f) > /tmp/decode24-files.txt
  tar -cf "$SAVED" -T /tmp/decode24-files.txt && cp -r .ab/old/. . \
    && log "A/B: old sources in place ($(tr '\n' ' ' < /tmp/decode24-files.txt))"
fi
FMHACTL_HOME=$OLD_HOME run build-old 60 python3 -c "$BUILD"
FMHACTL_HOME=$OLD_HOME run bench-old 90 python3 -m fmhactl bench --decode --json
if [ -z "${DRY:-}" ] && [ -f "$SAVED" ]; then
  tar -xf "$SAVED" && rm -f "$SAVED" && log "A/B: new sources restored"
fi
# last: ncu of the new kernel (the tree is the new one again)
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
if [ -n "$NCU" ]; then
  for shape in b=1,h=32,hkv=8,t=1,s=32768,d=128 b=1,h=16,hkv=4,t=1,s=32768,d=64; do
    run "ncu-d${shape##*d=}" 45 "$NCU" -k regex:fmha_decode_split -c 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed.sum \
      python3 -m fmhactl bench --decode --json --shape "$shape"
  done
else
  log "ncu: not found, skipped"
fi
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
cp "$RAW/bench-new.out" "$OUT/decode_new.json" 2>/dev/null
cp "$RAW/bench-old.out" "$OUT/decode_old.json" 2>/dev/null
{ tail -n 30 "$RAW/pytest-decode.out"; tail -n 5 "$RAW/pytest-decode.err"; } > "$OUT/pytest.txt" 2>/dev/null
for n in ncu-d128 ncu-d64; do
  echo "==== $n"; grep -E "fmha_decode_split|Duration|gpu__time|dram__|bank_conflicts|wavefronts|inst_executed|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|Shared Memory Config|Dynamic Shared|SM Frequency" \
    "$RAW/$n.out" 2>/dev/null
done > "$OUT/ncu.txt"
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== build (new, old)"; cat "$RAW/build-new.out" "$RAW/build-old.out" 2>/dev/null | grep split
  echo "==== GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|Error" "$RAW/pytest-decode.out" | tail -n 25
  echo "==== ncu"; cat "$OUT/ncu.txt"
  python3 scripts/device/decode24_ring_summary.py "$OUT/decode_new.json" "$OUT/decode_old.json"
} > "$OUT/summary.txt" 2>&1
cp "$RAW/device.log" "$OUT/device.log"
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
