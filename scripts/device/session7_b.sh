#!/usr/bin/env bash
# Session 7, call B: issue 28's strict fa grid (PTX path and tc5:: build, builds from
# ptxgrid-cache.tar.xz) with issue 26's scaffold acceptance beside it under the same MPS daemon
# (PROJECT_DIR: a project made by `fmhactl init` here, its emulated builds cached with the device's
# toolchain), and the dynamic-SMEM placement probe first. Logs under $OUT.
#   OUT=/tmp/s7b PROJECT_DIR=.s7proj/attn bash scripts/device/session7_b.sh BUDGET_S [GRID_ORDER]
set -u -o pipefail
OUT=${OUT:-/tmp/s7b}; mkdir -p "$OUT"
budget=${1:-560}; order=${2:-strict:native:fa+strict:tc5:fa}
t_start=$(date +%s)
echo "== probe"; timeout 60 python3 scripts/device/dyn_smem_probe.py 2>&1 | tee "$OUT/probe.txt"
if [ -n "${PROJECT_DIR:-}" ]; then PROJECT_DIR=$(cd "$PROJECT_DIR" && pwd); fi
export PTX_GRID_EXTRAS_CMD="OUT=$OUT/projects PROJECT_DIR=${PROJECT_DIR:-} bash $PWD/scripts/device/projects_accept.sh $(( budget - 40 )) scaffold"
left=$(( budget - ( $(date +%s) - t_start ) - 10 ))
echo "== grid ($order, ${left}s) with the scaffold acceptance beside it"
OUT="$OUT/grid" bash scripts/device/ptx_grid.sh "$left" "$order" 16 notes/ptx-path/call4-rows.jsonl.gz \
  notes/ptx-path/call5-rows.jsonl.gz notes/ptx-path/call6-rows.jsonl.gz notes/ptx-path/call7-rows.jsonl.gz \
  > "$OUT/grid.txt" 2>&1
tail -n 25 "$OUT/grid.txt"
echo "== projects"; cat "$OUT/projects/summary.txt" 2>/dev/null
tar -C "$OUT" -czf "$OUT/projects.tgz" projects && rm -rf "$OUT/projects"
mv "$OUT/grid/rows.jsonl" "$OUT/grid-rows.jsonl" 2>/dev/null
tar -C "$OUT" -czf "$OUT/grid-logs.tgz" grid && rm -rf "$OUT/grid"
echo "total $(( $(date +%s) - t_start ))s"
