#!/usr/bin/env bash
# Session 9, call B (issue 28): why sm100_tma_s2_tmem_ex2 fa #112 (b2h8kv2-t113s4224-d128-bf16-causal,
# 16 CTAs) never finishes on the strict PTX path while its tma_s2_tmem twin (same shape, same seed 119)
# passes in 75-100 s under 16-way sharing. All under one MPS daemon, launched together:
#   A  ex2 #112 exactly as the grid runs it (ptx_grid shard, seed 119, ptxas -O0)
#   B  the tma_s2_tmem twin, same conditions (how long a finishing run takes here)
#   C  ex2 #112's shape with seed 0 (every commit's MMAs run at observation: another schedule)
#   D  ex2 #112's shape, seed 119, the module built at the ptxas default (-O3) instead of -O0
#   E  ex2, seed 119, the same shape with s = 1024 then 2048 (a smaller repro, and how time grows)
# plus two cuda-gdb snapshots of A's worker (where each warp of block 0 is, twice: stall or progress).
# Builds come from ptxgrid-cache.tar.xz (made on the CPU with the device's NVRTC/nvJitLink 13.0).
#   OUT=/tmp/s9b bash scripts/device/session9_b.sh [BUDGET_S]
set -u -o pipefail
OUT=${OUT:-/tmp/s9b}; mkdir -p "$OUT"
budget=${1:-300}
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_HOME=/tmp/fmhactl-ptxgrid FMHACTL_EMU_PTXAS_O=0
mkdir -p "$FMHACTL_HOME"; tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz
python3 scripts/device/ptx_build_all.py --strict --jobs 2 sm100_tma_s2_tmem sm100_tma_s2_tmem_ex2 2>&1 | tail -n 2
FMHACTL_EMU_PTXAS_O= python3 scripts/device/ptx_build_all.py --strict --jobs 1 sm100_tma_s2_tmem_ex2 2>&1 | tail -n 1
echo "builds ready [+$(el)s]"

export CUDA_MPS_PIPE_DIRECTORY=/tmp/s9b-mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/s9b-mps/log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -f > "$OUT/mps.txt" 2>&1 &
mps_pid=$!
sleep 2
L=$(( budget - $(el) - 25 ))   # every run ends by the same deadline (a kill under MPS ends the others too)
SHAPE=b=2,h=8,hkv=2,t=113,d=128,causal
V=sm100_tma_s2_tmem_ex2
timeout $(( L + 5 )) python3 scripts/device/ptx_grid.py shard $V fa native strict 112 113 7 "$L" > "$OUT/A.jsonl" 2> "$OUT/A.err" &
a_pid=$!
timeout $(( L + 5 )) python3 scripts/device/ptx_grid.py shard sm100_tma_s2_tmem fa native strict 112 113 7 "$L" > "$OUT/B.jsonl" 2> "$OUT/B.err" &
vf() { local name=$1; shift; ( s=$(date +%s); timeout $(( L + 5 )) python3 -m fmhactl verify $V --emulate native --emulation strict --timeout "$L" "$@" ; echo "$name rc=$? after $(( $(date +%s) - s ))s" ) > "$OUT/$name.txt" 2>&1; }
vf C --shape $SHAPE,s=4224 --seed 0 &
( FMHACTL_EMU_PTXAS_O= vf D --shape $SHAPE,s=4224 --seed 119 ) &
( vf E1 --shape $SHAPE,s=1024 --seed 119; vf E2 --shape $SHAPE,s=2048 --seed 119 ) &
snap() {  # the worker process of run A that holds the GPU, and where block 0's warps are
  local target="" d par
  for d in /proc/[0-9]*; do
    par=${d#/proc/}
    while [ -n "$par" ] && [ "$par" -gt 1 ]; do
      if [ "$par" = "$a_pid" ]; then
        ls -l "$d/fd" 2>/dev/null | grep -q /dev/nvidia && target=${d#/proc/}
        break
      fi
      par=$(awk '{print $4}' "/proc/$par/stat" 2>/dev/null)
    done
  done
  echo "-- snapshot at +$(el)s, target ${target:-none}"
  [ -z "$target" ] && return
  local args=(-ex "info cuda kernels" -ex "info cuda warps")
  for t in 0 32 64 96 128 160; do args+=(-ex "cuda block (0,0,0) thread ($t,0,0)" -ex "bt 6"); done
  args+=(-ex "detach")
  timeout 60 cuda-gdb -q -batch -p "$target" "${args[@]}" 2>&1 | grep -v "^\[New Thread\|^\[Thread debugging" | head -n 150
}
sleep 100; snap > "$OUT/gdb1.txt" 2>&1
sleep 70; snap > "$OUT/gdb2.txt" 2>&1
wait "$a_pid"; echo "A rc=$? [+$(el)s]"
wait
echo quit | nvidia-cuda-mps-control; wait "$mps_pid" 2>/dev/null
for r in A B; do echo "$r: $(cut -c1-260 "$OUT/$r.jsonl")"; tail -n 2 "$OUT/$r.err"; done
for r in C D E1 E2; do echo "$r: $(grep -E 'passed|rc=|HANG|FAIL|CRASH|error' "$OUT/$r.txt" | tail -n 4 | tr '\n' ' ')"; done
for g in gdb1 gdb2; do echo "== $g"; grep -E "^-- |Kernel|^\*|^ +[0-9]|#0|#1|#2|#3" "$OUT/$g.txt" | head -n 40; done
tar -C "$OUT" -czf "$OUT/logs.tgz" --exclude=logs.tgz . 2>/dev/null
echo "total [+$(el)s]"
