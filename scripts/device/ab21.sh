#!/usr/bin/env bash
# Session 21: scratch variants of sm90_persistent (FROM=pingpong: of sm90_pingpong), A/B on the
# device's copy only. PATCHES (files applied with patch -p1 first: the attempts under
# notes/op-session2x/), SCRATCH ("name=SWITCHES" entries separated by ';', SWITCHES as in
# family.toml, added to the base variant's, a later one of a name replacing its); each scratch
# variant verified on VERIFY_GRID (default awkward: hd64 and hd128 edges; session 21's calls 1, 2
# and 4 used smoke, hd64 only, which left hd128-only variants unverified), then all of them and BASE (default sm90_persistent) benched
# on SHAPES beside cuDNN, ROUNDS rounds (default 3) in alternating order. Nothing is committed.
#   call 1: PATCHES="notes/op-session20/wait-hint-attempt.patch notes/op-session21/desc32-attempt.patch"
#           SCRATCH="ab_hint=FMHA_WAIT_HINT = 1;ab_hint_desc32=FMHA_WAIT_HINT = 1, FMHA_DESC32 = 1;ab_desc32=FMHA_DESC32 = 1"
#     OUT=/dir PATCHES=... SCRATCH=... [BASE=...] [SHAPES=...] bash scripts/device/ab21.sh [BUDGET_S]     carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows, bench_rounds
device_start ab21 330 "${1:-}"
if [ "${FROM:-persistent}" = pingpong ]; then
  base_switches="FMHA_STAGES = 2, FMHA_OVERLAP = 1, FMHA_PINGPONG = 1, FMHA_BLOCK_M = 128"
  base_features='"causal", "gqa", "lse", "tma", "pipeline", "wgmma", "pingpong"'
else
  base_switches="FMHA_STAGES = 2, FMHA_STAGES_D64 = 3, FMHA_OVERLAP = 1, FMHA_PINGPONG = 1, FMHA_BLOCK_M = 128, FMHA_PERSISTENT = 1"
  base_features='"causal", "gqa", "lse", "tma", "pipeline", "wgmma", "pingpong", "persistent"'
fi
STEP_RESERVE=6 STEP_MIN=8
names=()
IFS=';' read -r -a entries <<< "${SCRATCH:?SCRATCH=name=SWITCHES;...}"
for e in "${entries[@]}"; do names+=("${e%%=*}"); done
if [ -z "${DRY:-}" ]; then
  for p in ${PATCHES:-}; do
    patch -p1 < "$p" >> "$RAW/device.log" 2>&1 || { log "patch $p failed"; exit 2; }
  done
  for e in "${entries[@]}"; do
    cat >> kernels/family.toml <<TOML

[[variant]]
name = "${e%%=*}"
description = "scratch: sm90_${FROM:-persistent} with ${e#*=}"
source = "sm90/fmha_sm90.cu"
archs = ["sm_90a"]
launcher = "sm90"
kernel = "fmha_sm90_{dtype}_d{head_dim}"
switches = { $(python3 scripts/device/merge_switches.py "$base_switches" "${e#*=}") }
head_dims = [${HEAD_DIMS:-64, 128}]
features = [$base_features]
tma_head_dim_fill = true
index64 = true
TOML
  done
fi
for v in "${names[@]}"; do run verify-$v 45 python3 -m fmhactl verify $v --grid "${VERIFY_GRID:-awkward}" --json; done
SHAPES=${SHAPES:-"--shape b=8,h=16,t=4096,s=4096,d=128 --shape b=4,h=16,t=8192,s=8192,d=128 --shape b=8,h=32,hkv=8,t=4096,s=4096,d=128 --shape b=8,h=16,t=4096,s=4096,d=128,causal --shape b=32,h=16,t=512,s=512,d=128 --shape b=16,h=16,t=1024,s=1024,d=64,causal"}
ROUNDS=${ROUNDS:-3} SEED=21 bench_rounds 45 ${BASE:-sm90_persistent} "${names[@]}"
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
{ python3 scripts/device/knobs15_summary.py "$OUT"; for v in "${names[@]}"; do tail -n 1 "$RAW/verify-$v.err"; done; cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
finish_call
