#!/usr/bin/env bash
# One lent-H100 call for the evidence the CPU cannot give (issues 10, 12, 13, 16). While the strict
# emulated SM100 builds compile on the CPU cores (minutes), the GPU runs the native SM90 work:
#   gpu-1  compute-sanitizer memcheck of the sm90 family on small shapes (scripts/sm90_sanitize.py)
#   gpu-2  bench sm90_pingpong on three shapes beside cuDNN/flash, --plot (the bench PNG)
#   gpu-3  profile sm90_pingpong at B8 H16 S4k D128, --png (the roofline PNG)
# then, once the strict builds are cached:
#   emu-1  the Q-load fix before/after under strict emulation (causal T > s_k)
#   emu-2  verify sm100_tma_s2_tmem on seeds72 strict, then fast (the strict-mode overhead)
#   emu-3  scripts/device/trace.sh (fmhactl trace, 1 vs 2 stages, tracing on/off verdicts)
# Usage (repo root): OUT=/dir DEADLINE_S=380 bash scripts/device/final_session.sh
# Everything but summary.txt and the two PNGs is archived in $OUT/all.tgz (8 files come back).
set -u -o pipefail
OUT=${OUT:-/tmp/final-out}; mkdir -p "$OUT/logs"
L=$OUT/logs
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-final}
# emulated builds at ptxas -O0 (their speed means nothing; the default takes minutes per variant)
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O-0}
DEADLINE_S=${DEADLINE_S:-380}
start=$(date +%s)
left() { echo $(( DEADLINE_S - ($(date +%s) - start) )); }
log() { echo "[+$(( $(date +%s) - start ))s] $*" | tee -a "$OUT/summary.txt"; }
: > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee -a "$OUT/summary.txt"

# The Q-load fix taken out of a copy of the tree: the load warp issues Q's TMA for a tile with no key.
rm -rf /tmp/unfixed && mkdir -p /tmp/unfixed && cp -r fmhactl kernels scenarios pyproject.toml /tmp/unfixed/
python3 - /tmp/unfixed/kernels/sm100/fmha_sm100.cuh <<'PY' >> "$OUT/summary.txt" 2>&1
import re, sys
p = sys.argv[1]; s = open(p).read()
fix = re.search(r"\n    // A tile with no key to visit.*?\n    if \(t.n_tiles == 0\) return;", s, re.S)
assert fix, "fix block not found"
open(p, "w").write(s[:fix.start()] + s[fix.end():])
print("unfixed copy: removed", len(fix.group(0).splitlines()), "lines (the early return of load_warp)")
PY

# Strict (and one fast) emulated builds, one process each, in the background.
build_one() {  # tree variant strict(0/1) home
  (cd "$1" && PYTHONPATH="$1:/tmp/site" FMHACTL_HOME="$4" python3 - "$2" "$3" <<'PY'
import sys, time
from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.registry import get_variant
t = time.time()
r = build(get_variant(sys.argv[1]), BuildTarget("sm_90a", emulated=True, strict=sys.argv[2] == "1"))
print(f"built {sys.argv[1]} strict={sys.argv[2]} in {time.time() - t:.0f}s (cache hit {r.cache_hit})")
PY
  ) >> "$L/builds.log" 2>&1
}
build_one "$PWD" sm100_tma_s2_tmem 1 "$FMHACTL_HOME" & B1=$!
build_one "$PWD" sm100_tma_tmem 1 "$FMHACTL_HOME" & B2=$!
build_one /tmp/unfixed sm100_tma_s2_tmem 1 /tmp/fmhactl-unfixed & B3=$!
build_one "$PWD" sm100_tma_s2_tmem 0 "$FMHACTL_HOME" & B4=$!

log "gpu-1 memcheck of the sm90 family"
timeout 110 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python3 scripts/sm90_sanitize.py > "$L/memcheck.log" 2>&1
log "  memcheck rc=$?: $(grep -E 'ERROR SUMMARY' "$L/memcheck.log" | tr '\n' ' ')"
grep -E '^========= (Invalid|Program hit|Error|    at|Host Frame|  *at )' "$L/memcheck.log" \
  | sed 's/0x[0-9a-f]*/0x./g' | sort | uniq -c | sort -rn | head -n 12 >> "$OUT/summary.txt"

