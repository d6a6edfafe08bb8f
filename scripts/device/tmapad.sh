#!/usr/bin/env bash
# Padded head dims through the SM90 kernels' TMA zero fill (no copies) on one H100:
# tests/torch/test_tma_head_dim_fill_gpu.py (d 16..112 against the fp32 reference, O past the row
# untouched, no pad kernels, CUDA graph, torch.compile) and tests/torch/test_head_dim_padding_gpu.py
# (every padded path, the copy padding included), then `fmhactl bench --overhead` at
# b4 h32 t=s=4096 causal for d=96, d=80 and d=128, and d=96 once more with the fill off
# (FMHACTL_TORCH_TMA_FILL=0: the copy padding) for an A/B on the same card.
#   OUT=/dir bash scripts/device/tmapad.sh [BUDGET]   carry: .whl      DRY=1: list the steps only
# $OUT: summary.txt (printed last), overhead.json, overhead_copies.json, device.log.
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start tmapad 570 "${1:-}"
STEP_RESERVE=10 STEP_MIN=15
SHAPE="b=4,h=32,t=4096,s=4096"
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
run gpu-fill 200 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch/test_tma_head_dim_fill_gpu.py
run gpu-padding 170 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch/test_head_dim_padding_gpu.py
run overhead 120 python3 -m fmhactl bench --overhead --json --iters 20 \
  --shape "$SHAPE,d=96,causal" --shape "$SHAPE,d=80,causal" --shape "$SHAPE,d=128,causal"
run overhead_copies 60 env FMHACTL_TORCH_TMA_FILL=0 python3 -m fmhactl bench --overhead --json --iters 20 \
  --shape "$SHAPE,d=96,causal"
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
for s in overhead overhead_copies; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
cp "$RAW/device.log" "$OUT/device.log"
{
  echo "==== steps"; cat "$RAW/device.log"
  for s in gpu-fill gpu-padding; do
    echo "==== $s"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|Error" "$RAW/$s.out" 2>/dev/null | tail -n 30
    tail -n 3 "$RAW/$s.err" 2>/dev/null
  done
  echo "==== overhead: per-call µs (median of rounds x iters back-to-back calls), fmhactl / sdpa"
  python3 scripts/device/tmapad_summary.py "TMA fill=$OUT/overhead.json" \
    "copies (FMHACTL_TORCH_TMA_FILL=0)=$OUT/overhead_copies.json"
} > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
