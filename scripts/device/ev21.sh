#!/usr/bin/env bash
# The evidence call after a change to the strict emulator: its GPU tests (GPU_TESTS, default the
# strict PTX path's store rules: tests/ptx/test_bulk_groups.py and test_tma_store_guard.py), then
# the milestone evidence re-made whole (evidence.sh, every step: kernels/common/tcgen05_errors.h and
# tcgen05_ptx_emu.cuh are hashed by every SM100 variant, fmha_sm90.cuh by the SM90 ones).
# Session 20's call 6 was this with GPU_TESTS=tests/ptx/test_tma_store_guard.py (then ev20.sh);
# session 21's call 8 with the default. DSV4=1: after the evidence, sm100_tma_s2_tmem on grid dsv4
# under strict emulation at ptxas -O0 (its top-k load warp gathers with cp.async), served by the
# evidence run's strict builds (session 23's call 4: evidence 339 s, then 43 passed; SKIP=gpu-tests).
#     OUT=/dir [GPU_TESTS="..."] [DSV4=1] [SKIP=gpu-tests] bash scripts/device/ev21.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start ev21 570 "${1:-}"
STEP_RESERVE=8 STEP_MIN=8
# shellcheck disable=SC2086  # one word a test file
run gpu-tests 120 python3 -m pytest -q -rs -m gpu -p no:cacheprovider \
  ${GPU_TESTS:-tests/ptx/test_bulk_groups.py tests/ptx/test_tma_store_guard.py}
if [ -n "${DRY:-}" ]; then
  log "evidence: OUT=$OUT/ev bash scripts/device/evidence.sh (all steps)"; rm -rf "$RAW"; exit 0
fi
dsv4_reserve=$(( ${DSV4:-0} ? 140 : 0 ))
OUT=$OUT/ev DEADLINE_S=$(( $(left) - 12 - dsv4_reserve )) bash scripts/device/evidence.sh > "$RAW/evidence.log" 2>&1
log "evidence rc=$?: $(grep -c . "$OUT/ev/evidence/records.jsonl" 2>/dev/null) records"
# evidence.sh builds at ptxas -O0 into FMHACTL_HOME; the verify reuses those strict builds
[ "${DSV4:-0}" = 1 ] && run dsv4 130 env FMHACTL_EMU_PTXAS_O=0 python3 -m fmhactl verify sm100_tma_s2_tmem \
  --grid dsv4 --seed 27 --emulation strict
{
  [ -f "$RAW/gpu-tests.out" ] && { echo "==== GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|Error" "$RAW/gpu-tests.out" | tail -n 12; }
  [ -f "$OUT/ev/summary.txt" ] && { echo "==== evidence"; cat "$OUT/ev/summary.txt"; }
  [ -f "$RAW/dsv4.out" ] && { echo "==== verify sm100_tma_s2_tmem --grid dsv4 (strict)"; grep -c "^PASS" "$RAW/dsv4.out"; tail -n 2 "$RAW/dsv4.err"; }
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
