#!/usr/bin/env bash
# Issue 24, session 6 (helper "decode"): split-KV decode through the op, one device call.
#
#   OUT=/some/dir bash scripts/device/op_session6.sh
#
# Run from the root of the tree under test. Writes into $OUT:
# Steps, most important first, each capped by what is left of BUDGET (default 395 s):
#   pytest_decode.log        pytest -m gpu tests/torch/test_decode_gpu.py (the decode grid vs explicit math,
#                            padded one-launch steps, CUDA graph, compile fullgraph, growing cache, greedy)
#   decode_bench.json        fmhactl bench --decode --json: op vs cuDNN vs flash, kernel µs (L2 flushed),
#                            per-call µs, HBM GB/s (T=1/4/16, KV 2k-32k, hd64/128, GQA)
#   model_{llama,qwen2}.json bench --model: prefill 17/511/2048(/8192) + padded + greedy 128 after 2048
#   pytest_torch.log         pytest -m gpu tests/torch (the rest: opcheck, models, graphs, cached path, TMA)
#   overhead.json            bench --overhead: host µs/call op vs SDPA (tiny prefill, two decode steps)
#   device.log, summary.txt
# STEPS="build decode-bench ..." runs only the steps named. Exit status: the number of failed steps.
set -u -o pipefail

OUT="${OUT:-/tmp/op6}"
mkdir -p "$OUT"
export FMHACTL_HOME="${FMHACTL_HOME:-/tmp/fmhactl-op6}"
PY="${PYTHON:-python3}"
source "$(dirname "${BASH_SOURCE[0]}")/step.sh"  # step NAME SECONDS CMD..., SUMMARY, FAILED
RUN=("$PY" scripts/device/run_by_path.py)
MODEL=fmhactl/bench/model.py
LLAMA='{"name": "llama-small", "prompt_lengths": [17, 511, 2048], "warmup": 3, "iters": 10, "padded": true, "greedy_tokens": 128}'
QWEN2='{"name": "qwen2-small", "prompt_lengths": [17, 511, 2048, 8192], "warmup": 3, "iters": 10, "padded": true, "greedy_tokens": 128}'

"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name())" | tee -a "$OUT/device.log"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
# BUDGET: seconds for all steps (the device call's limit minus its set-up); each step gets at most
# what is left (minus 10 s for the summary), most important first.
BUDGET="${BUDGET:-395}"
cap() { local left=$((BUDGET - SECONDS - 10)); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
step build "$(cap 200)" "$PY" -c "
from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.registry import load_registry
from fmhactl.torch import decode
from concurrent.futures import ThreadPoolExecutor
reg = load_registry()
jobs = [decode.variant(), reg['sm90_persistent'], reg['ref']]
with ThreadPoolExecutor(3) as pool:
    for r in pool.map(lambda v: build(v, BuildTarget('sm_90a')), jobs):
        print(r.variant, [(k.kernel, k.registers, k.spill_stores) for k in r.kernels][:4])
"
step pytest-decode "$(cap 150)" "$PY" -m pytest -q -m gpu tests/torch/test_decode_gpu.py -p no:cacheprovider \
    > "$OUT/pytest_decode.log"
step decode-bench "$(cap 90)" "$PY" -m fmhactl bench --decode --json > "$OUT/decode_bench.json"
step model-llama "$(cap 75)" "${RUN[@]}" "$MODEL" run_model_bench "$LLAMA" > "$OUT/model_llama.json"
step model-qwen2 "$(cap 90)" "${RUN[@]}" "$MODEL" run_model_bench "$QWEN2" > "$OUT/model_qwen2.json"
step pytest-torch "$(cap 200)" "$PY" -m pytest -q -m gpu tests/torch -p no:cacheprovider \
    --ignore=tests/torch/test_decode_gpu.py > "$OUT/pytest_torch.log"
step overhead "$(cap 60)" "$PY" -m fmhactl bench --overhead --json --iters 100 --shape b=1,h=8,t=32,s=32,d=64,causal \
    --shape b=1,h=16,hkv=4,t=1,s=2048,d=128 --shape b=1,h=32,hkv=8,t=1,s=8192,d=128 > "$OUT/overhead.json"
{
    printf '%s\n' "${SUMMARY[@]}"
    echo "pytest decode: $(tail -1 "$OUT/pytest_decode.log" 2>/dev/null)"
    echo "pytest torch:  $(tail -1 "$OUT/pytest_torch.log" 2>/dev/null)"
    "$PY" scripts/device/op_session6_summary.py "$OUT" 2>&1
} | tee "$OUT/summary.txt"
exit "$FAILED"
