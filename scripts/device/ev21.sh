#!/usr/bin/env bash
# Session 21, the evidence call: the strict PTX emulator's bulk-store tracking (tma-store-source-overwritten,
# tma-store-pending-at-exit: tests/ptx/test_bulk_groups.py and test_tma_store_guard.py gpu cases), then the
# milestone evidence re-made whole (evidence.sh, every step: kernels/common/tcgen05_errors.h and
# tcgen05_ptx_emu.cuh changed, which every SM100 variant hashes, and fmha_sm90.cuh with the review mend).
#     OUT=/dir bash scripts/device/ev21.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start ev21 570 "${1:-}"
STEP_RESERVE=8 STEP_MIN=8
run gpu-test-tma-store 120 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/ptx/test_bulk_groups.py tests/ptx/test_tma_store_guard.py
if [ -n "${DRY:-}" ]; then
  log "evidence: OUT=$OUT/ev bash scripts/device/evidence.sh (all steps)"; rm -rf "$RAW"; exit 0
fi
OUT=$OUT/ev DEADLINE_S=$(( $(left) - 12 )) bash scripts/device/evidence.sh > "$RAW/evidence.log" 2>&1
log "evidence rc=$?: $(grep -c . "$OUT/ev/evidence/records.jsonl" 2>/dev/null) records"
{
  echo "==== bulk-store tracking and tma-store-negative GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|Error" "$RAW/gpu-test-tma-store.out" | tail -n 12
  [ -f "$OUT/ev/summary.txt" ] && { echo "==== evidence"; cat "$OUT/ev/summary.txt"; }
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
