#!/usr/bin/env bash
# Session 7, call C: where launches put dynamic SMEM (native and PTX path), then issue 28's strict fa
# grid alone under MPS (what is left, and the CRASH/HANG rows of call 8 again). Logs under $OUT.
#   OUT=/tmp/s7c bash scripts/device/session7_c.sh BUDGET_S [GRID_ORDER]
set -u -o pipefail
OUT=${OUT:-/tmp/s7c}; mkdir -p "$OUT"
budget=${1:-560}; order=${2:-strict:native:fa+strict:tc5:fa}
t_start=$(date +%s)
echo "== probe"; timeout 90 python3 scripts/device/dyn_smem_probe.py 2>&1 | tee "$OUT/probe.txt"
left=$(( budget - ( $(date +%s) - t_start ) - 10 ))
echo "== grid ($order, ${left}s)"
OUT="$OUT/grid" bash scripts/device/ptx_grid.sh "$left" "$order" 16 notes/ptx-path/call{4,5,6,7,8,9}-rows.jsonl.gz \
  > "$OUT/grid.txt" 2>&1
tail -n 28 "$OUT/grid.txt"
mv "$OUT/grid/rows.jsonl" "$OUT/grid-rows.jsonl" 2>/dev/null
tar -C "$OUT" -czf "$OUT/grid-logs.tgz" grid && rm -rf "$OUT/grid"
echo "total $(( $(date +%s) - t_start ))s"
