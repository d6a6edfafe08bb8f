#!/usr/bin/env bash
# Issue 24, session 7 (helper "decode7"): fused split-KV merge, split-heuristic sweep, the llama
# greedy miss diagnosed, the qwen2 T=2048 prefill re-measured. One device call.
#
#   OUT=/some/dir bash scripts/device/op_session7.sh
#
# Run from the root of the tree under test. Writes into $OUT (steps most important first, each
# capped by what is left of BUDGET, default 460 s):
#   build.log                 the decode kernels (+ sm90_persistent, ref): registers, spills
#   pytest_decode.log         pytest -m gpu tests/torch/test_decode_gpu.py (grid x {fused, launch} merge,
#                             FA rule + LSE, counters back at 0, CUDA graph replays, compile, opcheck, padded)
#   sweep.json                scripts/device/op_session7_sweep.py: CTAS_PER_SM x MIN_SPLIT_KEYS on the
#                             decode shapes; its best pair is FMHACTL_DECODE_SPLITS for every later step
#   decode_bench.json         fmhactl bench --decode --json: op (fused) vs combine-launch vs no-split vs
#                             cuDNN vs flash, kernel µs (L2 flushed), per-call µs, HBM GB/s
#   probe_{llama,qwen2}.json  fmhactl/bench/greedy_probe.py: greedy 128 after 2048, rounds interleaved,
#                             host µs/step, GC, plan builds, cProfile top, kernel µs/step
#   model_{llama,qwen2}.json  bench --model: prefill 17/511/2048(/8192) + padded + greedy 128 after 2048
#   pytest_torch.log          pytest -m gpu tests/torch (the rest)
#   qwen2_2048.json           qwen2-small prefill T=2048 three times in a row, 30 iterations each
#   device.log, summary.txt
# STEPS="build sweep ..." runs only the steps named. Exit status: the number of failed steps.
set -u -o pipefail

OUT="${OUT:-/tmp/op7}"
mkdir -p "$OUT"
export FMHACTL_HOME="${FMHACTL_HOME:-/tmp/fmhactl-op7}"
PY="${PYTHON:-python3}"
source "$(dirname "${BASH_SOURCE[0]}")/step.sh"  # step NAME SECONDS CMD..., SUMMARY, FAILED
RUN=("$PY" scripts/device/run_by_path.py)
MODEL=fmhactl/bench/model.py
PROBE=fmhactl/bench/greedy_probe.py
LLAMA='{"name": "llama-small", "prompt_lengths": [17, 511, 2048], "warmup": 3, "iters": 10, "padded": true, "greedy_tokens": 128}'
QWEN2='{"name": "qwen2-small", "prompt_lengths": [17, 511, 2048, 8192], "warmup": 3, "iters": 10, "padded": true, "greedy_tokens": 128}'
QWEN2_2048='{"name": "qwen2-small", "prompt_lengths": [2048, 2048, 2048], "warmup": 5, "iters": 30}'

"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name())" | tee -a "$OUT/device.log"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
BUDGET="${BUDGET:-460}"
cap() { local left=$((BUDGET - SECONDS - 8)); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
step build "$(cap 150)" "$PY" scripts/device/op_session7_build.py > "$OUT/build.log"
step pytest-decode "$(cap 130)" "$PY" -m pytest -q -m gpu tests/torch/test_decode_gpu.py -p no:cacheprovider \
    > "$OUT/pytest_decode.log"
step sweep "$(cap 60)" "$PY" scripts/device/op_session7_sweep.py "$OUT/sweep.json" > "$OUT/sweep.log"
BEST="$(sed -n 's/^best \([0-9]*,[0-9]*\)$/\1/p' "$OUT/sweep.log" 2>/dev/null | tail -1)"
if [ -n "$BEST" ]; then export FMHACTL_DECODE_SPLITS="$BEST"; fi
echo "FMHACTL_DECODE_SPLITS=${FMHACTL_DECODE_SPLITS:-<defaults>}" | tee -a "$OUT/device.log"
step decode-bench "$(cap 70)" "$PY" -m fmhactl bench --decode --json > "$OUT/decode_bench.json"
step probe-llama "$(cap 60)" "${RUN[@]}" "$PROBE" run_greedy_probe '{"name": "llama-small"}' > "$OUT/probe_llama.json"
step model-llama "$(cap 70)" "${RUN[@]}" "$MODEL" run_model_bench "$LLAMA" > "$OUT/model_llama.json"
step model-qwen2 "$(cap 90)" "${RUN[@]}" "$MODEL" run_model_bench "$QWEN2" > "$OUT/model_qwen2.json"
step pytest-torch "$(cap 120)" "$PY" -m pytest -q -m gpu tests/torch -p no:cacheprovider \
    --ignore=tests/torch/test_decode_gpu.py > "$OUT/pytest_torch.log"
step probe-qwen2 "$(cap 50)" "${RUN[@]}" "$PROBE" run_greedy_probe '{"name": "qwen2-small"}' > "$OUT/probe_qwen2.json"
step qwen2-2048 "$(cap 45)" "${RUN[@]}" "$MODEL" run_model_bench "$QWEN2_2048" > "$OUT/qwen2_2048.json"
{
    printf '%s\n' "${SUMMARY[@]}"
    echo "FMHACTL_DECODE_SPLITS=${FMHACTL_DECODE_SPLITS:-<defaults>}"
    echo "pytest decode: $(tail -1 "$OUT/pytest_decode.log" 2>/dev/null)"
    echo "pytest torch:  $(tail -1 "$OUT/pytest_torch.log" 2>/dev/null)"
    tail -2 "$OUT/sweep.log" 2>/dev/null
    "$PY" scripts/device/op_session7_summary.py "$OUT" 2>&1
} | tee "$OUT/summary.txt"
exit "$FAILED"
