#!/usr/bin/env bash
# Session 14: sliding-window and sink models through attn_implementation="fmhactl" on one H100:
# tests/torch/test_hf_window_sinks_gpu.py (Mistral-style vs SDPA, gpt-oss-style vs eager), then
# bench --model mistral-small (a 512-token window on every layer; SDPA gets the dense windowed mask).
#   OUT=/dir bash scripts/device/window14.sh [BUDGET]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start window14 300 "${1:-}"
STEP_RESERVE=10 STEP_MIN=15
run window-test 150 python3 -m pytest -q -rs -s -m gpu -p no:cacheprovider tests/torch/test_hf_window_sinks_gpu.py
run model_mistral 150 python3 -m fmhactl bench --model mistral-small --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 64 --json
[ -n "${DRY:-}" ] && exit 0
cp "$RAW/model_mistral.out" "$OUT/model_mistral.json" 2>/dev/null
{ cat "$RAW/device.log"; echo "==== window test"; tail -n 30 "$RAW/window-test.out"; tail -n 5 "$RAW/window-test.err"
  echo "==== mistral"; tail -n 5 "$RAW/model_mistral.err"
  python3 - "$OUT/model_mistral.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("no model JSON:", e); sys.exit()
for r in d["results"]:
    p = r.get("padded_batch") or {}
    print(f"prompt {r['prompt_length']:5d}: fmhactl/sdpa {r['ratio_tokens_per_s']:.3f} (fmhactl {r['fmhactl']['median_ms']:.2f} ms, sdpa {r['sdpa']['median_ms']:.2f} ms), max logit diff {r['max_logit_diff_vs_sdpa']:.4f}"
          + (f"; padded {p.get('ratio_tokens_per_s', float('nan')):.3f} fallbacks {p.get('sdpa_fallback_calls')}" if p else ""))
g = d.get("greedy_decode")
if g:
    print("greedy:", {k: v for k, v in g.items() if not isinstance(v, (dict, list))})
PY
} > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
