#!/usr/bin/env bash
# Session 8, call A (issue 28): the six strict-fa configs of the PTX path that have no result yet.
# Phase 1, under MPS: the five that were collateral of MPS kills in session 7, one process each.
# Phase 2, no MPS (a kill ends nobody else): sm100_tma_s2_tmem_ex2 #112 (never finished) alone,
# with cuda-gdb snapshots of where its warps are (twice, to tell a stall from slow progress), and
# beside it smaller shapes of the same config (to find a small repro if it is a stall).
#   OUT=/tmp/s8a bash scripts/device/session8_a.sh BUDGET_S
set -u -o pipefail
OUT=${OUT:-/tmp/s8a}; mkdir -p "$OUT"
budget=${1:-570}
t_start=$(date +%s)
left() { echo $(( budget - ( $(date +%s) - t_start ) )); }
export FMHACTL_HOME=/tmp/fmhactl-ptxgrid FMHACTL_EMU_PTXAS_O=0; mkdir -p "$FMHACTL_HOME"
tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz
python3 scripts/device/ptx_build_all.py --strict --jobs 2 sm100_tma_s2_tmem sm100_tma_s2_tmem_ex2 2>&1 | tail -n 2

echo "== phase 1 (MPS): five configs [+$(( $(date +%s) - t_start ))s]"
export CUDA_MPS_PIPE_DIRECTORY=/tmp/s8a-mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/s8a-mps/log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -f > "$OUT/mps.txt" 2>&1 &
mps_pid=$!
sleep 2
limit1=${PHASE1_LIMIT_S:-300}
pids=()
for vi in "sm100_tma_s2_tmem 106" "sm100_tma_s2_tmem 107" "sm100_tma_s2_tmem 118" \
          "sm100_tma_s2_tmem_ex2 106" "sm100_tma_s2_tmem_ex2 118"; do
  set -- $vi
  timeout $(( limit1 + 15 )) python3 scripts/device/ptx_grid.py shard "$1" fa native strict "$2" $(( $2 + 1 )) 7 "$limit1" \
    > "$OUT/p1-$1-$2.jsonl" 2> "$OUT/p1-$1-$2.err" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
echo quit | nvidia-cuda-mps-control; wait "$mps_pid"
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
cat "$OUT"/p1-*.jsonl > "$OUT/rows.jsonl"
python3 - "$OUT/rows.jsonl" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(f"{r['variant']:24s} #{r['index']} {r['config']:38s} {r['status']:6s} err={r['max_abs_err']} t={r['t']}s {r['error'][:120]}")
EOF
for f in "$OUT"/p1-*.err; do [ -s "$f" ] && { echo "$f:"; tail -n 3 "$f"; }; done

echo "== phase 2 (no MPS): ex2 #112 alone + smaller shapes [+$(( $(date +%s) - t_start ))s]"
l=$(( $(left) - 25 ))
timeout "$l" python3 scripts/device/ptx_grid.py shard sm100_tma_s2_tmem_ex2 fa native strict 112 113 7 "$l" \
  > "$OUT/ex2-112.jsonl" 2> "$OUT/ex2-112.err" &
main_pid=$!
( FMHACTL_EMULATE=native timeout $(( l - 10 )) python3 -m fmhactl verify sm100_tma_s2_tmem_ex2 --emulate native --emulation strict \
    --seed 119 --timeout 140 --shape b=1,h=1,hkv=1,t=113,s=4224,d=128,causal --shape b=2,h=8,hkv=2,t=113,s=1024,d=128,causal \
    --shape b=2,h=8,hkv=2,t=113,s=2048,d=128,causal ) > "$OUT/small.txt" 2>&1 &
small_pid=$!
snap() {  # where the kernel's warps are: per-SM warp PCs, and a backtrace of one thread per warp of block 0
  echo "-- snapshot at +$(( $(date +%s) - t_start ))s"
  local target="" d par
  for d in /proc/[0-9]*; do  # a descendant of ex2 #112's shard that holds the GPU open
    par=${d#/proc/}
    while [ -n "$par" ] && [ "$par" -gt 1 ]; do
      if [ "$par" = "$main_pid" ]; then
        ls -l "$d/fd" 2>/dev/null | grep -q /dev/nvidia && target=${d#/proc/}
        break
      fi
      par=$(awk '{print $4}' "/proc/$par/stat" 2>/dev/null)
    done
  done
  echo "target (ex2 #112's worker): ${target:-none} $(tr '\0' ' ' < /proc/${target:-0}/cmdline 2>/dev/null | cut -c1-160)"
  [ -z "$target" ] && return
  local args=(-ex "info cuda kernels" -ex "info cuda sms" -ex "info cuda warps")
  for t in 0 32 64 96 128 160 192 224; do
    args+=(-ex "cuda block (0,0,0) thread ($t,0,0)" -ex "bt 8" -ex "x/2i \$pc")
  done
  args+=(-ex "detach")
  timeout 100 cuda-gdb -q -batch -p "$target" "${args[@]}" 2>&1 | grep -v "^\[New Thread\|^\[Thread debugging" | head -n 200
}
sleep 60; snap > "$OUT/gdb1.txt" 2>&1; head -c 300 "$OUT/gdb1.txt"; echo
sleep 90; snap > "$OUT/gdb2.txt" 2>&1
wait "$main_pid"; echo "ex2 #112 rc=$? after $(( $(date +%s) - t_start ))s"; cut -c1-300 "$OUT/ex2-112.jsonl"; tail -n 3 "$OUT/ex2-112.err"
wait "$small_pid"; echo "small shapes rc=$?"; tail -n 6 "$OUT/small.txt"
tar -C "$OUT" -czf "$OUT/logs.tgz" gdb1.txt gdb2.txt small.txt ex2-112.err mps.txt $(cd "$OUT" && ls p1-*.err) 2>/dev/null
echo "total $(( $(date +%s) - t_start ))s"
