#!/usr/bin/env bash
# Issue 24 measured again on one H100 with bench's GPU head start (fmhactl/bench/job.py) and the
# cached launch path for feature calls: every torch GPU test, then the op vs SDPA per call on the
# sm90 suite + B32 H16 S512 D128 (+ OVERHEAD_EXTRA="--shape ..."; bench --overhead: per-call µs is the GPU time at these shapes),
# the decode grid (bench --decode), the kernel alone on the same suite (bench sm90_persistent), and the llama / qwen2 models (prefill 17/511/2048(/8192), a
# padded batch of 4, greedy 128 after 2048).   OUT=/dir bash scripts/device/op24.sh [BUDGET]   carry: .whl
# $OUT: summary.txt, overhead.json, decode.json, kernels.json, model_llama.json, model_qwen2.json, raw.tgz.
set -u -o pipefail
OUT=${OUT:-/tmp/op24}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/op24-raw.XXXX)
source scripts/device/steps.sh  # device_python, left, log, run, collect_rows
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-op24}
BUDGET=${BUDGET:-${1:-560}}
start=$(date +%s)
STEP_RESERVE=15 STEP_MIN=15
# every shape of the sm90 suite (the overhead bench takes its b64 T=1 row since session 12)
SUITE=$(python3 -c "import tomllib; print(' '.join('--shape ' + s for s in tomllib.load(open('scenarios/bench/sm90.toml', 'rb'))['shapes']))")
log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
run gpu-test ${GPU_TEST_CAP:-200} python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch
run overhead ${OVERHEAD_CAP:-120} python3 -m fmhactl bench --overhead --json $SUITE --shape b=32,h=16,t=512,s=512,d=128 --shape b=1,h=8,t=32,s=32,d=64,causal ${OVERHEAD_EXTRA:-}
run decode 70 python3 -m fmhactl bench --decode --json
# the kernel the op picks per shape: sm90_persistent (hd 64/128), sm90_pingpong (hd256)
K128=$(python3 -c "import tomllib; print(' '.join('--shape ' + s for s in tomllib.load(open('scenarios/bench/sm90.toml', 'rb'))['shapes'] if 'd=256' not in s))")
run kernels 150 python3 -m fmhactl bench sm90_persistent $K128 --shape b=32,h=16,t=512,s=512,d=128 --json
run kernels256 40 python3 -m fmhactl bench sm90_pingpong --shape b=8,h=8,t=4096,s=4096,d=256 --json
run model_llama ${LLAMA_CAP:-90} python3 -m fmhactl bench --model llama-small --prompt 17 --prompt 511 --prompt 2048 ${LLAMA_8K:+--prompt 8192} --padded --greedy 128 --json
run model_qwen2 120 python3 -m fmhactl bench --model qwen2-small --prompt 17 --prompt 511 --prompt 2048 --prompt 8192 --padded --greedy 128 --json
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
for s in overhead decode kernels kernels256 model_llama model_qwen2; do cp "$RAW/$s.out" "$OUT/$s.json" 2>/dev/null; done
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== torch GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$RAW/gpu-test.out" | tail -n 25
  python3 scripts/device/op24_summary.py "$OUT"
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
