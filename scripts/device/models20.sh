#!/usr/bin/env bash
# Session 20, call 2 of the models: `bench --model` on llama-small and qwen2-small with the greedy
# row's decode steps interleaved one by one after a full-length untimed round (fmhactl/bench/
# greedy.py); which SDPA backend pays on a KV length it has not seen (sdpa_new_length_probe.py);
# and whether sm90_persistent_feat (the hd128 feature kernel, 0.970 of FA4 on b8 S4k d128 causal +
# sink in call 3) pays for its switches on plain hd128 calls, against sm90_persistent, 2 rounds.
#     OUT=/dir [SKIP=...] bash scripts/device/models20.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows, bench_rounds
device_start models20 480 "${1:-}"
STEP_RESERVE=10 STEP_MIN=8
run sdpa_probe 40 python3 scripts/device/sdpa_new_length_probe.py 2048 12
run model_llama 110 python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
run model_qwen2 110 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
SHAPES="--shape b=8,h=16,t=4096,s=4096,d=128,causal --shape b=8,h=16,t=4096,s=4096,d=128 --shape b=4,h=16,t=8192,s=8192,d=128,causal"
SEED=20 bench_rounds 45 sm90_persistent sm90_persistent_feat
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
for s in model_llama model_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  echo "==== SDPA at new KV lengths"; cat "$RAW/sdpa_probe.out"; tail -n 3 "$RAW/sdpa_probe.err"
  echo "==== models"; python3 scripts/device/op24_summary.py --model "$OUT/model_llama.json" "$OUT/model_qwen2.json"
  python3 scripts/device/knobs15_summary.py "$OUT"
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
