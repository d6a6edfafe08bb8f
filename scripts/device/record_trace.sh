#!/usr/bin/env bash
# Record the trace that ships with the repository, so `fmhactl trace` can be tried without a GPU.
# One strict-emulated launch of sm100_tma_s2_tmem on an sm_90 GPU (H100) with tracing on; the raw
# events are gzipped into docs/trace/ (must stay under 2 MB) and re-modeled on the CPU path once
# (`--raw`) to prove the committed file works. Usage, from the repo root, on the GPU machine:
#   bash scripts/device/record_trace.sh
# Commit: docs/trace/sm100_tma_s2_tmem-b1h1-t128s2048-d128.raw.gz (and nothing else changes).
set -u -o pipefail
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-record}
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O-0}  # emulated builds: their speed means nothing
PY=${PYTHON:-python3}
VARIANT=sm100_tma_s2_tmem
SHAPE="b=1,h=1,t=128,s=2048,d=128"
FILE=docs/trace/$VARIANT-b1h1-t128s2048-d128.raw.gz
LIMIT=$((2 * 1024 * 1024))
tmp=$(mktemp -d)
"$PY" -m fmhactl trace "$VARIANT" --shape "$SHAPE" --seed 7 --save-raw "$tmp/events.raw" --out "$tmp/trace.json" \
  || { echo "record_trace: the traced launch failed"; exit 1; }
gzip -9 -c "$tmp/events.raw" > "$FILE"
size=$(stat -c %s "$FILE")
echo "record_trace: $(stat -c %s "$tmp/events.raw") raw bytes -> $FILE ($size bytes gzipped)"
if [ "$size" -ge "$LIMIT" ]; then echo "record_trace: $FILE is over 2 MB: not committable"; rm -f "$FILE"; exit 1; fi
FMHACTL_ASSUME_NO_GPU=1 "$PY" -m fmhactl trace "$VARIANT" --shape "$SHAPE" --raw "$FILE" \
  || { echo "record_trace: the committed file does not model on the CPU path"; exit 1; }
echo "record_trace: OK, commit $FILE"
