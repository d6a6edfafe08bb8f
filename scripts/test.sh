#!/usr/bin/env bash
# Set up and run the test suite (GPU tests skip themselves where there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -q "$@"
