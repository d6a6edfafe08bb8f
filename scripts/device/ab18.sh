#!/usr/bin/env bash
# Session 18: sm90_persistent against scratch copies of its kernel, interleaved, two rounds in
# reversed order, beside cuDNN. The scratch variants (scripts/device/ab18_*.toml) build from
# kernels/sm90old/ (`git show dcbf3f4:kernels/sm90/fmha_sm90.cuh`, main before session 18) and
# kernels/sm90cur/ (call 3's kernel: the causal alignment and masked-lead skip on 128-row tiles too);
# both folders are scratch, never committed. Call 5 also had sm90_pingpong (the hd128 routing
# question of session 17). VERIFY: "variant:grid ..." verified first; EVIDENCE=1: then the
# milestone evidence (evidence.sh STEPS="gpu out", into $OUT/ev).
#     OUT=/dir [VARIANTS=...] [SHAPES=...] [EVIDENCE=1] bash scripts/device/ab18.sh [BUDGET_S]
# carry: .whl, kernels/sm90old, kernels/sm90cur
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run, collect_rows
device_start ab18 200 "${1:-}"
STEP_RESERVE=8 STEP_MIN=8
if [ -z "${DRY:-}" ]; then
  for f in scripts/device/ab18_*.toml; do
    name=$(sed -n 's/^name = "\(.*\)"/\1/p' "$f")
    [ -d "kernels/$(sed -n 's|^source = "\(.*\)/.*"|\1|p' "$f")" ] && ! grep -q "^name = \"$name\"" kernels/family.toml && cat "$f" >> kernels/family.toml
  done
fi
for item in ${VERIFY:-}; do
  v=${item%%:*}; g=${item#*:}
  run verify-$v-$g 40 python3 -m fmhactl verify $v --grid $g --seed 18 --json
done
[ -n "${EVIDENCE:-}" ] && evidence_step "${BENCH_RESERVE:-60}"
SHAPES=${SHAPES:-"--shape b=32,h=16,t=512,s=512,d=128 --shape b=8,h=16,t=4096,s=4096,d=128 --shape b=4,h=16,t=8192,s=8192,d=128
 --shape b=8,h=32,hkv=8,t=4096,s=4096,d=128 --shape b=8,h=16,t=4096,s=4096,d=128,causal --shape b=16,h=16,t=1024,s=1024,d=64"}
SEED=18 bench_rounds 50 ${VARIANTS:-sm90_persistent old_persistent sm90_pingpong}
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
{ python3 scripts/device/knobs15_summary.py "$OUT"; [ -f "$OUT/ev/summary.txt" ] && { echo "==== evidence"; cat "$OUT/ev/summary.txt"; }
  cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
