#!/usr/bin/env bash
# Session 30's last call: sm90_mqa_decode with the list and the S exchange in LDS/STS, against
# main's kernel (.ab/old) through decode27x.sh (decode GPU tests, the op's feature tests, verify
# dsv4-long on both MQA kernels, benches new / old), then verify dsv4 and compute-sanitizer
# memcheck / racecheck on a split top-k launch and an unsplit one.
# Not kept: apply notes/op-session30/call6-15-mqa-decode/list_and_exchange_lds.patch and put main's
# kernels/sm90/fmha_mqa_decode.cuh in .ab/old/kernels/sm90/ first.
#     OUT=/dir bash scripts/device/final30.sh [BUDGET_S]   carry: .whl (.ab travels untracked)
set -u -o pipefail
[ -d .ab/old ] || { echo "final30.sh: no .ab/old/ (main's sources to compare against)" >&2; exit 2; }
source scripts/device/steps.sh
device_start final30 420 "${1:-}"
OUT=$OUT/ab SKIP_GATHER=1 SPLITS_AB=1 BUDGET=$(( $(left) - 120 )) bash scripts/device/decode27x.sh > "$RAW/ab.log" 2>&1
grep -E "gpu-test|verify|passed|failed|old / new|^decode " "$OUT/ab/summary.txt" | while read -r line; do log "$line"; done
V=sm90_mqa_decode
run verify-dsv4 40 python3 -m fmhactl verify $V --grid dsv4 --seed 30 --timeout 35
tail -n 4 "$RAW/verify-dsv4.out" | while read -r line; do log "$line"; done
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
SPLIT="b=2,h=64,hkv=1,t=1,s=4096,d=512,kvshared,sink,topk=512"
UNSPLIT="b=64,h=64,hkv=1,t=1,s=4096,d=512,kvshared,sink,topk=512"
for tool in memcheck racecheck; do
  run "cs-$tool" 60 "$CS" --tool "$tool" --target-processes all --report-api-errors no python3 -m fmhactl bench $V \
    --seed 30 --warmup 0 --iters 1 --timeout 55 --shape "$SPLIT" --shape "$UNSPLIT"
  log "cs-$tool: $(grep -h "SUMMARY" "$RAW/cs-$tool.out" "$RAW/cs-$tool.err" 2>/dev/null | tr '\n' ' ')"
done
cp "$RAW/device.log" "$OUT/device.log"
