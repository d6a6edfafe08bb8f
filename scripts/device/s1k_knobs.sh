#!/usr/bin/env bash
# Issue 24, S1k hd64 (the sm90 suite's two misses): sm90_persistent's compile-time knobs at hd64
# (ring depth 2/3/4, ping-pong off) and the non-persistent sm90_pingpong, beside cuDNN, on the two
# S1k hd64 shapes and the S4k hd64 causal one. The knob variants exist only on the device's copy
# of kernels/family.toml (appended below), never in the repository.
#   OUT=/dir bash scripts/device/s1k_knobs.sh [BUDGET_S]      carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows
device_start s1k 300 "${1:-}"
STEP_RESERVE=10 STEP_MIN=8
knob() {  # knob NAME SWITCHES: sm90_persistent with other switches, hd64 only
  cat >> kernels/family.toml <<TOML

[[variant]]
name = "$1"
description = "s1k_knobs.sh: sm90_persistent with $2"
source = "sm90/fmha_sm90.cu"
archs = ["sm_90a"]
launcher = "sm90"
kernel = "fmha_sm90_{dtype}_d{head_dim}"
switches = { $2 }
head_dims = [64]
features = ["causal", "gqa", "lse", "tma", "pipeline", "wgmma", "pingpong", "persistent"]
TOML
}
if [ -z "${DRY:-}" ]; then
  knob knob_s2 "FMHA_STAGES = 2, FMHA_STAGES_D64 = 2, FMHA_OVERLAP = 1, FMHA_PINGPONG = 1, FMHA_BLOCK_M = 128, FMHA_PERSISTENT = 1"
  knob knob_s4 "FMHA_STAGES = 2, FMHA_STAGES_D64 = 4, FMHA_OVERLAP = 1, FMHA_PINGPONG = 1, FMHA_BLOCK_M = 128, FMHA_PERSISTENT = 1"
  knob knob_nopp "FMHA_STAGES = 2, FMHA_STAGES_D64 = 3, FMHA_OVERLAP = 1, FMHA_PINGPONG = 0, FMHA_BLOCK_M = 128, FMHA_PERSISTENT = 1"
fi
SHAPES="--shape b=16,h=16,t=1024,s=1024,d=64 --shape b=16,h=16,t=1024,s=1024,d=64,causal --shape b=8,h=16,t=4096,s=4096,d=64,causal"
i=0
for v in sm90_persistent knob_s2 knob_s4 knob_nopp sm90_pingpong sm90_persistent; do
  i=$((i + 1))
  run bench-$i-$v 60 python3 -m fmhactl bench $v $SHAPES --baseline cudnn --seed 14 --json
done
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
python3 scripts/device/knobs15_summary.py "$OUT" > "$OUT/summary.txt" 2>&1
cat "$RAW/device.log" >> "$OUT/summary.txt"
rm -rf "$RAW"
cat "$OUT/summary.txt"
