#!/usr/bin/env bash
# SM90 family after a kernel change, in one short device call: native builds, verify of every sm90
# variant on seeds72/awkward/fa (one process per variant), compute-sanitizer memcheck of all of
# them on small shapes, `bench` of $SM90_BENCH on the issue-12 suite shapes each supports (one
# process per variant, each beside cuDNN and flash SDPA; nothing else on the GPU meanwhile), and
# the strict-emulation rule tests at the default ptxas level and at -O0 (CPU builds run first,
# in the background).
#   OUT=/dir bash scripts/device/sm90_final.sh
set -u -o pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/sm90-final}; LOGS=$OUT/logs; mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-$PWD/.fmhactl/dev}
DEADLINE_S=${DEADLINE_S:-330}
SM90_BENCH=${SM90_BENCH:-sm90_pingpong sm90_persistent}
SUM=$OUT/summary.txt; : > "$SUM"
say() { echo "[+$(( $(date +%s) - T0 ))s] $*" | tee -a "$SUM"; }
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
say "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
SM90=$(python3 -m fmhactl list --json | python3 -c 'import json,sys; print(" ".join(v["name"] for v in json.load(sys.stdin) if v.get("launcher")=="sm90"))')

# Rule tests at the default ptxas level and at -O0, in the background from the start: their strict
# builds are CPU work; their GPU part is a few micro-kernels, done before the bench starts.
RULE_PIDS=""
RULE_LEVELS=${RULE_LEVELS-default 0}  # RULE_LEVELS= skips them (an SM90-only change)
for level in $RULE_LEVELS; do
  ( if [ $level = default ]; then unset FMHACTL_EMU_PTXAS_O; else export FMHACTL_EMU_PTXAS_O=0; fi
    timeout 170 python3 -m pytest -q -p no:cacheprovider -rA tests/tcgen05/test_emu_rules.py > "$LOGS/rules-$level.txt" 2>&1
    echo "rc=$?" >> "$LOGS/rules-$level.txt" ) &
  RULE_PIDS="$RULE_PIDS $!"
done

for v in $SM90; do python3 -m fmhactl build "$v" --arch sm_90a > "$LOGS/build-$v.txt" 2>&1 & done
for j in $(jobs -p); do case " $RULE_PIDS " in *" $j "*) ;; *) wait "$j";; esac; done
say "builds: $(grep -h 'sm90_' "$LOGS"/build-sm90_*.txt | awk '{print $1 "/" $3 ":" $7}' | sort -u | tr '\n' ' ')"
for v in $SM90; do
  ( for g in seeds72 awkward fa; do
      timeout "$(left)" python3 -m fmhactl verify "$v" --grid "$g" --seed 23 --timeout 60 > "$LOGS/verify-$v-$g.txt" 2>&1
      echo "rc=$?" >> "$LOGS/verify-$v-$g.txt"
    done ) &
done
for j in $(jobs -p); do case " $RULE_PIDS " in *" $j "*) ;; *) wait "$j";; esac; done
for v in $SM90; do for g in seeds72 awkward fa; do
  f=$LOGS/verify-$v-$g.txt
  say "verify $v $g: $(grep passed "$f" | tail -n 1) $(tail -n 1 "$f") | max err $(grep -o 'max|err| [0-9.e-]*' "$f" | awk '{print $2}' | sort -g | tail -n 1)"
done; done
timeout "$(left)" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 python3 scripts/sm90_sanitize.py \
  > "$LOGS/memcheck.txt" 2>&1
say "sm90 memcheck rc=$?: $(grep -E 'ERROR SUMMARY|passed' "$LOGS/memcheck.txt" | tr '\n' ' ')"
grep -E '^========= (Invalid|Program hit)|^=========     at' "$LOGS/memcheck.txt" | sed 's/0x[0-9a-f]*/0x./g' | sort | uniq -c | head -n 4 | tee -a "$SUM"
wait $RULE_PIDS
for level in $RULE_LEVELS; do
  say "rule tests (ptxas $level): $(grep -E 'passed|failed' "$LOGS/rules-$level.txt" | tail -n 1) $(tail -n 1 "$LOGS/rules-$level.txt")"
  grep -E "^(FAILED|ERROR)" "$LOGS/rules-$level.txt" | head -n 5 | cut -c1-200 | tee -a "$SUM"
done
for v in $SM90_BENCH; do
  shapes=$(python3 scripts/suite_shapes.py "$v" sm90)  # bench refuses a list with a shape the variant cannot run
  timeout "$(left)" python3 -m fmhactl bench "$v" $shapes --json --plot "$OUT/bench-$v.png" > "$LOGS/bench-$v.json" 2> "$LOGS/bench-$v.err"
  say "bench $v rc=$? $(tail -n 1 "$LOGS/bench-$v.err")"
  python3 scripts/bench_summary.py "$LOGS/bench-$v.json" | tee -a "$SUM"
done
unset FMHACTL_EMU_PTXAS_O
say "total"
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOGS"
