#!/usr/bin/env bash
# Issue 27 (features) on the H100, one call of <= 420 s: strict sm_90a builds of the SM100 family
# (FMHACTL_EMU_PTXAS_O=0, all in parallel; sm100_tma_s2_tmem carries the features, the others share
# its source), then under strict emulation: sm100_tma_s2_tmem on dsv4 and seeds72, the other SM100
# variants on seeds72 while time is left (their feature switches are 0: unchanged code).
# Per-feature counts and max errors (O and LSE) are printed last and written to $OUT/summary.txt;
# $OUT also gets builds.log, not-passed.txt and raw.tgz (every verify's output and the stored rows).
set -u -o pipefail
OUT=${OUT:-/tmp/features-out}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/features-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-features}
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0}
BUDGET=${BUDGET:-400}   # seconds this script may use in all
start=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
fm() { python3 -m fmhactl "$@"; }
OTHERS="sm100_tma_tmem sm100_direct_tmem sm100_tma_s2_smem sm100_direct_smem sm100_tma_s2_tmem_ex2"

python3 scripts/device/build_targets.py sm100_tma_s2_tmem:strict > "$RAW/build-main.log" 2>&1 &
main_build=$!
python3 scripts/device/build_targets.py $(for v in $OTHERS; do printf '%s:strict ' "$v"; done) \
  > "$RAW/build-others.log" 2>&1 &
others_build=$!
wait $main_build; echo "build sm100_tma_s2_tmem rc=$? at $(( $(date +%s) - start )) s: $(tail -n 1 "$RAW/build-main.log")"

run_verify() {  # name variant grid: one verify, JSON to $OUT, bounded by the time left
  local name=$1 variant=$2 grid=$3 t
  t=$(( $(left) - 15 )); if (( t < 20 )); then echo "$name: skipped (no time left)"; return; fi
  timeout --kill-after=10 "$t" python3 -m fmhactl verify "$variant" --grid "$grid" --seed 27 --timeout 60 --emulation strict --json \
    > "$RAW/verify-$name.json" 2> "$RAW/verify-$name.err"
  echo "$name rc=$? at $(( $(date +%s) - start )) s: $(tail -n 1 "$RAW/verify-$name.err")"
}
run_verify dsv4 sm100_tma_s2_tmem dsv4
run_verify seeds72 sm100_tma_s2_tmem seeds72
# The bench feature baselines (sdpa-mask, flex compiled) against the reference on CUDA: new code, never run on a GPU.
t=$(( $(left) - 60 )); if (( t > 30 )); then t=$(( t < 100 ? t : 100 ))
  timeout --kill-after=10 "$t" python3 -m pytest -q -p no:cacheprovider -k baselines tests/features/test_features_gpu.py \
    > "$RAW/baselines-gpu.log" 2>&1
  echo "feature baselines on the GPU rc=$?: $(tail -n 1 "$RAW/baselines-gpu.log")"
else echo "feature baselines on the GPU: skipped (no time left)"; fi
wait $others_build; echo "builds of the others rc=$? at $(( $(date +%s) - start )) s"; cat "$RAW/build-others.log"
for v in $OTHERS; do run_verify "seeds72-$v" "$v" seeds72; done
cat "$RAW"/build-*.log > "$OUT/builds.log"
# Every stored verify row, including those of a verify the time limit cut short (its --json never printed).
fm results --kind verify --limit 0 --json > "$RAW/stored-rows.json" 2> "$RAW/stored-rows.err"
python3 - "$RAW/stored-rows.json" > "$OUT/not-passed.txt" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    if r["status"] != "PASS":
        reason = (r.get("metrics") or {}).get("reasons") or (r.get("metrics") or {}).get("reason") or ""
        print(r["status"], r["variant"], r["config_key"], reason)
PY
tar -czf "$OUT/raw.tgz" -C "$RAW" .
echo "---- not passed: $(wc -l < "$OUT/not-passed.txt") rows ($(grep -vc '^UNSUPPORTED' "$OUT/not-passed.txt") not UNSUPPORTED)"
grep -v '^UNSUPPORTED' "$OUT/not-passed.txt" | head -n 20
echo "---- summary ($(( $(date +%s) - start )) s)"
python3 scripts/device/features_summary.py "$RAW/stored-rows.json" | tee "$OUT/summary.txt"
