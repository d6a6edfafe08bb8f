#!/usr/bin/env bash
# The split-KV decode kernels at head dims beyond 64/128 (branch dechd): hd256 compiled, every other
# multiple of 16 in 32..256 on the next wider kernel masked, instead of zero-padding the KV cache.
#   OUT=/dir bash scripts/device/dechd.sh [BUDGET_S]        carry: .whl
# Steps: build the decode cubin (registers / spills per kernel); the new head dims' GPU tests;
# bench --decode at T=1 b4 h32 hkv8 s4096 for d in 64 80 96 128 256 (fmhactl vs cuDNN and flash
# SDPA, same process); the old pad-the-cache way at d 80 and 96 for comparison; then the hd64/128
# decode and head-dim padding suites for regressions. ~300 s of a 480 s budget.
# $OUT: summary.txt, decode.json, padded.json, pytest-*.txt, device.log.
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start dechd 480 "${1:-}"  # OUT, RAW, FMHACTL_HOME, BUDGET, start
STEP_RESERVE=15 STEP_MIN=10
run build 60 python3 scripts/device/dechd_steps.py build
PYTEST="python3 -m pytest -q -rs -m gpu -p no:cacheprovider"
run pytest-dechd 180 $PYTEST tests/torch/test_decode_head_dims_gpu.py
SHAPES=()
for d in 64 80 96 128 256; do SHAPES+=(--shape "b=4,h=32,hkv=8,t=1,s=4096,d=$d"); done
run bench 120 python3 -m fmhactl bench --decode --json "${SHAPES[@]}"
run padded 45 python3 scripts/device/dechd_steps.py padded b=4,h=32,hkv=8,t=1,s=4096,d=80 b=4,h=32,hkv=8,t=1,s=4096,d=96
# regressions: the hd64/128 decode suite (its transformers greedy test aside) and the padding suite
run pytest-decode 90 $PYTEST tests/torch/test_decode_gpu.py -k "not greedy"
run pytest-hdpad 90 $PYTEST tests/torch/test_head_dim_padding_gpu.py
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi
cp "$RAW/bench.out" "$OUT/decode.json" 2>/dev/null
cp "$RAW/padded.out" "$OUT/padded.json" 2>/dev/null
for t in dechd decode hdpad; do
  { tail -n 40 "$RAW/pytest-$t.out"; tail -n 5 "$RAW/pytest-$t.err"; } > "$OUT/pytest-$t.txt" 2>/dev/null
done
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== build"; grep split "$RAW/build.out"; tail -n 3 "$RAW/build.err"
  for t in dechd decode hdpad; do
    echo "==== GPU tests: $t"; grep -E "^(FAILED|ERROR)|passed|failed|[Ee]rror" "$RAW/pytest-$t.out" | tail -n 25
  done
  echo "==== bench --decode (T=1 b4 h32 hkv8 s4096); old pad: the padded way, per-call µs"
  tail -n 3 "$RAW/bench.err"; tail -n 3 "$RAW/padded.err"
  python3 scripts/device/dechd_summary.py "$OUT/decode.json" "$OUT/padded.json"
} > "$OUT/summary.txt" 2>&1
cp "$RAW/device.log" "$OUT/device.log"
rm -rf "$RAW"
cat "$OUT/summary.txt"
