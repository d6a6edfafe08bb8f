#!/usr/bin/env bash
# Session 17, one H100 call after the kernel knobs: every torch GPU test (the transformers mask fast
# path of session 16 had not run under them), then issue 24's open rows through the op with
# call16.sh's model part: bench --overhead at llama-small's decode shape (a causal t == 1 row now has
# SDPA columns), the tiny shape, S1k hd64 causal and B32 S512 D128; llama-small greedy 128 after
# 2048, twice.
#   OUT=/dir bash scripts/device/call17.sh            carry: .whl
# $OUT: tests.txt (the torch GPU tests' verdict lines), model/ (call16.sh's model part)
set -u -o pipefail
OUT=${OUT:-/tmp/call17}; mkdir -p "$OUT"
source scripts/device/steps.sh  # device_python
device_python
if [ -z "${DRY:-}" ]; then
  timeout ${GPU_TEST_CAP:-220} python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch > "$OUT/tests.log" 2>&1
  grep -E "^(FAILED|ERROR)|passed|failed" "$OUT/tests.log" | tail -n 25 > "$OUT/tests.txt"
  rm -f "$OUT/tests.log"
  cat "$OUT/tests.txt"
fi
KNOBS=0 OVERHEAD_CAP=90 MODEL_BUDGET=260 OVERHEAD_SHAPES="--shape b=1,h=16,hkv=4,t=1,s=2048,d=64,causal
 --shape b=1,h=8,t=32,s=32,d=64,causal --shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=32,h=16,t=512,s=512,d=128" \
  bash scripts/device/call16.sh
