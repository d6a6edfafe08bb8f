#!/usr/bin/env bash
# Named configs of a grid through the strict PTX path, all at once under one MPS daemon, every one
# with the same deadline (under MPS a client killed at its limit ends the others: nobody is killed
# before the end). For issue 28's configs that take minutes each on the strict PTX path.
#   OUT=/dir bash scripts/device/ptx_configs.sh BUDGET_S GRID VARIANT:INDEX...
#   e.g. ... 520 fa sm100_tma_s2_tmem:106 sm100_tma_s2_tmem:107 sm100_tma_s2_tmem:118 \
#                   sm100_tma_s2_tmem_ex2:106 sm100_tma_s2_tmem_ex2:118
# Builds come from ptxgrid-cache.tar.xz when it is there (made on a CPU with the device's NVRTC and
# nvJitLink 13.0, scripts/device/ptx_with_toolchain.py), else they are built here first.
# $OUT/rows.jsonl gets one line per config that finished (ptx_grid.py rows; seed 7 + index, as the
# grid runs them), $OUT/logs.tgz each one's stderr; the summary is printed last.
set -u -o pipefail
OUT=${OUT:-/tmp/ptx-configs}; mkdir -p "$OUT"
PARTS=$(mktemp -d /tmp/ptx-configs-parts.XXXX)  # per-config files (the device returns at most 8 from $OUT)
budget=${1:?budget seconds}; grid=${2:?grid}; shift 2
t0=$(date +%s)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-ptxgrid}
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0}
mkdir -p "$FMHACTL_HOME"
[ -f ptxgrid-cache.tar.xz ] && tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz
variants=$(for item in "$@"; do echo "${item%%:*}"; done | sort -u)
python3 scripts/device/ptx_build_all.py --strict --jobs 4 $variants
export CUDA_MPS_PIPE_DIRECTORY=/tmp/ptx-configs-mps/pipe CUDA_MPS_LOG_DIRECTORY=/tmp/ptx-configs-mps/log
mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
nvidia-cuda-mps-control -f > "$PARTS/mps.txt" 2>&1 &
mps_pid=$!
sleep 2
limit=$(( budget - ($(date +%s) - t0) - 20 ))
pids=()
for item in "$@"; do
  v=${item%%:*}; i=${item#*:}
  timeout $(( limit + 10 )) python3 scripts/device/ptx_grid.py shard "$v" "$grid" native strict "$i" $(( i + 1 )) 7 "$limit" \
    > "$PARTS/$v-$i.jsonl" 2> "$PARTS/$v-$i.err" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done   # not a bare `wait`: the MPS daemon is a child too
echo quit | nvidia-cuda-mps-control; wait "$mps_pid"
cat "$PARTS"/*.jsonl > "$OUT/rows.jsonl" 2>/dev/null
tar -C "$PARTS" -czf "$OUT/logs.tgz" .
python3 scripts/device/ptx_grid.py summary "$OUT/rows.jsonl"
echo "configs asked $#, rows $(wc -l < "$OUT/rows.jsonl"), $(( $(date +%s) - t0 )) s"
