#!/usr/bin/env bash
# Session 9, call A (one H100 call, <= 580 s): the evidence the merged SM90 features made STALE, then
# the feature variants themselves (issue 27).
#   1. scripts/device/evidence.sh STEPS="gpu out": proof-m0 beside proof-sm90 (the 5 plain SM90
#      variants on seeds72 + awkward + fa), M6 (bench --model llama-small, torch checks --record),
#      export -> $OUT/evidence/records.jsonl, status.
#   2. scripts/device/features_sm90.sh (same FMHACTL_HOME, proof-sm90 skipped): sm90_*_feat on dsv4 and
#      dsv4-long, the feature GPU test, window/sink benches beside sdpa-mask and flex, plain vs _feat
#      on the milestone shapes beside cuDNN. Files under $OUT/features/.
#   OUT=/tmp/s9a bash scripts/device/session9_a.sh [BUDGET_S]
set -u -o pipefail
OUT=${OUT:-/tmp/s9a}; mkdir -p "$OUT"
budget=${1:-570}
t0=$(date +%s)
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_HOME=/tmp/fmhactl-s9a
STEPS="gpu out" DEADLINE_S=${EVIDENCE_S:-240} OUT=$OUT bash scripts/device/evidence.sh > "$OUT/evidence.txt" 2>&1
echo "evidence.sh rc=$? [+$(( $(date +%s) - t0 ))s]"
grep -E "rc=|passed|STALE|DONE|FAIL" "$OUT/summary.txt" | head -n 40
left=$(( budget - ($(date +%s) - t0) - 10 ))
SKIP="proof-sm90" ROUNDS=${ROUNDS:-1} BUDGET=$left OUT=$OUT/features bash scripts/device/features_sm90.sh > "$OUT/features.txt" 2>&1
echo "features_sm90.sh rc=$? [+$(( $(date +%s) - t0 ))s]"
cat "$OUT/features/device.log"; echo; cat "$OUT/features/summary.txt"
rm -f "$OUT/evidence.txt" "$OUT/features.txt"
