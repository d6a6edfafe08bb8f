#!/usr/bin/env bash
# One pass that fills a fresh results DB with everything the milestones need, then writes the
# status files: ref (native) and the SM100 family (emulated) on seeds72 + awkward, a bench of
# ref beside cuDNN/flash, one emulated bench (labelled), one ncu profile, then `fmhactl status`.
set -u -o pipefail
OUT=${OUT:-/tmp/fmhactl-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-final}
fm() { python3 -m fmhactl "$@"; }
VARIANTS="ref sm100_direct_tmem sm100_direct_smem sm100_tma_tmem sm100_tma_s2_tmem sm100_tma_s2_smem"
fm build ref --arch sm_90a > /dev/null 2>&1 &
for v in $VARIANTS; do [ "$v" = ref ] || fm build "$v" --arch sm_90a > /dev/null 2>&1 & done; wait
fm build --all --arch sm_100a > /dev/null 2>&1
for v in $VARIANTS; do
  for g in seeds72 awkward; do
    fm verify "$v" --grid "$g" --seed 29 --timeout 120 > "/tmp/$v-$g.log" 2>&1
    echo "$v $g rc=$?: $(tail -n 1 "/tmp/$v-$g.log")"
  done
done
fm bench ref --shape b=4,h=16,t=2048,s=2048,d=128 --shape b=4,h=16,t=2048,s=2048,d=128,causal --iters 20 --warmup 3 2>&1 | tail -n 12
fm bench sm100_tma_s2_tmem --shape b=1,h=4,t=512,s=512,d=128 --iters 3 --warmup 1 --json 2>/dev/null | python3 -c "import json,sys; r=json.load(sys.stdin)[0]; print('emulated bench:', r['mode'], round(r['metrics']['kernel']['median_ms'],2), 'ms;', r['metrics']['note'])"
fm profile ref --shape b=4,h=16,t=1024,s=1024,d=128 2>&1 | tail -n 14
fm status --out "$OUT/status" > /dev/null 2>&1; echo "status rc=$?"
cp "$FMHACTL_HOME/results.sqlite" "$OUT/results.sqlite"
( cd "$OUT/status" && tar czf "$OUT/status.tgz" STATUS.md milestones )
sed -n 1,20p "$OUT/status/STATUS.md"
