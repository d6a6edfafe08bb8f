#!/usr/bin/env bash
# Issue 6 on the lent H100: profile ref under ncu (NVTX-filtered), run the gpu-smoke scenario
# (JUnit to $OUT), prove M0 on grids seeds72 + awkward, then write and print STATUS.md.
#
#   cd <repo root> && OUT=/some/dir bash scripts/device/issue6.sh
#
# fmhactl is not pip-installed there: everything runs as `python3 -m fmhactl` with PYTHONPATH=.
# The results DB, build cache and .ncu-rep reports live in $FMHACTL_HOME (default $OUT/fmhactl-home)
# so they come back with $OUT. Exit status: the number of steps that failed (0 = all good).
set -u -o pipefail

OUT="${OUT:-/tmp/fmhactl-issue6}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export FMHACTL_HOME="${FMHACTL_HOME:-$OUT/fmhactl-home}"
SHAPE="${SHAPE:-b=4,h=16,t=1024,s=1024,d=128}"
FAILED=0
declare -a SUMMARY=()

step() {  # step NAME CMD... : run, tee to $OUT/NAME.log, record the exit code
    local name="$1"; shift
    echo
    echo "=== $name: $*"
    "$@" 2>&1 | tee "$OUT/$name.log"
    local rc=${PIPESTATUS[0]}
    SUMMARY+=("$name rc=$rc")
    if [ "$rc" -ne 0 ]; then FAILED=$((FAILED + 1)); fi
    return 0
}

echo "=== environment"
nvidia-smi -L 2>&1 || true
command -v ncu && ncu --version 2>&1 | tail -n 1
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())'
python3 -c 'import nvtx' 2>/dev/null && echo "nvtx package: present (domain filter)" || echo "nvtx package: absent (torch NVTX fallback filter)"
echo "FMHACTL_HOME=$FMHACTL_HOME"

# 1. profile: a real ncu run restricted to the launch's NVTX range; report kept, summary printed.
step profile python3 -m fmhactl profile ref --shape "$SHAPE" --png "$OUT/roofline-ref.png"
step profile-stalls python3 -m fmhactl profile ref --shape "$SHAPE" --recipe stalls
python3 -m fmhactl results --kind profile --limit 2 --json > "$OUT/profile-rows.json" 2>&1 || true
python3 - "$OUT/profile-rows.json" <<'PY' || true
import json, sys
for row in json.load(open(sys.argv[1])):
    m = row["metrics"]
    print(f"profile row {row['id']}: filter={m.get('filter')} nvtx_include={m.get('nvtx_include')!r} "
          f"backend={m.get('nvtx_backend')} parser={m.get('parser')} ncu={m.get('ncu_version')} "
          f"clock={m.get('clock_control')} report={m.get('report')} notes={m.get('notes')}")
PY

# 2. the GPU scenario end to end, with JUnit and JSON reports.
step scenario-gpu-smoke python3 -m fmhactl scenario run gpu-smoke \
    --junit "$OUT/gpu-smoke.junit.xml" --json-out "$OUT/gpu-smoke.json"

# 3. the proof of M0 (ref on seeds72 + awkward) and all of ref's builds, so status has real numbers.
step build-ref python3 -m fmhactl build ref
step verify-seeds72 python3 -m fmhactl verify ref --grid seeds72
step verify-awkward python3 -m fmhactl verify ref --grid awkward

# 4. status from the DB: STATUS.md + milestones/*.md under $OUT/status, then the regression check.
step status python3 -m fmhactl status --out "$OUT/status"
step status-check python3 -m fmhactl status --check --out "$OUT/status"
python3 -m fmhactl status --json --out "$OUT/status" --check > "$OUT/status.json" 2>/dev/null || true
echo; echo "=== STATUS.md"; cat "$OUT/status/STATUS.md" 2>/dev/null || echo "(not written)"
echo; echo "=== milestones/M0.md"; cat "$OUT/status/milestones/M0.md" 2>/dev/null || echo "(not written)"

# 5. the GPU-marked pytest (gpu-smoke in a private store), when pytest is there.
if python3 -c 'import pytest' 2>/dev/null; then
    step pytest-gpu python3 -m pytest -q -m gpu tests/test_scenario.py
fi

echo; echo "=== summary"
printf '%s\n' "${SUMMARY[@]}"
echo "failed steps: $FAILED"
exit "$FAILED"
