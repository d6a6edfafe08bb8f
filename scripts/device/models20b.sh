#!/usr/bin/env bash
# Session 20, the last call: `bench --model` on llama-small and qwen2-small with both model-bench
# timings side by side (prefill: one forward of each implementation in turn, fmhactl/bench/model.py
# time_rounds; greedy: one decode step of each in turn after a timed first pass, bench/greedy.py),
# and the GPU test that drives greedy_entry (tests/torch/test_decode_gpu.py).
#     OUT=/dir bash scripts/device/models20b.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start models20b 330 "${1:-}"
STEP_RESERVE=8 STEP_MIN=8
run gpu-test-greedy 70 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch/test_decode_gpu.py -k greedy
run model_llama 110 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run model_qwen2 110 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
for s in model_llama model_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  echo "==== greedy GPU test"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$RAW/gpu-test-greedy.out" | tail -n 6
  echo "==== models"; python3 scripts/device/op24_summary.py --model "$OUT/model_llama.json" "$OUT/model_qwen2.json"
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