log "gpu-2 bench sm90_pingpong --plot"
timeout 120 python3 -m fmhactl bench sm90_pingpong --shape b=8,h=16,t=4096,s=4096,d=128 --shape b=8,h=16,t=4096,s=4096,d=128,causal \
  --shape b=8,h=8,t=4096,s=4096,d=256 --plot "$OUT/bench-sm90_pingpong.png" > "$L/bench.log" 2>&1
log "  bench rc=$?"; grep -E "sm90|cudnn|flash|TFLOP|ratio" "$L/bench.log" | head -n 12 >> "$OUT/summary.txt"

log "gpu-3 profile sm90_pingpong --png"
timeout 150 python3 -m fmhactl profile sm90_pingpong --shape b=8,h=16,t=4096,s=4096,d=128 --png "$OUT/roofline-sm90_pingpong.png" \
  > "$L/profile.log" 2>&1
log "  profile rc=$?"; tail -n 6 "$L/profile.log" >> "$OUT/summary.txt"

log "waiting for the strict builds ($(left) s left)"
for p in $B1 $B2 $B3 $B4; do
  while kill -0 "$p" 2>/dev/null; do
    if [ "$(left)" -lt 60 ]; then log "  deadline: builds still running"; break 2; fi
    sleep 2
  done
done
cat "$L/builds.log" >> "$OUT/summary.txt"

QSHAPES=(--shape t=300,s=113,causal --shape t=1023,s=239,causal --shape b=2,h=2,t=513,s=64,d=128,causal)
if [ "$(left)" -gt 60 ]; then
  log "emu-1 Q-load before/after (strict)"
  for tag in unfixed fixed; do
    tree=$([ $tag = fixed ] && echo "$PWD" || echo /tmp/unfixed)
    home=$([ $tag = fixed ] && echo "$FMHACTL_HOME" || echo /tmp/fmhactl-unfixed)
    (cd "$tree" && PYTHONPATH="$tree:/tmp/site" FMHACTL_HOME="$home" timeout 90 python3 -m fmhactl verify \
      sm100_tma_s2_tmem "${QSHAPES[@]}" --emulation strict --seed 3 --timeout 60 > "$L/qload.$tag.log" 2>&1
     echo "rc=$?" >> "$L/qload.$tag.log")
    { echo "---- Q-load $tag"; grep -E "tma-in-flight|FAIL|PASS|passed|rc=" "$L/qload.$tag.log" | cut -c1-400 | head -n 12; } \
      >> "$OUT/summary.txt"
  done
fi
if [ "$(left)" -gt 60 ]; then
  log "emu-2 seeds72 strict, then fast"
  for mode in strict fast; do
    t0=$(date +%s)
    timeout "$(( $(left) - 30 ))" python3 -m fmhactl verify sm100_tma_s2_tmem --grid seeds72 --emulation $mode --seed 72 --timeout 60 \
      > "$L/seeds72.$mode.log" 2>&1
    log "  seeds72 $mode rc=$? wall $(( $(date +%s) - t0 ))s: $(tail -n 1 "$L/seeds72.$mode.log")"
    grep -E "violation|tcgen05 " "$L/seeds72.$mode.log" | head -n 5 | cut -c1-300 >> "$OUT/summary.txt"
    [ "$(left)" -gt 60 ] || break
  done
fi
if [ "$(left)" -gt 45 ]; then
  log "emu-3 trace.sh"
  SKIP_BUILD=1 OUT="$OUT/trace" timeout "$(( $(left) - 15 ))" bash scripts/device/trace.sh > "$L/trace.log" 2>&1
  log "  trace.sh rc=$?"; tail -n 40 "$L/trace.log" >> "$OUT/summary.txt"
fi
( cd "$OUT" && tar czf all.tgz logs trace 2>/dev/null; rm -rf logs trace )
log "done"
cat "$OUT/summary.txt"
