#!/usr/bin/env bash
# Session 7, call A: where dynamic SMEM lands (scripts/device/dyn_smem_probe.py), issue 26's scaffold
# acceptance (the fixed raw-PTX kernel on fa, strict smoke), then issue 28's strict fa grid on the
# PTX path with the time left (builds from ptxgrid-cache.tar.xz). Logs under $OUT.
#   OUT=/tmp/s7a bash scripts/device/session7_a.sh BUDGET_S [PROJECT_BUDGET_S] [GRID_ORDER]
set -u -o pipefail
OUT=${OUT:-/tmp/s7a}; mkdir -p "$OUT"
budget=${1:-560}; project_budget=${2:-330}; order=${3:-strict:native:fa}
t_start=$(date +%s)
echo "== probe"; timeout 60 python3 scripts/device/dyn_smem_probe.py 2>&1 | tee "$OUT/probe.txt"
echo "== projects (scaffold)"
OUT="$OUT/projects" bash scripts/device/projects_accept.sh "$project_budget" scaffold > "$OUT/projects.txt" 2>&1
tail -n 12 "$OUT/projects.txt"
left=$(( budget - ( $(date +%s) - t_start ) - 10 ))
echo "== grid ($order, ${left}s)"
OUT="$OUT/grid" bash scripts/device/ptx_grid.sh "$left" "$order" 16 notes/ptx-path/call4-rows.jsonl.gz \
  notes/ptx-path/call5-rows.jsonl.gz notes/ptx-path/call6-rows.jsonl.gz > "$OUT/grid.txt" 2>&1
tail -n 25 "$OUT/grid.txt"
tar -C "$OUT" -czf "$OUT/projects.tgz" projects && rm -rf "$OUT/projects"
mv "$OUT/grid/rows.jsonl" "$OUT/grid-rows.jsonl" 2>/dev/null
tar -C "$OUT" -czf "$OUT/grid-logs.tgz" grid && rm -rf "$OUT/grid"  # few files come back: rows, logs, summaries
echo "total $(( $(date +%s) - t_start ))s"
