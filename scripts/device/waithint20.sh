#!/usr/bin/env bash
# Session 20: ncu put 8% of sm90_persistent's instructions (hd128 S4k) in one spin loop of the
# producer's mbarrier wait (YIELD / TRYWAIT / BRA, 125 turns a KV tile), on the scheduler it shares
# with two consumer warps; CUTLASS's ClusterBarrier::wait passes try_wait a suspend-time hint. An
# A/B on the device only: notes/op-session20/wait-hint-attempt.patch (FMHA_WAIT_HINT in
# kernels/common/mbarrier.cuh) applied to the device's copy, a scratch variant with it on, both
# benched beside cuDNN in 2 rounds. Nothing here is committed kernel code.
#     OUT=/dir bash scripts/device/waithint20.sh [BUDGET_S]        carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows, bench_rounds
device_start waithint20 170 "${1:-}"
STEP_RESERVE=6 STEP_MIN=8
if [ -z "${DRY:-}" ]; then
  patch -p1 < notes/op-session20/wait-hint-attempt.patch >> "$RAW/device.log" 2>&1 || { log "patch failed"; exit 2; }
  cat >> kernels/family.toml <<'TOML'

[[variant]]
name = "ab_persistent_waithint"
description = "scratch: sm90_persistent with FMHA_WAIT_HINT (mbarrier try_wait with a suspend-time hint)"
source = "sm90/fmha_sm90.cu"
archs = ["sm_90a"]
launcher = "sm90"
kernel = "fmha_sm90_{dtype}_d{head_dim}"
switches = { FMHA_STAGES = 2, FMHA_STAGES_D64 = 3, FMHA_OVERLAP = 1, FMHA_PINGPONG = 1, FMHA_BLOCK_M = 128, FMHA_PERSISTENT = 1, FMHA_WAIT_HINT = 1 }
head_dims = [64, 128]
features = ["causal", "gqa", "lse", "tma", "pipeline", "wgmma", "pingpong", "persistent"]
tma_head_dim_fill = true
index64 = true
TOML
fi
run verify-hint 40 python3 -m fmhactl verify ab_persistent_waithint --grid smoke --json
SHAPES="--shape b=8,h=16,t=4096,s=4096,d=128 --shape b=4,h=16,t=8192,s=8192,d=128 --shape b=8,h=16,t=4096,s=4096,d=128,causal --shape b=8,h=16,t=4096,s=4096,d=64,causal"
SEED=20 bench_rounds 35 sm90_persistent ab_persistent_waithint
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
{ python3 scripts/device/knobs15_summary.py "$OUT"; tail -n 2 "$RAW/verify-hint.err"; cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
finish_call
