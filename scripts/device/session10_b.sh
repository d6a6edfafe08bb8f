#!/usr/bin/env bash
# Session 10, call B (issue 27, SM90): sm90_mqa_gather's split-K decode (scripts/device/decode27.sh:
# build, GPU test, verify dsv4/dsv4-long, decode and prefill benches beside sdpa-mask and flex),
# then the op's features and `bench --model dsv4` (scripts/device/model27.sh), one after the other
# (the benches time the GPU: nothing runs beside them).
#   OUT=/dir bash scripts/device/session10_b.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
OUT=${OUT:-/tmp/s10b}; mkdir -p "$OUT"
budget=${1:-550}
t0=$(date +%s)
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
mkdir -p "$OUT/decode" "$OUT/model"
BUDGET=${DECODE_S:-280} bash scripts/device/decode27.sh "$OUT/decode" > /dev/null 2>&1
echo "decode27 rc=$? [+$(( $(date +%s) - t0 ))s]"; cat "$OUT/decode/summary.txt"
OUT=$OUT/model BUDGET=$(( budget - ($(date +%s) - t0) - 5 )) bash scripts/device/model27.sh > /dev/null 2>&1
echo "model27 rc=$? [+$(( $(date +%s) - t0 ))s]"; cat "$OUT/model/summary.txt"
