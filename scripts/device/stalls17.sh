#!/usr/bin/env bash
# Session 17: why cuDNN runs b16 h16 S1k hd64 causal ~10% faster than sm90_persistent with the same
# plan (3 WGs, 64x128 wgmma tiles, persistent over 132 SMs): ncu's warp-state, scheduler and
# instruction sections of one launch of each, and both kernels' SASS with per-instruction stall
# samples (--page source), to compare the two instruction streams.
#   OUT=/dir [IMPLS="op cudnn"] [SECTIONS=...] bash scripts/device/stalls17.sh [b,h,s,d[,causal] ...]
# (IMPLS may name fa4 once the peers are unpacked and their env.sh sourced: scripts/device/peers_install.sh)
# (SECTIONS="" skips the details pass).  carry: .whl
set -u -o pipefail
OUT=${OUT:-/tmp/stalls17}; mkdir -p "$OUT"
source scripts/device/steps.sh
device_python
SECTIONS=${SECTIONS-"--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy"}
for shape in ${@:-16,16,1024,64,causal}; do
  for impl in ${IMPLS:-op cudnn}; do
    re='regex:fmha_sm90'; [ $impl = cudnn ] && re='regex:sdpa|fprop|cudnn|fmha'; [ $impl = fa4 ] && re='regex:flash'
    tag=$impl-${shape//,/_}
    [ -n "$SECTIONS" ] && timeout 150 ncu $SECTIONS -k "$re" --launch-skip 3 --launch-count 1 --csv --page details \
      python3 scripts/dev/pipes_probe.py $impl $shape > "$OUT/details-$tag.csv" 2>> "$OUT/ncu.err"
    timeout 200 ncu --section SourceCounters --section WarpStateStats -k "$re" --launch-skip 3 --launch-count 1 \
      --page source --print-source sass --csv \
      python3 scripts/dev/pipes_probe.py $impl $shape > "$OUT/sass-$tag.csv" 2>> "$OUT/ncu.err"
    echo "$tag: $(cat "$OUT/details-$tag.csv" 2>/dev/null | wc -l) detail lines, $(wc -l < "$OUT/sass-$tag.csv") sass lines"
  done
done
tail -n 5 "$OUT/ncu.err"
