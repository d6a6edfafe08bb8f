#!/usr/bin/env bash
# Set up and run the test suite (GPU tests skip themselves where there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Two workers (CI has 2 cores); a test file stays on one worker (module fixtures, build caches).
exec .venv/bin/python -m pytest -q -n "${FMHACTL_TEST_WORKERS:-2}" --dist loadfile "$@"
