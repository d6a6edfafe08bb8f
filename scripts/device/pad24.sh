#!/usr/bin/env bash
# Issue 24 item 4: padded batches in one launch (per-batch key ranges in the SM90 feature kernels,
# FMHA_KEY_RANGES) on one H100. Builds the SM90 variants; runs the key-range GPU tests
# (tests/sm90/test_gpu_sm90_key_ranges.py, tests/torch/test_padded_gpu.py), every torch GPU test of
# the op and the SM90 feature GPU test; verifies sm90_persistent_feat + sm90_pingpong_feat on grid
# `padded` (an SM100 variant on it reports UNSUPPORTED, not run); benches llama-small and
# qwen2-small padded prefill (prompts 17 511 2048 8192, a left-padded batch of 4 lengths).
#   OUT=/dir bash scripts/device/pad24.sh [BUDGET]   carry: .whl      DRY=1: list the steps only
# The caps add up to more than one 600 s call: split it with SKIP, e.g. first
# SKIP="model_llama model_qwen2", then SKIP="gpu-keyranges verify-padded gpu-torch gpu-sm90".
# $OUT: summary.txt (printed last), verify.json, model_llama.json, model_qwen2.json, device.log, raw.tgz.
set -u -o pipefail
OUT=${OUT:-/tmp/pad24}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/pad24-raw.XXXX)
source scripts/device/steps.sh  # device_python, left, log, run, rows_if_cut, collect_rows
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-pad24}
BUDGET=${BUDGET:-${1:-560}}
start=$(date +%s)
SINCE=$(date -u +%Y-%m-%dT%H:%M:%S)
STEP_RESERVE=15 STEP_MIN=15
V="sm90_persistent_feat sm90_pingpong_feat"
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
run build 90 python3 -m fmhactl build sm90_pipelined sm90_pingpong sm90_persistent $V --arch sm_90a --jobs 5
run gpu-keyranges 150 python3 -m pytest -q -rs -p no:cacheprovider tests/sm90/test_gpu_sm90_key_ranges.py \
  tests/torch/test_padded_gpu.py
run verify-padded 90 python3 -m fmhactl verify $V --grid padded --seed 24 --timeout 60 --json
rows_if_cut verify-padded padded
run gpu-torch 200 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch
run gpu-sm90 90 python3 -m pytest -q -rs -p no:cacheprovider tests/sm90/test_gpu_sm90_features.py
run model_llama 90 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --json
run model_qwen2 120 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --json
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
collect_rows  # verify-*.out -> $OUT/verify.json (and an empty $OUT/bench.json: not kept)
rm -f "$OUT/bench.json"
for s in model_llama model_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
cp "$RAW/device.log" "$OUT/device.log"
{
  echo "==== steps"; cat "$RAW/device.log"
  for s in gpu-keyranges gpu-torch gpu-sm90; do
    echo "==== $s"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$RAW/$s.out" 2>/dev/null | tail -n 25
  done
  echo "==== verify padded (status per variant)"
  python3 - "$OUT/verify.json" <<'PY'
import json, sys
from collections import Counter
rows = json.load(open(sys.argv[1]))
for variant in sorted({r["variant"] for r in rows}):
    mine = [r for r in rows if r["variant"] == variant]
    worst = max((r.get("metrics", {}).get("max_abs_err") or 0.0 for r in mine), default=0.0)
    print(variant, dict(Counter(r["status"] for r in mine)), "max |O err|", worst)
    for r in mine:
        if r["status"] not in ("PASS", "UNSUPPORTED"):
            print("  ", r["status"], r["config_key"], str(r.get("metrics", {}).get("error", ""))[:160])
PY
  echo "==== models (padded rows: tokens/s ratio fmhactl / sdpa, SDPA fallbacks)"
  python3 - "$OUT" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, "scripts/device")
import op24_summary as s
for name in ("model_llama.json", "model_qwen2.json"):
    got = s._load(Path(sys.argv[1]) / name)
    if got is not None:
        s.model(got)
PY
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
