#!/usr/bin/env bash
# Create .venv (seeing system packages, so a machine's own CUDA torch is used where it has one)
# and install fmhactl with its test tools. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv --system-site-packages .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
# A CPU build of torch lies on these machines' disk; asking for it by version keeps pip from
# downloading a multi-GB CUDA build. A machine that already has torch keeps its own.
if ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q "torch==2.13.0"
fi
.venv/bin/python -m pip install -q -e ".[test,tui,nvtx,hf,ray]"
