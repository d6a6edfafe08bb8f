#!/usr/bin/env bash
# Session 7, call E: the raw-PTX scaffold on fa through the PTX path, alone on the GPU (no MPS: in call
# D a config of it waited behind the grid's long kernels under MPS, was killed at its limit and took
# the server's other clients with it); then, with the time left, the one strict-fa config of issue 28
# that has never finished (sm100_tma_s2_tmem_ex2 #112), alone, to tell slow from stuck.
#   OUT=/tmp/s7e PROJECT_DIR=/tmp/s7proj/attn bash scripts/device/session7_e.sh BUDGET_S
set -u -o pipefail
OUT=${OUT:-/tmp/s7e}; mkdir -p "$OUT"
budget=${1:-330}
t_start=$(date +%s)
left() { echo $(( budget - ( $(date +%s) - t_start ) )); }
P=$(cd "${PROJECT_DIR:?}" && pwd)
( unset FMHACTL_HOME; cd "$P" && FMHACTL_EMU_PTXAS_O=0 timeout "$(( $(left) - 20 ))" python3 -m fmhactl verify sm100_raw_ptx \
    --grid fa --seed 27 --timeout 300 --emulation fast ) > "$OUT/scaffold-fa.log" 2>&1
echo "scaffold raw_ptx fa fast rc=$? in $(( $(date +%s) - t_start ))s: $(tail -n 1 "$OUT/scaffold-fa.log")"
grep -E "^(FAIL|HANG|CRASH)" "$OUT/scaffold-fa.log" | head -n 5
if [ "$(left)" -gt 90 ]; then
  l=$(( $(left) - 15 ))
  echo "== ex2 #112 alone (${l}s)"
  export FMHACTL_HOME=/tmp/fmhactl-ptxgrid FMHACTL_EMU_PTXAS_O=0; mkdir -p "$FMHACTL_HOME"
  tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz
  timeout "$l" python3 scripts/device/ptx_grid.py shard sm100_tma_s2_tmem_ex2 fa native strict 112 113 7 "$l" \
    > "$OUT/ex2-112.jsonl" 2> "$OUT/ex2-112.err"
  echo "ex2 #112 rc=$? after $(( $(date +%s) - t_start ))s"; cut -c1-300 "$OUT/ex2-112.jsonl"; tail -n 3 "$OUT/ex2-112.err"
fi
echo "total $(( $(date +%s) - t_start ))s"
