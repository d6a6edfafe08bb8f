#!/usr/bin/env bash
# Issue 24 at hd64: sm90_persistent_m192 (FA3's 192-row tile, 3 consumer WGs, FMHA_CONSUMERS=3)
# beside sm90_persistent and cuDNN on the four hd64 shapes of the sm90 suite; first its
# correctness on the sm90 proof grids (hd64 configs run, the others report UNSUPPORTED).
#   OUT=/dir bash scripts/device/m192_ab.sh [BUDGET_S]      carry: .whl
# $OUT: summary.txt (per shape: us per variant, cuDNN/kernel), bench.json, verify.json, device.log, raw.tgz.
# DRY=1 prints the steps (a CPU check of the script).
set -u -o pipefail
OUT=${OUT:-/tmp/m192}; [ -n "${DRY:-}" ] || mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/m192-raw.XXXX)
source scripts/device/steps.sh
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-m192}
BUDGET=${BUDGET:-${1:-560}}
start=$(date +%s)
STEP_RESERVE=15 STEP_MIN=8
V=sm90_persistent_m192
SINCE=$(date -u +%Y-%m-%dT%H:%M:%S)
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
run build 90 python3 -m fmhactl build sm90_persistent $V --arch sm_90a
# A wrong 192-row kernel must not be timed as if it were right: verify first, bench either way
# (the summary prints the verify status beside the times).
for grid in seeds72 awkward fa; do
  run verify-$grid 70 python3 -m fmhactl verify $V --grid $grid --seed 24 --timeout 60 --json
  rows_if_cut verify-$grid $grid
done
SHAPES="--shape b=16,h=16,t=1024,s=1024,d=64 --shape b=16,h=16,t=1024,s=1024,d=64,causal
        --shape b=8,h=16,t=4096,s=4096,d=64 --shape b=8,h=16,t=4096,s=4096,d=64,causal"
# bench times one variant per call: A, B, then B, A again (an A/B inside one run's spread is no result).
run bench-a-persistent 80 python3 -m fmhactl bench sm90_persistent $SHAPES --baseline cudnn --seed 24 --json
run bench-a-m192 80 python3 -m fmhactl bench $V $SHAPES --baseline cudnn --seed 24 --json
run bench-b-m192 80 python3 -m fmhactl bench $V $SHAPES --baseline cudnn --seed 25 --json
run bench-b-persistent 80 python3 -m fmhactl bench sm90_persistent $SHAPES --baseline cudnn --seed 25 --json
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
python3 - "$OUT" > "$OUT/summary.txt" 2>&1 <<'PY'
import json, sys
out = sys.argv[1]
verify = json.load(open(f"{out}/verify.json"))
counts = {}
for r in verify:
    counts[(r["step"], r.get("status"))] = counts.get((r["step"], r.get("status")), 0) + 1
print("==== verify sm90_persistent_m192:", ", ".join(f"{s} {st}: {n}" for (s, st), n in sorted(counts.items())))
for r in verify:
    if r.get("status") not in ("PASS", "UNSUPPORTED"):
        print("  ", r["step"], r.get("config_key"), r.get("status"), str(r.get("reason") or "")[:160])
print("==== bench: kernel median us; cudnn/kernel > 1: the kernel is faster")
for r in json.load(open(f"{out}/bench.json")):
    m = r.get("metrics", {})
    k = m.get("kernel", {}).get("median_ms")
    cells = [f"{n}/kernel {b['median_ms'] / k:.3f}" for n, b in m.get("baselines", {}).items()
             if k and b.get("available") and b.get("median_ms")]
    print(f"{r['step']:20s} {r.get('config_key', '?'):40s} "
          f"{(k or float('nan')) * 1e3:8.1f} us  {r.get('status', '')} " + "  ".join(cells))
PY
cp "$RAW/device.log" "$OUT/device.log"
tar czf "$OUT/raw.tgz" -C "$RAW" .
