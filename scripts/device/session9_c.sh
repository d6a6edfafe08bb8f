#!/usr/bin/env bash
# Session 9, call C (issue 28): where the warps are when the strict PTX path of
# sm100_tma_s2_tmem_ex2 stalls on b2h8kv2-t113s4224-d128-causal with seed 119 (call B: no answer in
# 265 s at ptxas -O0 and -O3; the same shape with seed 0, and with s = 1024 / 2048 at seed 119, pass
# in 14 s). One verify alone (no MPS); at +STALL_S a cuda-gdb snapshot of every block's six warps
# (the warps' PCs on its SM, backtraces of warps 0, 1, 4, 5, the lanes of the MMA warp), then the kill.
#   OUT=/tmp/s9c bash scripts/device/session9_c.sh [STALL_S]
set -u -o pipefail
OUT=${OUT:-/tmp/s9c}; mkdir -p "$OUT"
stall=${1:-45}
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_HOME=/tmp/fmhactl-ptxgrid FMHACTL_EMU_PTXAS_O=0
mkdir -p "$FMHACTL_HOME"; tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz
timeout $(( stall + 40 )) python3 -m fmhactl verify sm100_tma_s2_tmem_ex2 --emulate native --emulation strict \
  --timeout $(( stall + 30 )) --shape b=2,h=8,hkv=2,t=113,s=4224,d=128,causal --seed 119 > "$OUT/verify.txt" 2>&1 &
v_pid=$!
sleep "$stall"
target=""
for d in /proc/[0-9]*; do  # the worker under v_pid that holds the GPU open
  par=${d#/proc/}
  while [ -n "$par" ] && [ "$par" -gt 1 ]; do
    if [ "$par" = "$v_pid" ]; then ls -l "$d/fd" 2>/dev/null | grep -q /dev/nvidia && target=${d#/proc/}; break; fi
    par=$(awk '{print $4}' "/proc/$par/stat" 2>/dev/null)
  done
done
echo "snapshot at +$(el)s of pid ${target:-none}" | tee "$OUT/gdb.txt"
if [ -n "$target" ]; then
  args=(-ex "info cuda kernels" -ex "info cuda blocks")
  for b in 0 1 2 3 4 5 6 7; do for z in 0 1; do
    args+=(-ex "cuda block (0,$b,$z) thread (0,0,0)" -ex "info cuda warps" -ex "bt 6")
    for t in 32 128 160; do args+=(-ex "cuda block (0,$b,$z) thread ($t,0,0)" -ex "bt 6"); done
    args+=(-ex "cuda block (0,$b,$z) thread (128,0,0)" -ex "info cuda lanes")
  done; done
  args+=(-ex "detach")
  timeout 120 cuda-gdb -q -batch -p "$target" "${args[@]}" 2>&1 | grep -v "^\[New Thread\|^\[Thread debugging" >> "$OUT/gdb.txt"
  echo "cuda-gdb rc=$? [+$(el)s]" | tee -a "$OUT/gdb.txt"
fi
wait "$v_pid"; echo "verify rc=$? [+$(el)s]"; tail -n 3 "$OUT/verify.txt"
grep -E "^\[Switching|^#0|^#1|^#2|^#3" "$OUT/gdb.txt" | sed -E 's/0x[0-9a-f]+ in //; s/\(.*\) at /() at /' | sort | uniq -c | sort -rn | head -n 40
gzip -f "$OUT/gdb.txt"
