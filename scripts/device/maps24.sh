#!/usr/bin/env bash
# Session 24: project kernels taking TMA maps in their own params (tests/fixtures/tma_project: native
# TMA on sm_90a, the PTX path strict, a store race named through the declared box), the PTX path's
# bulk-group tests, and where a new KV length's host time goes on the op's family route.
#   OUT=/dir bash scripts/device/maps24.sh [BUDGET]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start maps24 420 "${1:-}"
run project-gpu ${PROJECT_CAP:-300} python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/project
run bulk-gpu 90 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/ptx/test_bulk_groups.py
run refresh-probe 60 python3 scripts/device/kv_refresh_probe.py
[ -n "${DRY:-}" ] && exit 0
for s in project-gpu bulk-gpu refresh-probe; do
  echo "==== $s"; tail -n 30 "$RAW/$s.out"; tail -n 5 "$RAW/$s.err"
done > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
cat "$RAW/device.log" "$OUT/summary.txt"
