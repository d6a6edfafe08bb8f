#!/usr/bin/env bash
# op2 (issue 24 follow-up): attn_implementation="fmhactl" under torch.compile(fullgraph=True) on
# the GPU, one device call. Run from the root of the tree under test:
#
#   OUT=/some/dir bash scripts/device/op2_compile.sh
#
# Writes into $OUT: checks.json (python -m fmhactl.torch.checks --json: every check, model-compile
# with the op's run count inside the compiled forward and a packed prompt), pytest_gpu.log
# (pytest -m gpu tests/torch), op5.tgz + op5.log (scripts/device/op_session5.sh's "after" steps:
# host overhead and model prefill numbers), device.log (stderr of every step). Exit status: the
# number of steps that failed. A summary prints last.
set -u -o pipefail

OUT="${OUT:-/tmp/op2}"
mkdir -p "$OUT"
export FMHACTL_HOME="${FMHACTL_HOME:-/tmp/fmhactl-op2}"
PY="${PYTHON:-python3}"
HERE="$(dirname "${BASH_SOURCE[0]}")"
source "$HERE/step.sh"  # step NAME SECONDS CMD..., SUMMARY, FAILED
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name())" | tee -a "$OUT/device.log"
step build 150 "$PY" -m fmhactl build sm90_persistent ref --arch sm_90a --jobs 8
step checks 200 "$PY" -m fmhactl.torch.checks --json > "$OUT/checks.json"
step pytest-gpu 200 "$PY" -m pytest -q -m gpu tests/torch -p no:cacheprovider > "$OUT/pytest_gpu.log"
mkdir -p "$OUT/op5"
OUT="$OUT/op5" STEPS="overhead-after model-llama-after model-qwen2-after" PYTHONPATH="${PYTHONPATH#"$PWD:"}" \
    timeout 200 bash "$HERE/op_session5.sh" > "$OUT/op5.log" 2>&1
SUMMARY+=("op5-after rc=$?")
tar -czf "$OUT/op5.tgz" -C "$OUT" op5 && rm -rf "$OUT/op5"

echo
printf '%s\n' "${SUMMARY[@]}"
tail -1 "$OUT/pytest_gpu.log" 2>/dev/null
"$PY" - "$OUT/checks.json" <<'PY' || true
import json, sys
for check in json.load(open(sys.argv[1])):
    print(f"{check['name']:14} {check['status']}")
    for p in check["metrics"].get("prompts", []):
        print(f"  T={p['prompt_length']:5} packed={p['packed']!s:5} err={p['max_abs_err']:.4g} tol={p['tolerance']:.4g}"
              f" op_runs={p.get('op_runs_in_compiled_forward', '-')}/{p.get('op_runs_wanted', '-')} {p['passed']}")
    if "error" in check["metrics"]:
        print("  error:", check["metrics"]["error"])
PY
tail -12 "$OUT/op5.log"
exit "$FAILED"
