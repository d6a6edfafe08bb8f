#!/usr/bin/env bash
# Session 17, one H100 call after the kernel knobs: every torch GPU test (the transformers mask fast
# path of session 16 had not run under them), then issue 24's open rows through the op: bench
# --overhead at llama-small's decode shape (a causal t == 1 row now has SDPA columns), the tiny
# shape, S1k hd64 causal and B32 S512 D128; llama-small greedy 128 after 2048, twice.
#   OUT=/dir bash scripts/device/call17.sh [BUDGET_S]            carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start call17 480 "${1:-}"
STEP_RESERVE=10 STEP_MIN=10
run gpu-test ${GPU_TEST_CAP:-220} python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch
run overhead 90 python3 -m fmhactl bench --overhead --json --shape b=1,h=16,hkv=4,t=1,s=2048,d=64,causal \
  --shape b=1,h=8,t=32,s=32,d=64,causal --shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=32,h=16,t=512,s=512,d=128
for r in 1 2; do
  run greedy-$r 80 python3 -m fmhactl bench --model llama-small --prompt 17 --greedy 128 --json
done
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
for s in overhead greedy-1 greedy-2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{ echo "==== torch GPU tests"; grep -E "^(FAILED|ERROR)|passed|failed" "$RAW/gpu-test.out" | tail -n 25
  python3 scripts/device/op24_summary.py --overhead "$OUT/overhead.json" 2>&1
  python3 scripts/device/op24_summary.py --model "$OUT"/greedy-*.json 2>&1
  cat "$RAW/device.log"; } > "$OUT/summary.txt"
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
