#!/usr/bin/env bash
# Issue 27 item 4: the op's attention features and `fmhactl bench --model dsv4` on one H100, in
# <= BUDGET s (default 560). Steps (each time-bounded; one with no time left is skipped and says so):
#   gpu-test     tests/torch/test_op_features_gpu.py (each feature vs the reference, backend per case,
#                opcheck with features, a small dsv4 model vs SDPA) and tests/torch/test_torch_gpu.py -k opcheck
#   dsv4         bench --model dsv4 --prompt 512 --prompt 2048 --prompt 8192 --greedy 16 --context 32768
# $OUT gets: summary.txt (printed last), dsv4.json, raw.tgz (every step's stdout/stderr).
# Knobs: BUDGET, SKIP="step ...", DRY=1 (print the commands only).
set -u -o pipefail
OUT=${OUT:-/tmp/model27-out}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/model27-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-model27}
BUDGET=${BUDGET:-560}
start=$(date +%s)
STEP_RESERVE=10 STEP_MIN=15
source scripts/device/steps.sh  # left, log, run
log "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null)"
run gpu-test 150 python3 -m pytest -q -rs -s -p no:cacheprovider tests/torch/test_op_features_gpu.py
run op-opcheck 60 python3 -m pytest -q -p no:cacheprovider tests/torch/test_torch_gpu.py -k opcheck
run dsv4 300 python3 -m fmhactl bench --model dsv4 --prompt 512 --prompt 2048 --prompt 8192 --greedy 16 \
  --context 32768 --warmup 2 --iters 5 --seed 27 --json
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
for s in dsv4; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== GPU tests"; grep -E "^(tests/|[a-z0-9-]+: .*\(sm|PASS|FAIL|SKIP)|passed|failed|Error" "$RAW/gpu-test.out" | tail -n 25
  tail -n 2 "$RAW/op-opcheck.out" 2>/dev/null
  python3 - "$RAW" <<'PY'
import json, sys
for step in ("dsv4",):
    try:
        r = json.load(open(f"{sys.argv[1]}/{step}.out"))
    except (OSError, ValueError) as exc:
        print(f"==== {step}: no JSON ({type(exc).__name__})"); continue
    print(f"==== {step} ({r['gpu']}, torch {r['torch']}); fmhactl backends: {r['backends']}")
    for row in r["results"]:
        cells = [f"{i} {row[i]['median_ms']:.2f} ms {row[i]['tokens_per_s']:.0f} tok/s" if "median_ms" in row[i]
                 else f"{i} skipped ({row[i]['skipped'][:90]})" for i in r["implementations"]]
        print(f"prefill {row['prompt_length']}: " + " | ".join(cells))
        print(f"  max|logit diff| vs sdpa {row.get('max_logit_diff_vs_sdpa')}; fa_rule {row.get('fa_rule')}")
    d = r.get("decode")
    if d:
        cells = [f"{i} {d[i]['tokens_per_s']:.1f} tok/s" if "tokens_per_s" in d[i]
                 else f"{i} skipped ({d[i]['skipped'][:90]})" for i in r["implementations"]]
        print(f"decode {d['new_tokens']} after {d['context']}: " + " | ".join(cells))
        print(f"  max|logit diff| vs sdpa {d.get('max_logit_diff_vs_sdpa')}; fa_rule {d.get('fa_rule')}; "
              f"greedy agreement {d.get('greedy_agreement_vs_fmhactl')}")
PY
  for s in dsv4; do echo "==== $s stderr (tail)"; tail -n 6 "$RAW/$s.err" 2>/dev/null; done
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
