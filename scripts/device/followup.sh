#!/usr/bin/env bash
# One device call that overlaps CPU-bound strict builds with GPU work:
#   CPU (background): strict builds of the SM100 variants in $STRICT_VARIANTS + the rule kernels.
#   GPU meanwhile: native SM90 builds, verify of $SM90_VERIFY on seeds72/awkward/fa, memcheck of
#     the SM90 family, `bench --suite sm90` of each variant in $SM90_BENCH (each beside cuDNN and
#     flash SDPA in its own process; the compiles run on other cores, the GPU is not shared).
#   GPU after the builds: the rule tests, strict verify of the shapes listed in .devrun/<variant>.fa_tail
#     (configs of the fa grid that an earlier call's deadline cut off), strict vs fast wall time.
#   OUT=/dir bash scripts/device/followup.sh
set -u -o pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/followup}; LOGS=$OUT/logs; mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-$PWD/.fmhactl/dev} FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0}
DEADLINE_S=${DEADLINE_S:-560}
STRICT_VARIANTS=${STRICT_VARIANTS:-}
SM90_VERIFY=${SM90_VERIFY:-sm90_persistent}
SM90_BENCH=${SM90_BENCH:-sm90_pingpong sm90_persistent}
SUM=$OUT/summary.txt; : > "$SUM"
say() { echo "[+$(( $(date +%s) - T0 ))s] $*" | tee -a "$SUM"; }
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
say "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"

items="emu_rules:strict"
for v in $STRICT_VARIANTS; do items="$items $v:strict"; done
[ -n "$STRICT_VARIANTS" ] && items="$items ${STRICT_VARIANTS%% *}:fast"
python3 scripts/device/build_targets.py $items > "$LOGS/builds.txt" 2>&1 &
BUILDS=$!

for v in $(python3 -m fmhactl list --json | python3 -c 'import json,sys; print(" ".join(v["name"] for v in json.load(sys.stdin) if v.get("launcher")=="sm90"))'); do
  python3 -m fmhactl build "$v" --arch sm_90a > "$LOGS/build-$v.txt" 2>&1 &
done
wait $(jobs -p | grep -v "^$BUILDS$") 2>/dev/null
say "sm90 builds: $(grep -h 'sm90_' "$LOGS"/build-sm90_*.txt | awk '{print $1, $3, "regs", $4, "spills", $7}' | sort -u | tr '\n' ';')"
for v in $SM90_VERIFY; do
  for g in seeds72 awkward fa; do
    timeout "$(left)" python3 -m fmhactl verify "$v" --grid "$g" --seed 12 --timeout 60 > "$LOGS/verify-$v-$g.txt" 2>&1
    say "verify $v $g rc=$?: $(tail -n 1 "$LOGS/verify-$v-$g.txt") | max err $(grep -o 'max|err| [0-9.e-]*' "$LOGS/verify-$v-$g.txt" | awk '{print $2}' | sort -g | tail -n 1)"
  done
done
timeout "$(left)" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python3 scripts/sm90_sanitize.py \
  > "$LOGS/memcheck.txt" 2>&1
say "sm90 memcheck rc=$?: $(grep -E 'ERROR SUMMARY|passed' "$LOGS/memcheck.txt" | tr '\n' ' ')"
for v in $SM90_BENCH; do
  shapes=$(python3 scripts/suite_shapes.py "$v" sm90)  # bench refuses a list with a shape the variant cannot run
  timeout "$(left)" python3 -m fmhactl bench "$v" $shapes --json --plot "$OUT/bench-$v.png" > "$LOGS/bench-$v.json" 2> "$LOGS/bench-$v.err"
  say "bench $v rc=$?"
  python3 scripts/bench_summary.py "$LOGS/bench-$v.json" | tee -a "$SUM"
done

wait $BUILDS; say "strict builds: $(tr '\n' ';' < "$LOGS/builds.txt")"
timeout "$(left)" python3 -m pytest -q -p no:cacheprovider -rA tests/tcgen05/test_emu_rules.py > "$LOGS/rules.txt" 2>&1
say "rule tests rc=$?: $(tail -n 1 "$LOGS/rules.txt")"
grep -E "^(PASSED|FAILED|ERROR)" "$LOGS/rules.txt" | sed 's/^/    /' | tee -a "$SUM"
for v in $STRICT_VARIANTS; do
  f=.devrun/$v.fa_tail; [ -s "$f" ] || continue
  args=(); while read -r sh; do [ -n "$sh" ] && args+=(--shape "$sh"); done < "$f"
  (timeout "$(left)" python3 -m fmhactl verify "$v" "${args[@]}" --seed 113 --timeout 120 --emulation strict \
     > "$LOGS/fatail-$v.txt" 2>&1; echo "rc=$?" >> "$LOGS/fatail-$v.txt") &
done
wait
for v in $STRICT_VARIANTS; do
  f=$LOGS/fatail-$v.txt; [ -f "$f" ] || continue
  say "fa tail $v (${#v}): $(grep -c '^PASS' "$f") PASS $(grep -c '^FAIL' "$f") FAIL $(grep -c '^UNSUPPORTED' "$f") UNSUP | $(grep passed "$f" | tail -n 1) $(tail -n 1 "$f") | max err $(grep -o 'max|err| [0-9.e-]*' "$f" | awk '{print $2}' | sort -g | tail -n 1)"
  grep -E "^(FAIL|HANG|CRASH|ERROR)" "$f" | head -n 3 | cut -c1-250 | tee -a "$SUM"
done
v=${STRICT_VARIANTS%% *}
if [ -n "$v" ] && [ "$(left)" -gt 30 ]; then
  bash scripts/device/strict_overhead.sh "$v" "$LOGS" "$(left)" | while read -r line; do say "$line"; done
fi
say "total"
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOGS"
