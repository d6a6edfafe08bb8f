#!/usr/bin/env bash
# Session 25: random configs through every kernel (`fmhactl verify --random`) and random op calls
# (tests/torch/test_op_random_gpu.py), fresh seeds each call (printed). The SM100 strict build
# (ptxas -O0, minutes) and the native builds start first, in parallel, on the CPU.
#     OUT=/dir [N_NATIVE=110] [N_SM100=6] [N_PTX=4] [N_PROJ=40] [FMHACTL_FUZZ_CASES=60] [GPU_TESTS="tests/torch"] [SKIP="..."] bash scripts/device/fuzz25.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start fuzz25 560 "${1:-}"
STEP_RESERVE=8 STEP_MIN=8
NATIVE="ref sm90_pipelined sm90_overlap sm90_pingpong sm90_persistent sm90_persistent_m192 sm90_pingpong_feat sm90_persistent_feat sm90_persistent_m192_feat sm90_mqa_gather sm90_mqa_decode"
SM100=${SM100:-sm100_tma_s2_tmem}
export FMHACTL_EMU_PTXAS_O=0
( run build-strict "$(( $(left) - 60 ))" python3 scripts/device/build_targets.py "$SM100:strict" ) &
STRICT=$!
run build-native 150 python3 -m fmhactl build $NATIVE --jobs 12
run verify-native 180 python3 -m fmhactl verify $NATIVE --random "${N_NATIVE:-110}" --timeout 60
export FMHACTL_TEST_HOME=$FMHACTL_HOME  # the op fuzz reuses the builds above (tests/conftest.py)
run op-fuzz 150 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch/test_op_random_gpu.py
run integrations-fuzz 150 python3 -m pytest -q -rs -m gpu -p no:cacheprovider tests/torch/test_integrations_random_gpu.py
# users' projects: the init scaffold (its raw-PTX kernel through the PTX path) and the two fixtures
N_PROJ=${N_PROJ:-40}
[ -n "${DRY:-}" ] || { rm -rf /tmp/attn25; python3 -m fmhactl init /tmp/attn25 > /dev/null; }
run project-init 150 python3 -m fmhactl --project /tmp/attn25 verify sm90_start sm100_raw_ptx --random "$N_PROJ" --timeout 120
run project-seeds 90 python3 -m fmhactl --project tests/fixtures/seeds_project verify heads_bf16 --random "$N_PROJ"
run project-tma 150 python3 -m fmhactl --project tests/fixtures/tma_project verify tma_sm90 tma_args_sm90 tma_sm100 --random "$N_PROJ" --timeout 120
# GPU_TESTS="tests/torch ...": the GPU tests of those folders after the fuzz (cap GPU_TEST_CAP), each
# pytest session in its own home as in CI
[ -n "${GPU_TESTS:-}" ] && run gpu-tests "${GPU_TEST_CAP:-240}" env -u FMHACTL_TEST_HOME python3 -m pytest -q -rs -m gpu -p no:cacheprovider $GPU_TESTS
wait "$STRICT"
run verify-sm100 "$(( $(left) / 2 ))" python3 -m fmhactl verify $SM100 --random "${N_SM100:-6}" --timeout 150 --emulation strict
# the same variant's native sm_100a PTX through the PTX-level emulator (its build is part of the step)
run verify-sm100-ptx "$(left)" python3 -m fmhactl verify $SM100 --random "${N_PTX:-4}" --timeout 150 --emulation strict --emulate native
{
  for step in verify-native op-fuzz integrations-fuzz project-init project-seeds project-tma verify-sm100 verify-sm100-ptx; do
    echo "==== $step"
    [ -f "$RAW/$step.out" ] || continue
    grep -hE "^(FAIL|CRASH|HANG|ERROR)" -A3 "$RAW/$step.out" "$RAW/$step.err" | head -n 60
    grep -hE "^(PASS|FAIL|CRASH|HANG|ERROR)" "$RAW/$step.err" | awk '{print $1, $2}' | sort | uniq -c
    tail -n 3 "$RAW/$step.out"; grep -E "seed|error" "$RAW/$step.err" | tail -n 3
  done
  [ -f "$RAW/gpu-tests.out" ] && { echo "==== GPU tests ($GPU_TESTS)"; grep -E "^(FAILED|ERROR)|passed|failed" "$RAW/gpu-tests.out" | tail -n 20; }
  echo "==== builds"; cat "$RAW/build-strict.out" 2>/dev/null; tail -n 15 "$RAW/build-native.out" 2>/dev/null
  cat "$RAW/device.log"
} > "$OUT/summary.txt" 2>&1
cp "$RAW"/op-fuzz.out "$RAW"/integrations-fuzz.out "$OUT/" 2>/dev/null  # a call brings back 8 files at most
finish_call
