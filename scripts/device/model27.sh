#!/usr/bin/env bash
# Issue 27 item 4: the op's attention features and `fmhactl bench --model dsv4` on one H100, in
# <= BUDGET s (default 560). Steps (each time-bounded; one with no time left is skipped and says so):
#   gpu-test     tests/torch/test_op_features_gpu.py (each feature vs the reference, backend per case,
#                opcheck with features, a small dsv4 model vs SDPA) and tests/torch/test_torch_gpu.py -k opcheck
#   dsv4         bench --model dsv4 --prompt 512 --prompt 2048 --prompt 8192 --greedy 16 --context 32768
# $OUT gets: summary.txt (printed last), dsv4.json, raw.tgz (every step's stdout/stderr).
# Knobs: BUDGET, SKIP="step ...", DRY=1 (print the commands only).
set -u -o pipefail
OUT=${OUT:-/tmp/model27-out}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/model27-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-model27}
BUDGET=${BUDGET:-560}
start=$(date +%s)
STEP_RESERVE=10 STEP_MIN=15
source scripts/device/steps.sh  # left, log, run
log "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null)"
run gpu-test 150 python3 -m pytest -q -rs -s -p no:cacheprovider tests/torch/test_op_features_gpu.py
run op-opcheck 60 python3 -m pytest -q -p no:cacheprovider tests/torch/test_torch_gpu.py -k opcheck
run dsv4 300 python3 -m fmhactl bench --model dsv4 --prompt 512 --prompt 2048 --prompt 8192 --greedy 16 \
  --context 32768 --warmup 2 --iters 5 --seed 27 --json
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
for s in dsv4; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== GPU tests"; grep -E "^(tests/|[a-z0-9-]+: .*\(sm|PASS|FAIL|SKIP)|passed|failed|Error" "$RAW/gpu-test.out" | tail -n 25
  tail -n 2 "$RAW/op-opcheck.out" 2>/dev/null
  python3 scripts/device/dsv4_summary.py "$RAW/dsv4.out"
  for s in dsv4; do echo "==== $s stderr (tail)"; tail -n 6 "$RAW/$s.err" 2>/dev/null; done
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
