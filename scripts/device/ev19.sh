#!/usr/bin/env bash
# Session 19, the last call: the milestone evidence re-made on the committed kernel (evidence.sh
# STEPS="gpu out", into $OUT/ev), then the op on the llama / qwen2 models (prefill 17/511/2048/8192,
# a padded batch of 4, greedy 128 after 2048; `bench --model` now times up to 50 forwards a row).
#     OUT=/dir bash scripts/device/ev19.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, evidence_step
device_start ev19 440 "${1:-}"
STEP_RESERVE=10 STEP_MIN=20
evidence_step "${MODEL_RESERVE:-200}"
run model_llama 100 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run model_qwen2 100 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
for s in model_llama model_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{ [ -f "$OUT/ev/summary.txt" ] && { echo "==== evidence"; cat "$OUT/ev/summary.txt"; }
  echo "==== models"; python3 scripts/device/op24_summary.py --model "$OUT/model_llama.json" "$OUT/model_qwen2.json"
  cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
finish_call
