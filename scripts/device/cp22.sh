#!/usr/bin/env bash
# The strict emulator's cp.async group rules on a GPU before the evidence is re-made: the tc5::
# rule kernels (the broken cases of cp-async-not-waited and cp-async-pending-at-exit, the correct
# ones under three seeds: a refill waited with wait_group 1 of 2 groups, and kCorrectCpSpan, one
# pending group on both sides of the operand an MMA reads), the PTX path's cp.async cases (the
# raw attention tile with K gathered by cp.async, its wait kept, moved or dropped), its store
# rules and the raw tile itself. 33 + 12 tests took 118 s + about 50 s on an H200 (session 23).
# The SM100 top-k variant's dsv4 verify under strict emulation (its load warp gathers listed keys
# with cp.async) runs after the evidence instead (ev21.sh DSV4=1): a fresh strict build of it took
# over 200 s at ptxas -O0 on its own (session 23, call 2), the evidence run's builds serve it.
#     OUT=/dir bash scripts/device/cp22.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start cp22 300 "${1:-}"
STEP_RESERVE=8 STEP_MIN=8
run gpu-tests 280 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/tcgen05/test_emu_rules.py \
  tests/ptx/test_cp_async_groups.py tests/ptx/test_raw_kernel.py tests/ptx/test_bulk_groups.py \
  tests/ptx/test_tma_store_guard.py
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
{
  echo "==== GPU tests"; grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed|Error|cp-async" "$RAW/gpu-tests.out" | tail -n 20
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
finish_call
