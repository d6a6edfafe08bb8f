#!/usr/bin/env bash
# Session 22: the strict emulator's cp.async group tracking (cp-async-not-waited) on a GPU before
# the evidence is re-made: the tc5:: rule kernels (the broken case and the correct one, which now
# refills B by cp.async and waits with wait_group 1 of 2 groups), the PTX path's store rules (the
# changed tracker structs under real kernels), then the SM100 top-k variant on grid dsv4 under
# strict emulation (its load warp gathers listed keys with cp.async: every config must PASS and
# report no violation). Session 23 added the exit check (cp-async-pending-at-exit) and the PTX
# path's cp.async GPU tests (the raw attention tile with K gathered by cp.async); the dsv4 verify
# builds at ptxas -O0 (FMHACTL_EMU_PTXAS_O: a fresh -O3 strict build took over 200 s).
#     OUT=/dir bash scripts/device/cp22.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start cp22 300 "${1:-}"
STEP_RESERVE=8 STEP_MIN=8
run gpu-tests 170 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/tcgen05/test_emu_rules.py \
  tests/ptx/test_bulk_groups.py tests/ptx/test_tma_store_guard.py tests/ptx/test_cp_async_groups.py \
  tests/ptx/test_raw_kernel.py
run dsv4 200 env FMHACTL_EMU_PTXAS_O=0 python3 -m fmhactl verify sm100_tma_s2_tmem --grid dsv4 --seed 27 --emulation strict
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
{
  echo "==== GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|Error|cp-async" "$RAW/gpu-tests.out" | tail -n 20
  echo "==== verify sm100_tma_s2_tmem --grid dsv4 (strict)"; tail -n 25 "$RAW/dsv4.out"; tail -n 5 "$RAW/dsv4.err"
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
