#!/usr/bin/env bash
# The SM90 family's device pass (one call on the lent H100): build, verify on seeds72 / awkward /
# fa (LSE checked), bench the issue's suite beside cuDNN + flash SDPA, sanitizers on small shapes,
# optional ncu profile. Logs go to $OUT; a short summary is printed last.
# Usage: bash scripts/sm90_device.sh [verify] [bench] [sanitize] [profile]
set -u -o pipefail
OUT=${OUT:-/tmp/sm90-out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-$OUT/home}
fm() { python3 -m fmhactl "$@"; }
STEPS=${*:-verify bench}
VARIANTS=${SM90_VARIANTS:-"sm90_pipelined sm90_overlap sm90_pingpong"}
SUMMARY=$OUT/summary.txt; : > "$SUMMARY"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader >> "$SUMMARY"
for v in $VARIANTS; do fm build "$v" --arch sm_90a > "$OUT/build-$v.log" 2>&1 & done; wait
for v in $VARIANTS; do grep -E "sm90" "$OUT/build-$v.log" | head -0; done
case " $STEPS " in *" verify "*)
  for v in $VARIANTS; do
    for g in seeds72 awkward fa; do
      fm verify "$v" --grid "$g" --seed 72 --timeout 60 > "$OUT/verify-$v-$g.log" 2>&1
      echo "verify $v $g rc=$?: $(tail -n 1 "$OUT/verify-$v-$g.log")" >> "$SUMMARY"
    done
  done;;
esac
case " $STEPS " in *" bench "*)
  for v in ${SM90_BENCH_VARIANTS:-$VARIANTS}; do
    fm bench --suite sm90 "$v" --json > "$OUT/bench-$v.json" 2> "$OUT/bench-$v.err"
    echo "bench $v rc=$?" >> "$SUMMARY"
    python3 scripts/bench_summary.py "$OUT/bench-$v.json" >> "$SUMMARY"
  done;;
esac
case " $STEPS " in *" accuracy "*)
  # The rescale threshold's accuracy effect: the same fa grid and seed with threshold 8 and 0.
  for v in sm90_pingpong sm90_pingpong_rescale0; do
    fm build "$v" --arch sm_90a > /dev/null 2>&1
    fm verify "$v" --grid fa --seed 1234 --json > "$OUT/acc-$v.json" 2> "$OUT/acc-$v.err"
    echo "accuracy $v rc=$?: $(tail -n 1 "$OUT/acc-$v.err")" >> "$SUMMARY"
  done
  python3 scripts/sm90_accuracy.py "$OUT/acc-sm90_pingpong.json" "$OUT/acc-sm90_pingpong_rescale0.json" >> "$SUMMARY" 2>&1
  fm bench sm90_pingpong_rescale0 --shape b=8,h=16,t=4096,s=4096,d=128 --shape b=8,h=16,t=4096,s=4096,d=128,causal \
    --shape b=8,h=8,t=4096,s=4096,d=256 --shape b=16,h=16,t=1024,s=1024,d=64 --json > "$OUT/bench-rescale0.json" 2>/dev/null
  python3 scripts/sm90_accuracy.py --bench "$OUT/bench-rescale0.json" >> "$SUMMARY" 2>&1;;
esac
case " $STEPS " in *" profile "*)
  timeout 150 python3 -m fmhactl profile ${SM90_PROFILE_VARIANT:-sm90_pingpong} --shape b=8,h=16,t=4096,s=4096,d=128 > "$OUT/profile.log" 2>&1
  echo "profile rc=$?" >> "$SUMMARY"; tail -n 25 "$OUT/profile.log" >> "$SUMMARY";;
esac
case " $STEPS " in *" sanitize "*)
  for tool in memcheck racecheck synccheck; do
    timeout 110 compute-sanitizer --tool $tool --error-exitcode 9 python3 scripts/sm90_sanitize.py > "$OUT/san-$tool.log" 2>&1
    echo "sanitize $tool rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed' "$OUT/san-$tool.log" | tr '\n' ' ')" >> "$SUMMARY"
    # What kinds of errors, and in which function (kernel accesses name fmha_sm90_*; API errors name the call).
    grep -E '^========= (Invalid|Program hit|Race|Barrier|Error|    at|Host Frame|  *at )' "$OUT/san-$tool.log" \
      | sed 's/0x[0-9a-f]*/0x./g' | sort | uniq -c | sort -rn | head -n 8 >> "$SUMMARY"
  done
  ;;
esac
# Only 8 files come back from the device: keep the summary and one archive of everything else.
( cd "$OUT" && tar czf all.tgz --exclude=all.tgz --exclude=summary.txt --exclude='home/cache' --exclude='*.ncu-rep' \
    $(ls -A | grep -v -e '^all.tgz$' -e '^summary.txt$') 2>/dev/null && \
  find . -mindepth 1 -maxdepth 1 ! -name all.tgz ! -name summary.txt -exec rm -rf {} + )
cat "$SUMMARY"
