#!/usr/bin/env bash
# Session 30: sm90_mqa_decode with Q's copies issued before the top-k filter, against main's
# kernel (.ab/old): the decode GPU tests, verify dsv4-long, then aba30.sh's A-B-A benches.
# Not kept: apply notes/op-session30/call6-15-mqa-decode/q_before_filter.patch and put main's
# kernels/sm90/fmha_mqa_decode.cuh in .ab/old/kernels/sm90/ first.
#     OUT=/dir bash scripts/device/qfirst30.sh [BUDGET_S]   carry: .whl (.ab travels untracked)
set -u -o pipefail
[ -d .ab/old ] || { echo "qfirst30.sh: no .ab/old/ (main's sources to compare against)" >&2; exit 2; }
source scripts/device/steps.sh
device_start qfirst30 230 "${1:-}"
run build 40 python3 -m fmhactl build sm90_mqa_decode --arch sm_90a
run gpu-test 80 python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_mqa_decode.py
log "gpu-test: $(tail -n 1 "$RAW/gpu-test.out")"
run verify 30 python3 -m fmhactl verify sm90_mqa_decode --grid dsv4-long --seed 31 --timeout 28
log "verify: $(tail -n 1 "$RAW/verify.out")"
OUT=$OUT/aba ROUNDS=1 BUDGET=$(( $(left) - 5 )) bash scripts/device/aba30.sh > "$RAW/aba.log" 2>&1
grep -v "rc=0" "$OUT/aba/device.log" | while read -r line; do log "$line"; done
cp "$RAW/device.log" "$OUT/device.log"
