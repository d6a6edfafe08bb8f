#!/usr/bin/env bash
# Strict emulation (issue 13 item 5) on an sm_90 GPU, one pass: build the SM100 family for sm_90a
# in both emulator modes (parallel), run the rule micro-kernels and the tcgen05 GPU tests, then
# verify every sm100 variant on seeds72 and awkward under --emulation fast and strict (same seed,
# so the wall times compare), and the Q-load case (causal, T=300 > s_k=113) on the TMA variants.
# Logs go to $OUT; the summary is printed last.
set -u -o pipefail
OUT=${OUT:-/tmp/emu-strict-out}; mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-emu}
fm() { python3 -m fmhactl "$@"; }
VARIANTS="sm100_direct_tmem sm100_direct_smem sm100_tma_tmem sm100_tma_s2_tmem sm100_tma_s2_smem"
TMA_VARIANTS="sm100_tma_tmem sm100_tma_s2_tmem sm100_tma_s2_smem"
start=$(date +%s)
for v in $VARIANTS; do
  FMHACTL_EMULATION=fast fm build "$v" --arch sm_90a > /dev/null 2>&1 &   # the build CLI makes fast builds
done
python3 - <<'PY' > "$OUT/builds.log" 2>&1 &
from concurrent.futures import ProcessPoolExecutor
def one(name):
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.registry import get_variant
    r = build(get_variant(name), BuildTarget("sm_90a", emulated=True, strict=True))
    return name, round(r.compile_seconds, 1), [(k.kernel, k.registers, k.spill_stores) for k in r.kernels][:2]
names = "sm100_direct_tmem sm100_direct_smem sm100_tma_tmem sm100_tma_s2_tmem sm100_tma_s2_smem".split()
with ProcessPoolExecutor(8) as pool:
    for row in pool.map(one, names):
        print(*row)
PY
wait
echo "builds: $(( $(date +%s) - start )) s"; cat "$OUT/builds.log"
python3 -m pytest -q -p no:cacheprovider tests/tcgen05/test_emu_rules.py tests/tcgen05/test_tc5_gpu.py \
  > "$OUT/tests.log" 2>&1; echo "tests rc=$?: $(tail -n 1 "$OUT/tests.log")"
: > "$OUT/verify.log"
for g in seeds72 awkward; do
  for mode in fast strict; do
    t0=$(date +%s.%N)
    fm verify $VARIANTS --grid "$g" --seed 7 --timeout 120 --emulation "$mode" > "/tmp/verify-$mode-$g.log" 2>&1
    rc=$?; t1=$(date +%s.%N)
    printf '%s %s rc=%s wall=%.1fs: %s\n' "$g" "$mode" "$rc" "$(echo "$t1 - $t0" | bc)" \
      "$(tail -n 1 "/tmp/verify-$mode-$g.log")" | tee -a "$OUT/verify.log"
    { echo "==== $g $mode"; grep -v '^PASS' "/tmp/verify-$mode-$g.log" | head -n 200; } >> "$OUT/verify-details.log"
  done
done
for mode in fast strict; do
  fm verify $TMA_VARIANTS --shape b=1,h=2,t=300,s=113,d=128,causal --shape b=1,h=1,t=300,s=113,d=64,causal \
    --seed 7 --emulation "$mode" > "/tmp/qload-$mode.log" 2>&1
  { echo "==== Q load, $mode (rc=$?)"; cat "/tmp/qload-$mode.log"; } >> "$OUT/qload.log"
done
echo "---- summary"
cat "$OUT/verify.log"
echo "rules seen (strict):"; grep -ho 'tcgen05 [a-z-]*:' /tmp/verify-strict-*.log | sort | uniq -c
grep -h 'tcgen05 ' /tmp/verify-strict-*.log | sed 's/block [0-9]*/block N/' | sort | uniq -c | sort -rn | head -n 12
tail -n 25 "$OUT/qload.log"
echo "total $(( $(date +%s) - start )) s"
