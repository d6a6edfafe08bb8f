#!/usr/bin/env bash
# The cached launch path for calls with attention features (window, sinks, top-k, K = V) on one
# H100, in <= BUDGET s (default: $1, else 560). Steps (each time-bounded; one with no time left is
# skipped and says so):
#   gpu-test   tests/torch/test_fastpath_features_gpu.py (cached == general bitwise per feature case,
#              eager and dispatcher, second call served; CUDA-graph capture + replay; compile fullgraph),
#              tests/torch/test_op_features_gpu.py and tests/torch/test_fastpath_cpu.py (regressions)
#   overhead   bench --overhead at a plain shape and two dsv4 feature shapes (window+sink+K=V prefill
#              at hd512, top-k decode at hd512): host_us of fmhactl vs fmhactl-general
#   dsv4       bench --model dsv4 --prompt 512 --prompt 2048 --greedy 16 --context 32768 --json
# $OUT gets: summary.txt (printed last), overhead.json, dsv4.json, raw.tgz (every step's output).
#   OUT=/dir bash scripts/device/fast24.sh [BUDGET_S]        carry: .whl
# Knobs: SKIP="step ...", DRY=1 (print the commands only).
set -u -o pipefail
OUT=${OUT:-/tmp/fast24-out}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/fast24-raw.XXXX)
source scripts/device/steps.sh  # device_python, left, log, run, collect_rows
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-fast24}
BUDGET=${BUDGET:-${1:-560}}
start=$(date +%s)
STEP_RESERVE=10 STEP_MIN=15
log "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null)"
run gpu-test 200 python3 -m pytest -q -rs -p no:cacheprovider tests/torch/test_fastpath_features_gpu.py \
  tests/torch/test_op_features_gpu.py tests/torch/test_fastpath_cpu.py
run overhead 90 python3 -m fmhactl bench --overhead --shape "b=1,h=8,t=32,s=32,d=64,causal" \
  --shape "b=1,h=64,hkv=1,t=512,s=512,d=512,causal,wl=127,wr=0,sink,kvshared" \
  --shape "b=1,h=64,hkv=1,t=1,s=4096,d=512,causal,wl=127,wr=0,sink,topk=512,kvshared" --json
run dsv4 240 python3 -m fmhactl bench --model dsv4 --prompt 512 --prompt 2048 --greedy 16 --context 32768 --json
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
for s in overhead dsv4; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== GPU tests"; grep -E "^(tests/|SKIPPED|FAILED|ERROR)|passed|failed|Error" "$RAW/gpu-test.out" | tail -n 30
  python3 - "$RAW" <<'PY'
import json, sys
try:
    r = json.load(open(f"{sys.argv[1]}/overhead.out"))
    print(f"==== overhead ({r['gpu']}); fastpath {r.get('fastpath')}")
    for row in r["rows"]:
        cells = [f"{n} {v['host_us']:.1f}/{v['per_call_us']:.1f} us" if "host_us" in v else f"{n} skipped"
                 for n, v in row["impls"].items()]
        print(f"{row['shape']} [{row['backend'][:60]}]: host/per-call " + " | ".join(cells))
except (OSError, ValueError, KeyError) as exc:
    print(f"==== overhead: no JSON ({type(exc).__name__}: {exc})")
PY
  python3 scripts/device/dsv4_summary.py "$RAW/dsv4.out"
  for s in overhead dsv4; do echo "==== $s stderr (tail)"; tail -n 6 "$RAW/$s.err" 2>/dev/null; done
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
