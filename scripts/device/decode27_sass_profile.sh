#!/usr/bin/env bash
# Where sm90_mqa_decode's time goes, per SASS instruction: ncu with source counters on ONE launch
# (b64 top-k 512 with the split forced to 1: each CTA walks all 16 blocks, the loop alone; then the default plan at
# b64), exported as per-instruction CSV (stall samples by reason beside each SASS line).
# Usage: OUT=/dir bash scripts/device/decode27_sass_profile.sh      carry: .whl
set -u -o pipefail
OUT=${OUT:-/tmp/decode27-sass}; mkdir -p "$OUT"
source scripts/device/steps.sh  # device_python, left, log, run, collect_rows
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode27x}
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
profile() {  # NAME SHAPE [env...]
  local name=$1 shape=$2; shift 2
  env "$@" timeout 120 "$NCU" -k regex:fmha_mqa_decode -c 1 --section SourceCounters --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SpeedOfLight \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_active.max,gpc__cycles_elapsed.max \
    -o "/tmp/$name" -f python3 -m fmhactl bench sm90_mqa_decode --seed 27 --warmup 0 --iters 1 --timeout 60 --shape "$shape" \
    > "/tmp/$name.log" 2>&1
  "$NCU" -i "/tmp/$name.ncu-rep" --page details > "$OUT/$name-details.txt" 2>&1
  "$NCU" -i "/tmp/$name.ncu-rep" --page source --csv --print-source sass > "/tmp/$name-sass.csv" 2>&1
  xz -9 -c "/tmp/$name-sass.csv" > "$OUT/$name-sass.csv.xz"
}
profile b64split1 "b=64,$TOPK" FMHACTL_DECODE_SPLITS=1
profile b64 "b=64,$TOPK"
ls -la "$OUT"; head -c 3000 "$OUT/b64split1-details.txt"; grep -E "Tensor|hmma|Stall|Warp Cycles|Duration|Elapsed|cycles" "$OUT"/*-details.txt | head -40
