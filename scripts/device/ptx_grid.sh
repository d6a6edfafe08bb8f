#!/usr/bin/env bash
# Issue 28's grid proof in one device call: every sm100 variant through the PTX path and the tc5::
# build, fast and strict, as concurrent shards (scripts/device/ptx_grid.py) within a time budget.
#   bash scripts/device/ptx_grid.sh BUDGET_S ORDER [JOBS] [ROWS_OF_EARLIER_CALLS.jsonl...]
#   ORDER: emulation:emulate:grid items in priority order, e.g. fast:native:fa,strict:native:seeds72
# The builds come from ptxgrid-cache.tar.xz when it is there (made on a CPU with the device's
# toolchain, NVRTC and nvJitLink 13.0: notes/ptx-path/README.md "call 4"), else they are built here.
# MPS (when the driver has it) lets the shards' small emulated launches share the GPU; it runs in
# the foreground of this script with a private pipe folder and is stopped at the end.
# Writes $OUT/rows.jsonl (one line per verified config), $OUT/summary.txt, $OUT/log parts.
set -u -o pipefail
OUT=${OUT:-/tmp/ptx-grid-out}; mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-ptxgrid}
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0}
budget=${1:?budget seconds}; order=${2:?order}; jobs=${3:-12}; shift 3 2>/dev/null || shift $#
earlier=("$@")  # rows of earlier calls (--skip), also summed into the summary
t_start=$(date +%s)
left() { echo $(( budget - ( $(date +%s) - t_start ) )); }
lim() { local l=$(( $(left) - 35 )); [ "$l" -gt "$1" ] && l=$1; [ "$l" -gt 5 ] && echo "$l" || echo 5; }  # a step's timeout
VARIANTS=$(python3 -c "import sys; sys.path.insert(0, 'scripts/device'); import ptx_grid; print(' '.join(ptx_grid.variants()))")
echo "variants: $VARIANTS"
python3 -c "from fmhactl.ptx.linker import linker_ptx_version as v; from fmhactl.build.compiler import nvrtc_version as n; print('toolchain:', n(), 'nvJitLink reads PTX', v())"

if [ -f ptxgrid-cache.tar.xz ]; then
  mkdir -p "$FMHACTL_HOME" && tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz && echo "build cache unpacked: $(find "$FMHACTL_HOME/cache" -name '*.cubin' | wc -l) cubins"
fi
for kind in "fast native" "strict native" "fast tc5" "strict tc5"; do
  emulation=${kind% *}; emulate=${kind#* }
  case "$order" in *"$emulation:$emulate:"*) ;; *) continue ;; esac
  flags=""; [ "$emulation" = strict ] && flags="--strict"; [ "$emulate" = tc5 ] && flags="$flags --tc5"
  timeout $(( $(left) - 60 )) python3 scripts/device/ptx_build_all.py $flags --jobs 16 $VARIANTS \
    > "/tmp/ptxgrid-build-$emulation-$emulate.log" 2>&1 &
done
wait
cat /tmp/ptxgrid-build-*.log > "$OUT/builds.txt" 2>/dev/null; cat "$OUT/builds.txt"
echo "[+$(( $(date +%s) - t_start ))s] builds ready"

mps=off
if command -v nvidia-cuda-mps-control > /dev/null && [ "${PTX_GRID_MPS:-1}" = 1 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/ptxgrid-mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/ptxgrid-mps/log
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -f > "$OUT/mps.txt" 2>&1 &
  mps_pid=$!
  sleep 2
  if timeout 60 python3 -c "import torch; x = torch.ones(4, device='cuda'); assert float(x.sum()) == 4.0" 2>> "$OUT/mps.txt"; then
    mps=on
  else
    echo quit | nvidia-cuda-mps-control; wait "$mps_pid"
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  fi
fi
echo "MPS: $mps"

if [ -n "${PTX_GRID_EXTRAS_CMD:-}" ]; then  # beside the grid, under the same MPS daemon: any command
  ( timeout "$(lim 100000)" bash -c "$PTX_GRID_EXTRAS_CMD" ) > "$OUT/extras.txt" 2>&1 &
  extras_pid=$!
elif [ -n "${PTX_GRID_EXTRAS:-}" ]; then  # beside the grid: trace and dump through the PTX path, raw-PTX kernel
  ( timeout "$(lim 400)" python3 -m pytest -q -p no:cacheprovider -m gpu tests/ptx/test_trace_sites.py \
      tests/ptx/test_raw_kernel.py 2>&1 | tail -n 25
    for v in sm100_direct_smem sm100_tma_s2_tmem; do for at in S P O; do
      echo "dump $v --at $at --emulate native --emulation fast:"
      timeout "$(lim 120)" python3 -m fmhactl dump "$v" --shape b=1,h=1,t=128,s=256,d=128 --at "$at" --emulate native \
        --emulation fast --seed 7 2>&1 | head -n 4; echo "rc=${PIPESTATUS[0]}"
    done; done
    echo "dump sm100_tma_s2_tmem --at O --emulate native --emulation strict:"
    timeout "$(lim 150)" python3 -m fmhactl dump sm100_tma_s2_tmem --shape b=1,h=1,t=128,s=256,d=128 --at O --emulate native \
      --emulation strict --seed 7 2>&1 | head -n 4; echo "rc=${PIPESTATUS[0]}"
  ) > "$OUT/extras.txt" 2>&1 &
  extras_pid=$!
fi
python3 scripts/device/ptx_grid.py run "$OUT/shards" --shard "${PTX_GRID_SHARD:-16}" --budget $(( $(left) - 25 )) --jobs "$jobs" --order "$order" --skip "${earlier[@]}" \
  2>&1 | tee "$OUT/run.txt"
[ -n "${extras_pid:-}" ] && wait "$extras_pid"
if [ "$mps" = on ]; then echo quit | nvidia-cuda-mps-control; wait "$mps_pid"; fi
tar -C "$OUT" -czf "$OUT/shards.tgz" shards && rm -rf "$OUT/shards"
echo "---- summary ($(( $(date +%s) - t_start )) s, MPS $mps, $jobs shards at a time)"
grep -h -E "build .*(OK|FAILED)" "$OUT/builds.txt" | awk '{print $1, $2, $3, $4, $5}'
python3 scripts/device/ptx_grid.py summary "$OUT/rows.jsonl" "${earlier[@]}" | tee "$OUT/summary.txt"
if [ -f "$OUT/extras.txt" ]; then echo "---- extras"; cat "$OUT/extras.txt"; fi
