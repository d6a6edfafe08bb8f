#!/usr/bin/env bash
# Session 7, call D: the PTX path after the dynamic-SMEM alignment fix (fmhactl/ptx/dyn_smem.py):
#   probe      where launches put dynamic SMEM, native and PTX path (they should now agree);
#   scaffold   (beside the grid, under its MPS daemon) the raw-PTX scaffold verifies on fa through the
#              PTX path, and on smoke under strict; the same kernel with its dynamic SMEM declared
#              __align__(1024) (as it was when it failed everywhere) verifies on smoke;
#   grid       issue 28's last strict-fa configs on the PTX path (no kill before the budget: under MPS
#              a killed client takes its neighbours with it).
#   OUT=/tmp/s7d PROJECT_DIR=/tmp/s7proj/attn bash scripts/device/session7_d.sh BUDGET_S
set -u -o pipefail
OUT=${OUT:-/tmp/s7d}; mkdir -p "$OUT"
budget=${1:-560}
t_start=$(date +%s)
echo "== probe"; timeout 90 python3 scripts/device/dyn_smem_probe.py 2>&1 | grep -v "rewritten into" | tee "$OUT/probe.txt"
P=$(cd "${PROJECT_DIR:?}" && pwd)
A1024=/tmp/s7proj-align1024/attn; rm -rf "$A1024"; mkdir -p "$(dirname "$A1024")"; cp -r "$P" "$A1024"
sed -i 's/extern __shared__ __align__(16) unsigned char smem\[\];/extern __shared__ __align__(1024) unsigned char smem[];/' \
  "$A1024/kernels/sm100_raw_ptx.cu"
grep -c "__align__(1024) unsigned char smem" "$A1024/kernels/sm100_raw_ptx.cu" | sed 's/^/align-1024 copy declarations: /'
fm="python3 -m fmhactl"
export PTX_GRID_EXTRAS_CMD="unset FMHACTL_HOME; cd $P && FMHACTL_EMU_PTXAS_O=0 $fm verify sm100_raw_ptx --grid fa --seed 27 --timeout 120 --emulation fast > $OUT/scaffold-fa.log 2>&1; echo \"scaffold raw_ptx fa fast rc=\$?\"; tail -n 1 $OUT/scaffold-fa.log; \
FMHACTL_EMU_PTXAS_O=0 $fm verify sm100_raw_ptx --grid smoke --seed 27 --timeout 120 --emulation strict > $OUT/scaffold-strict.log 2>&1; echo \"scaffold raw_ptx smoke strict rc=\$?\"; tail -n 1 $OUT/scaffold-strict.log; \
cd $A1024 && FMHACTL_EMU_PTXAS_O=0 $fm verify sm100_raw_ptx --grid smoke --seed 27 --timeout 120 --emulation fast > $OUT/align1024-smoke.log 2>&1; echo \"align-1024 copy smoke fast rc=\$?\"; tail -n 1 $OUT/align1024-smoke.log"
left=$(( budget - ( $(date +%s) - t_start ) - 10 ))
echo "== grid + scaffold (${left}s)"
PTX_GRID_SHARD=1 PTX_GRID_CONFIG_TIMEOUT_S=$left OUT="$OUT/grid" bash scripts/device/ptx_grid.sh "$left" strict:native:fa 16 \
  notes/ptx-path/call{4,5,6,7,8,9,10}-rows.jsonl.gz > "$OUT/grid.txt" 2>&1
tail -n 30 "$OUT/grid.txt"
mv "$OUT/grid/rows.jsonl" "$OUT/grid-rows.jsonl" 2>/dev/null
tar -C "$OUT" -czf "$OUT/logs.tgz" grid scaffold-fa.log scaffold-strict.log align1024-smoke.log && rm -rf "$OUT/grid"
echo "total $(( $(date +%s) - t_start ))s"
