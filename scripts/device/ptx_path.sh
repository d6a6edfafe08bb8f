#!/usr/bin/env bash
# Issue 28 on an sm_90 GPU, one pass: the native sm_100a PTX of every sm100 variant through the PTX
# path (--emulate native, --emulation fast) beside the tc5:: emulated build (--emulate tc5, fast),
# same seed, on seeds72 (then awkward, fa while time is left); the raw-PTX kernel tests; the
# tcgen05 GPU tests with the PTX path; optionally the mutation table. Logs in $OUT, summary last.
#   bash scripts/device/ptx_path.sh [budget_s] [mutations]
set -u -o pipefail
OUT=${OUT:-/tmp/ptx-path-out}; mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-ptx}
budget=${1:-450}; mutations=${2:-}
t_start=$(date +%s)
left() { echo $(( budget - ( $(date +%s) - t_start ) )); }
fm() { python3 -m fmhactl "$@"; }
VARIANTS=$(python3 -c "from fmhactl.registry import load_registry as r; print(' '.join(sorted(n for n, v in r().items() if 'sm_100a' in v.archs and 'sm_90a' in v.emulated_on)))")
echo "variants: $VARIANTS"
python3 -c "from fmhactl.ptx.linker import linker_ptx_version as v; from fmhactl.build.compiler import nvrtc_version as n; print('nvJitLink reads PTX', v(), n())"

# tc5:: fast builds in the background (minutes each; in parallel), PTX-path builds in the foreground.
for v in $VARIANTS; do
  FMHACTL_EMULATE=tc5 FMHACTL_EMULATION=fast timeout $(( budget - 60 )) python3 -m fmhactl build "$v" --arch sm_90a > "$OUT/build-tc5-$v.log" 2>&1 &
done
python3 scripts/device/ptx_build_all.py $VARIANTS 2>&1 | tee "$OUT/build-ptx.log"
echo "[+$(( $(date +%s) - t_start ))s] PTX-path builds done"


run_verify() {  # emulate grid
  local lim; lim=$(left); [ "$lim" -gt 20 ] || { echo "verify $1 $2: skipped (no time left)"; return; }
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout "$lim" python3 -m fmhactl verify $VARIANTS --grid "$2" --seed 7 --timeout 120 --emulate "$1" --emulation fast \
    > "$OUT/verify-$1-$2.log" 2>&1
  rc=$?; t1=$(date +%s.%N)
  printf 'verify %-6s %-8s rc=%s wall=%ss: %s\n' "$1" "$2" "$rc" "$(python3 -c "print(f'{$t1 - $t0:.1f}')")" \
    "$(tail -n 1 "$OUT/verify-$1-$2.log")" | tee -a "$OUT/verify-summary.log"
}
run_verify native seeds72
wait  # the tc5 builds
echo "[+$(( $(date +%s) - t_start ))s] tc5 builds: $(grep -l -i error "$OUT"/build-tc5-*.log 2>/dev/null | wc -l) with errors"
run_verify tc5 seeds72
if [ -n "$mutations" ]; then
  timeout $(( $(left) > 30 ? $(left) : 30 )) python3 scripts/device/ptx_mutations.py "$OUT/mut" > "$OUT/mutations.log" 2>&1
  echo "mutations rc=$?"
fi
run_verify native awkward
run_verify tc5 awkward
run_verify native fa
run_verify tc5 fa
timeout $(( $(left) > 10 ? $(left) : 10 )) python3 -m pytest -q -p no:cacheprovider tests/ptx/test_raw_kernel.py > "$OUT/raw-kernel.log" 2>&1
echo "raw-PTX kernel tests rc=$?: $(tail -n 1 "$OUT/raw-kernel.log")"
FMHACTL_EMULATE=native timeout $(( $(left) > 10 ? $(left) : 10 )) python3 -m pytest -q -p no:cacheprovider -m gpu tests/tcgen05/test_tc5_gpu.py > "$OUT/tc5-gpu-tests-native.log" 2>&1
echo "tcgen05 GPU tests through the PTX path rc=$?: $(tail -n 1 "$OUT/tc5-gpu-tests-native.log")"
python3 - "$OUT" <<'PY' | tee "$OUT/compare.txt"
import re, sys, glob, os
rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "verify-*-*.log"))):
    emulate, grid = os.path.basename(path)[7:-4].split("-", 1)
    for line in open(path, errors="replace"):
        m = re.match(r"^(PASS|FAIL|CRASH|HANG|ERROR|UNSUPPORTED)\S*\s+(\S+)\s+(\S+)(?:.*?max\|err\| ([0-9.e+-]+|nan|inf))?", line)
        if m:
            key = (m.group(2), grid)
            r = rows.setdefault(key, {}).setdefault(emulate, {"PASS": 0, "other": 0, "max": 0.0})
            r["PASS" if m.group(1) == "PASS" else "other"] += 1
            if m.group(4):
                try: r["max"] = max(r["max"], float(m.group(4)))
                except ValueError: r["max"] = float("inf")
print(f"{'variant':24} {'grid':8} {'native pass/other max_err':28} {'tc5 pass/other max_err':28}")
for (variant, grid), by in sorted(rows.items()):
    cell = lambda e: (f"{by[e]['PASS']}/{by[e]['other']} {by[e]['max']:.3e}" if e in by else "-")
    print(f"{variant:24} {grid:8} {cell('native'):28} {cell('tc5'):28}")
PY
echo "---- summary ($(( $(date +%s) - t_start )) s)"
grep -h "ptx-build" "$OUT/build-ptx.log"
cat "$OUT/verify-summary.log" 2>/dev/null
[ -f "$OUT/mutations.log" ] && cat "$OUT/mutations.log"
