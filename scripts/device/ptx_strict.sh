#!/usr/bin/env bash
# Issue 28, strict PTX path on an sm_90 GPU, one pass (one device call):
#   1. the PTX-path strict builds of every sm100 variant (--emulate native --emulation strict), in parallel;
#      meanwhile the dropped-wait::ld mutation of the native backend through the strict PTX path and
#      the raw-PTX kernel GPU tests (fast and strict, and the dropped-wait::ld raw kernel);
#   2. verify every sm100 variant on seeds72 through the strict PTX path.
# Logs in $OUT, summary last.   bash scripts/device/ptx_strict.sh [budget_s]
set -u -o pipefail
OUT=${OUT:-/tmp/ptx-strict-out}; mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-ptx}
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0}
budget=${1:-440}
t_start=$(date +%s)
left() { echo $(( budget - ( $(date +%s) - t_start ) )); }
VARIANTS=$(python3 -c "from fmhactl.registry import load_registry as r; print(' '.join(sorted(n for n, v in r().items() if 'sm_100a' in v.archs and 'sm_90a' in v.emulated_on)))")
echo "variants: $VARIANTS"

# background: the mutation (its own strict build of the mutated tree) and the raw-PTX kernel tests
timeout $(( budget - 20 )) python3 scripts/device/ptx_mutations.py "$OUT/mut" --emulation strict --only "wait::ld" \
  > "$OUT/mutation-strict.log" 2>&1 &
mut_pid=$!
timeout $(( budget - 20 )) python3 -m pytest -q -p no:cacheprovider -m gpu tests/ptx/test_raw_kernel.py \
  > "$OUT/raw-kernel.log" 2>&1 &
raw_pid=$!

python3 scripts/device/ptx_build_all.py --strict $VARIANTS 2>&1 | tee "$OUT/build-ptx-strict.log"
echo "[+$(( $(date +%s) - t_start ))s] strict PTX-path builds done"

lim=$(( $(left) - 15 ))
t0=$(date +%s.%N)
timeout "$lim" python3 -m fmhactl verify $VARIANTS --grid seeds72 --seed 7 --timeout 120 --emulate native \
  --emulation strict > "$OUT/verify-native-strict-seeds72.log" 2>&1
rc=$?; t1=$(date +%s.%N)
verify_line="verify native strict seeds72 rc=$rc wall=$(python3 -c "print(f'{$t1 - $t0:.1f}')")s: $(tail -n 1 "$OUT/verify-native-strict-seeds72.log")"
echo "$verify_line"

wait $raw_pid; raw_rc=$?
wait $mut_pid; mut_rc=$?
python3 - "$OUT/verify-native-strict-seeds72.log" <<'PY' | tee "$OUT/per-variant.txt"
import re, sys
rows = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^(PASS|FAIL|CRASH|HANG|ERROR|UNSUPPORTED)\S*\s+(\S+)\s+(\S+)(?:.*?max\|err\| ([0-9.e+-]+|nan|inf))?", line)
    if m:
        r = rows.setdefault(m.group(2), {"PASS": 0, "UNSUPPORTED": 0, "other": 0, "max": 0.0})
        r[m.group(1) if m.group(1) in ("PASS", "UNSUPPORTED") else "other"] += 1
        if m.group(4):
            try: r["max"] = max(r["max"], float(m.group(4)))
            except ValueError: r["max"] = float("inf")
print(f"{'variant':24} pass unsupported other max_err")
for name, r in sorted(rows.items()):
    print(f"{name:24} {r['PASS']:4} {r['UNSUPPORTED']:11} {r['other']:5} {r['max']:.3e}")
PY
grep -h -E "ld-not-waited|st-not-waited|tmem-busy|missing-fence|commit-without|uncommitted|in-flight" \
  "$OUT/verify-native-strict-seeds72.log" | head -n 20 > "$OUT/strict-rules-seen.txt"
tar -C "$OUT" -czf "$OUT/mut.tgz" mut 2>/dev/null && rm -rf "$OUT/mut"
echo "---- summary ($(( $(date +%s) - t_start )) s)"
grep -h "ptx-strict-build" "$OUT/build-ptx-strict.log"
echo "$verify_line"
echo "rules named in the verify log (first 20 lines): $(wc -l < "$OUT/strict-rules-seen.txt")"
echo "raw-PTX kernel GPU tests rc=$raw_rc: $(tail -n 1 "$OUT/raw-kernel.log")"
echo "mutation (strict) rc=$mut_rc:"; cat "$OUT/mutation-strict.log"
