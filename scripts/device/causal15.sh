#!/usr/bin/env bash
# Issue 24, causal hd64 after pass_tile: the 192-row tile against sm90_persistent on causal hd64
# (kernel alone, two rounds in reversed order, beside cuDNN), the op per call with each forced
# (FMHACTL_TORCH_BACKEND), and the llama / qwen2 models again (prefill 17/511/2048/8192, padded,
# greedy 128 after 2048).     OUT=/dir bash scripts/device/causal15.sh [BUDGET_S]     carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows
device_start causal15 240 "${1:-}"
STEP_RESERVE=12 STEP_MIN=8
SHAPES="--shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=32,h=16,t=512,s=512,d=64,causal
 --shape b=8,h=16,t=2048,s=2048,d=64,causal --shape b=8,h=16,t=4096,s=4096,d=64,causal
 --shape b=16,h=16,t=576,s=576,d=64,causal"
order=(sm90_persistent sm90_persistent_m192)
for r in 1 2; do
  for v in "${order[@]}"; do run bench-$r-$v 45 python3 -m fmhactl bench $v $SHAPES --baseline cudnn --seed 15 --json; done
  order=(sm90_persistent_m192 sm90_persistent)
done
OPSHAPES="--shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=8,h=16,t=4096,s=4096,d=64,causal"
for v in sm90_persistent sm90_persistent_m192; do
  run overhead-$v 45 env FMHACTL_TORCH_BACKEND=$v python3 -m fmhactl bench --overhead --json $OPSHAPES
done
run model_llama 75 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run model_qwen2 80 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
for s in overhead-sm90_persistent overhead-sm90_persistent_m192 model_llama model_qwen2; do
  cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null
done
{
  python3 scripts/device/knobs15_summary.py "$OUT"
  echo "==== the op forced to sm90_persistent, then to sm90_persistent_m192 (FMHACTL_TORCH_BACKEND)"
  python3 scripts/device/op24_summary.py --overhead "$OUT"/overhead-sm90_persistent.json "$OUT"/overhead-sm90_persistent_m192.json
  python3 scripts/device/op24_summary.py --model "$OUT"/model_llama.json "$OUT"/model_qwen2.json
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
