#!/usr/bin/env bash
# Issue 14 (M6) on a GPU: the torch op and the transformers integration, recorded for `fmhactl status`.
#
#   cd <repo root> && OUT=/some/dir bash scripts/device/torch_m6.sh
#
# Steps: python -m fmhactl.torch.checks --record (opcheck spread, llama-small logits eager and
# torch.compile(fullgraph=True) for prompts 1/17/511/2048, CUDA graph capture + replay), the model
# bench (sdpa vs fmhactl prefill tokens/s), the gpu pytest file, then `fmhactl status` into $OUT.
# Results DB and build cache in $FMHACTL_HOME (default /tmp/fmhactl-torch-home); the DB is copied
# to $OUT. Exit status: the number of steps that failed.
set -u -o pipefail

OUT="${OUT:-/tmp/fmhactl-torch}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export FMHACTL_HOME="${FMHACTL_HOME:-/tmp/fmhactl-torch-home}"
PY="${PYTHON:-python3}"
source "$(dirname "${BASH_SOURCE[0]}")/step.sh"  # step NAME SECONDS CMD..., SUMMARY, FAILED

"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name())" | tee -a "$OUT/device.log"
step checks 300 "$PY" -m fmhactl.torch.checks --record --json > "$OUT/checks.json"
step model-bench 110 "$PY" -m fmhactl bench --model llama-small --prompt 1 --prompt 17 --prompt 511 --prompt 2048 --json > "$OUT/model_bench.json"
step pytest-gpu 80 "$PY" -m pytest -q -m gpu tests/torch -p no:cacheprovider ${PYTEST_K:+-k "$PYTEST_K"} > "$OUT/pytest.log"
step status 30 "$PY" -m fmhactl status --out "$OUT/status" > "$OUT/status.txt"
cp "$FMHACTL_HOME/results.sqlite" "$OUT/" 2>/dev/null || true
echo
printf '%s\n' "${SUMMARY[@]}"
tail -3 "$OUT/pytest.log" 2>/dev/null
grep -E "M6" "$OUT/status/STATUS.md" 2>/dev/null | head -3
exit "$FAILED"
