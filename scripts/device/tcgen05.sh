#!/usr/bin/env bash
# tcgen05 emulator acceptance run on a Hopper GPU (issue 4). Run from the repo root:
#   bash scripts/device/tcgen05.sh
# Needs python3 with torch (CUDA) and cuda-bindings (NVRTC); fmhactl need not be installed.
# Runs the GPU tests verbosely (MMA SS/TS matrix, ld/st agreement, conformance errors), then the
# emulated MMA rate; the last line printed is the rate. Logs go to $OUT/ when OUT is set.
set -uo pipefail

cd "$(dirname "$0")/../.."
export PYTHONPATH=".:tests/tcgen05${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export FMHACTL_HOME="${FMHACTL_HOME:-$(mktemp -d)}"   # build cache for this run
LOG_DIR="${OUT:-}"
[ -n "$LOG_DIR" ] && mkdir -p "$LOG_DIR"

log() {  # log NAME: tee stdin to $OUT/NAME when OUT is set
    if [ -n "$LOG_DIR" ]; then tee "$LOG_DIR/$1"; else cat; fi
}

python3 - <<'PY' 2>&1 | log env.txt
import torch, cuda.bindings
print("torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
print("cuda-bindings", cuda.bindings.__version__)
PY

status=0
python3 -m pytest -v -rs -p no:cacheprovider -m gpu tests/tcgen05/test_tc5_gpu.py \
    --junitxml="${LOG_DIR:-/tmp}/tcgen05-gpu-junit.xml" 2>&1 | log pytest-gpu.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

python3 tests/tcgen05/tc5_rate.py 2>&1 | log rate.txt
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
