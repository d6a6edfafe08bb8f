#!/usr/bin/env bash
# Issue 5 on the lent H100: the SM100 family under emulation. Builds every variant in parallel,
# then per variant: the smoke grid (dumping every checkpoint when it fails) and the named grids.
#   VARIANTS="..." GRIDS="smoke seeds72 awkward" bash scripts/device/issue5.sh
set -u -o pipefail
OUT=${OUT:-/tmp/fmhactl-out}; mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-home}
fm() { python3 -m fmhactl "$@"; }
VARIANTS=${VARIANTS:-"sm100_direct_tmem sm100_direct_smem sm100_tma_tmem sm100_tma_s2_tmem sm100_tma_s2_smem"}
GRIDS=${GRIDS:-"smoke seeds72 awkward"}
for v in $VARIANTS; do fm build "$v" --arch sm_90a > "$OUT/build-$v.log" 2>&1 & done; wait
for v in $VARIANTS; do
  for g in $GRIDS; do
    fm verify "$v" --grid "$g" --seed 17 --timeout 120 > "$OUT/$v-$g.log" 2>&1
    rc=$?
    echo "$v $g rc=$rc: $(tail -n 1 "$OUT/$v-$g.log")"
    grep -E -A2 "^(FAIL|CRASH|HANG|ERROR)" "$OUT/$v-$g.log" | head -n 6
    if [ "$g" = smoke ] && [ $rc -ne 0 ]; then
      for at in Q K V S P O; do fm dump "$v" --shape b=1,h=1,t=128,s=256,d=64 --at $at --timeout 60 2>&1 | head -n 8; done
      break
    fi
  done
done
python3 - "$OUT" <<'PY'
import glob, re, sys
for path in sorted(glob.glob(sys.argv[1] + "/sm100_*.log")):
    text = open(path).read()
    errs = [float(x) for x in re.findall(r"max\|err\|\s+([0-9.e+-]+)", text)]
    cos = [float(x) for x in re.findall(r"cos\s+([0-9.]+)", text)]
    lse = [float(x) for x in re.findall(r"lse\s+([0-9.e+-]+)", text)]
    if errs:
        print(f"{path.split('/')[-1]:34} n={len(errs):3} max err {max(errs):.3e}  min cos {min(cos):.6f}  max lse err {max(lse):.1e}")
PY
