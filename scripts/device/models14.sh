#!/usr/bin/env bash
# Session 14: bench --model on one H100 for the four random-init presets: llama-small and
# qwen2-small (issue 24's), mistral-small (a 512-token sliding window) and phi3-small (head dim 96):
# prefill tokens/s vs SDPA, a left-padded batch of 4, greedy decoding after a 2048-token prompt.
#   OUT=/dir bash scripts/device/models14.sh [BUDGET]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start models14 560 "${1:-}"
STEP_RESERVE=10 STEP_MIN=20
run model_llama 100 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --padded --greedy 128 --json
run model_qwen2 130 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run model_mistral 100 python3 -m fmhactl bench --model mistral-small --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 64 --json
run model_phi3 100 python3 -m fmhactl bench --model phi3-small --prompt 17 --prompt 511 --prompt 2048 --padded --greedy 64 --json
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
for s in model_llama model_qwen2 model_mistral model_phi3; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{ echo "==== steps"; cat "$RAW/device.log"
  python3 scripts/device/op24_summary.py --model "$OUT"/model_*.json
} > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
