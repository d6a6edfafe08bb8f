#!/usr/bin/env bash
# Session 29: the decode kernels' code size (instruction fetch from a cold cache) A/B under ncu:
# `main` = .ab/decode_main.cuh (the source before, carry .ab), `default` = the tree's source, on
# cluster28.sh's FEW shapes (T = 1 few-KV-head, many-CTA, T = 4, hd64, hd256), then the decode GPU
# tests on the tree's source.
#     OUT=/dir [STEPS="ncu tests sanitizer"] bash scripts/device/icache29.sh [BUDGET_S]   carry: .whl .ab
set -u -o pipefail
source scripts/device/steps.sh
device_start icache29 400 "${1:-}"
STEPS=${STEPS:-"ncu tests"}
FEW=$(sed -n 's/^FEW=\${FEW:-"\(.*\)"}$/\1/p' scripts/device/cluster28.sh)
if has ncu; then
  OUT=$OUT/ncu NCU_ONLY=1 ROUNDS=1 SHAPES="${SHAPES:-$FEW}" NCU_SHAPES="${NCU_SHAPES:-}" SETTINGS="${SETTINGS:-main-default default}" \
    BUDGET=$(( $(left) - ${TESTS_RESERVE:-80} )) bash scripts/device/decode26.sh > "$RAW/ncu.log" 2>&1
  log "ncu rc=$?"
fi
if has tests || has sanitizer; then
  S=""; has tests && S="tests"; has sanitizer && S="$S sanitizer"
  OUT=$OUT/tests STEPS="$S" BUDGET=$(( $(left) - 5 )) bash scripts/device/cluster28.sh > "$RAW/tests.log" 2>&1
  log "tests: $(grep -h "pytest:\|cs-" "$RAW/tests.log" | tr '\n' ' ')"
fi
cp -r "$RAW" "$OUT/raw" 2>/dev/null
cat "$OUT/ncu/ncu.txt" 2>/dev/null
cat "$RAW/device.log"
