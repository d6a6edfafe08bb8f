#!/usr/bin/env bash
# Issue 24 (the op at SDPA's host cost): before/after numbers and the torch GPU tests, one device call.
#
#   OUT=/some/dir BEFORE=/path/to/tree/at/27e1060 bash scripts/device/op_session5.sh
#
# Run from the root of the tree under test ("after"). BEFORE is a checkout of the tree before the
# cached launch path (git archive 27e1060 fmhactl kernels scenarios pyproject.toml); it is timed
# with this tree's bench modules loaded by path, so both sides are measured the same way, each in
# its own process (op and SDPA always in the same process). Writes into $OUT:
#   overhead_{after,before}.json  fmhactl bench --overhead: host µs/call and per-call µs, op vs SDPA/cuDNN/flash
#   model_{llama,qwen2}_{after,before}.json  bench --model prefill tokens/s, sdpa vs fmhactl
#   pytest_gpu.log                 pytest -m gpu tests/torch (opcheck, models eager+compile, CUDA graph, no sync,
#                                  cached path vs general path, padded batches vs sdpa)
# STEPS="build overhead-after ..." runs only the steps named (default: all).
# Exit status: the number of steps that failed. The summary (scripts/device/op_session5_summary.py) prints last.
set -u -o pipefail

OUT="${OUT:-/tmp/op5}"
mkdir -p "$OUT"
AFTER="$PWD"
BEFORE="${BEFORE:-}"
BASE_PATH="${PYTHONPATH:-}"
export FMHACTL_HOME="${FMHACTL_HOME:-/tmp/fmhactl-op5}"
PY="${PYTHON:-python3}"
SHAPES=(b=1,h=8,t=32,s=32,d=64,causal b=1,h=16,hkv=4,t=17,s=17,d=64,causal b=1,h=16,hkv=4,t=1,s=2048,d=128
        b=16,h=16,t=1024,s=1024,d=64 b=16,h=16,t=1024,s=1024,d=64,causal
        b=32,h=16,t=512,s=512,d=128)
source "$(dirname "${BASH_SOURCE[0]}")/step.sh"  # step NAME SECONDS CMD..., SUMMARY, FAILED

# FUNCTION of this tree's module FILE, with fmhactl imported from the tree named (run_by_path.py).
RUN_AFTER=(env "PYTHONPATH=$AFTER${BASE_PATH:+:$BASE_PATH}" "$PY" "$AFTER/scripts/device/run_by_path.py")
RUN_BEFORE=(env "PYTHONPATH=$BEFORE${BASE_PATH:+:$BASE_PATH}" "$PY" "$AFTER/scripts/device/run_by_path.py")
OVERHEAD=("$AFTER/fmhactl/bench/overhead.py" run_overhead '{"iters": 100}' "${SHAPES[@]}")
MODEL="$AFTER/fmhactl/bench/model.py"
LLAMA='{"name": "llama-small", "prompt_lengths": [17, 511, 2048], "warmup": 3, "iters": 10}'
QWEN2='{"name": "qwen2-small", "prompt_lengths": [17, 511, 2048, 8192], "warmup": 3, "iters": 10}'
PADDED='"padded": true}'  # after only: the tree before refused padded batches

"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name())" | tee -a "$OUT/device.log"
export PYTHONPATH="$AFTER${BASE_PATH:+:$BASE_PATH}"
step build 240 "$PY" -m fmhactl build sm90_persistent ref --arch sm_90a --jobs 8
step overhead-after 100 "${RUN_AFTER[@]}" "${OVERHEAD[@]}" > "$OUT/overhead_after.json"
step model-llama-after 90 "${RUN_AFTER[@]}" "$MODEL" run_model_bench "${LLAMA%\}}, $PADDED" > "$OUT/model_llama_after.json"
step model-qwen2-after 90 "${RUN_AFTER[@]}" "$MODEL" run_model_bench "${QWEN2%\}}, $PADDED" > "$OUT/model_qwen2_after.json"
if [ -n "$BEFORE" ]; then
    step overhead-before 100 "${RUN_BEFORE[@]}" "${OVERHEAD[@]}" > "$OUT/overhead_before.json"
    step model-llama-before 60 "${RUN_BEFORE[@]}" "$MODEL" run_model_bench "$LLAMA" > "$OUT/model_llama_before.json"
    step model-qwen2-before 60 "${RUN_BEFORE[@]}" "$MODEL" run_model_bench "$QWEN2" > "$OUT/model_qwen2_before.json"
fi
step pytest-gpu 200 "$PY" -m pytest -q -m gpu tests/torch -p no:cacheprovider > "$OUT/pytest_gpu.log"
echo
printf '%s\n' "${SUMMARY[@]}"
tail -3 "$OUT/pytest_gpu.log" 2>/dev/null
"$PY" scripts/device/op_session5_summary.py "$OUT" || true
exit "$FAILED"
