#!/usr/bin/env bash
# Session 21, the op after two changes: (1) the routing rule backends.prefers_pingpong
# (sm90_pingpong ahead of sm90_persistent on plain non-causal hd65..128 calls over >= 4096 keys),
# checked through the op per call against SDPA (bench --overhead: op and SDPA in one run) on the
# rows it moves and on rows it must leave alone, with the op's GPU tests; (2) the decode path's
# host cost (decode_host_probe.py, level by level), then the models' greedy rows (bench --model).
#     OUT=/dir [SKIP=...] bash scripts/device/op21.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows
device_start op21 520 "${1:-}"
STEP_RESERVE=10 STEP_MIN=8
run gpu_tests 150 python3 -m pytest -q -p no:cacheprovider tests/torch/test_torch_gpu.py tests/torch/test_decode_gpu.py \
  tests/torch/test_padded_gpu.py tests/torch/test_decode_head_dims_gpu.py tests/torch/test_hf_window_sinks_gpu.py
# shellcheck disable=SC2086  # one word a --shape flag or value
run overhead 90 python3 -m fmhactl bench --overhead --json \
  --shape b=8,h=16,t=4096,s=4096,d=128 --shape b=4,h=16,t=8192,s=8192,d=128 --shape b=8,h=32,hkv=8,t=4096,s=4096,d=128 \
  --shape b=8,h=16,t=4096,s=4096,d=96 --shape b=8,h=16,t=4096,s=4096,d=128,causal --shape b=32,h=16,t=512,s=512,d=128 \
  --shape b=8,h=16,t=2048,s=2048,d=128
run host64 40 python3 scripts/device/decode_host_probe.py 64 2100
run host128 40 python3 scripts/device/decode_host_probe.py 128 2100
run model_llama 100 python3 -m fmhactl bench --model llama-small --prompt 2048 --greedy 128 --json
run model_qwen2 100 python3 -m fmhactl bench --model qwen2-small --prompt 2048 --greedy 128 --json
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
for s in overhead model_llama model_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  echo "==== GPU tests"; tail -n 3 "$RAW/gpu_tests.out"
  echo "==== op per call against SDPA"; python3 scripts/device/op24_summary.py --overhead "$OUT/overhead.json"
  echo "==== decode host cost"; cat "$RAW/host64.out" "$RAW/host128.out"; tail -n 2 "$RAW/host64.err"
  echo "==== models"; python3 scripts/device/op24_summary.py --model "$OUT/model_llama.json" "$OUT/model_qwen2.json"
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
