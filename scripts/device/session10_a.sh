#!/usr/bin/env bash
# Session 10, call A (issue 28 to its end, and the tc5::ld/st site-line fix):
#   1. the five strict-fa configs the PTX path has no row for (b2h8kv2-t1023s4224, 128 CTAs each),
#      all at once under their own MPS daemon (scripts/device/ptx_configs.sh), builds carried;
#   2. beside them (no MPS), the SM100 milestone evidence again: tcgen05.cuh changed (tc5::ld/st
#      deduce their register count, so `__builtin_LINE()` is the caller's), hashed by M1-M5 and
#      SMEM-P: scripts/device/evidence.sh STEPS="cpu emu out", strict builds carried;
#   3. then the strict rule kernels' GPU test (each of the 14 broken kernels must name its own line).
#   OUT=/dir bash scripts/device/session10_a.sh [BUDGET_S]
# Carry: .whl ptxgrid-cache.tar.xz (the CPU-made strict builds of this tree, device toolchain).
set -u -o pipefail
OUT=${OUT:-/tmp/s10a}; mkdir -p "$OUT"
budget=${1:-540}
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_EMU_PTXAS_O=0
EV_HOME=/tmp/fmhactl-s10a-ev; mkdir -p "$EV_HOME"; tar -C "$EV_HOME" -xJf ptxgrid-cache.tar.xz
( FMHACTL_HOME=$EV_HOME STEPS="cpu emu out" DEADLINE_S=${EVIDENCE_S:-300} OUT=$OUT/ev \
    bash scripts/device/evidence.sh > "$OUT/ev.txt" 2>&1 ) &
ev_pid=$!
( FMHACTL_HOME=/tmp/fmhactl-s10a-ptx OUT=$OUT/cfg bash scripts/device/ptx_configs.sh $(( budget - 30 )) fa \
    sm100_tma_s2_tmem:106 sm100_tma_s2_tmem:107 sm100_tma_s2_tmem:118 \
    sm100_tma_s2_tmem_ex2:106 sm100_tma_s2_tmem_ex2:118 > "$OUT/cfg.txt" 2>&1 ) &
cfg_pid=$!
wait "$ev_pid"; echo "evidence.sh rc=$? [+$(el)s]"
grep -E "rc=|DONE|STALE|FAIL" "$OUT/ev/summary.txt" | head -n 30
FMHACTL_HOME=$EV_HOME timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/tcgen05/test_emu_rules.py > "$OUT/rules.txt" 2>&1
echo "rules rc=$? [+$(el)s]: $(tail -n 1 "$OUT/rules.txt")"
grep -E "FAILED|line" "$OUT/rules.txt" | head -n 20
wait "$cfg_pid"; echo "ptx_configs rc=$? [+$(el)s]"
tail -n 25 "$OUT/cfg.txt"
rm -f "$OUT/ev.txt"
echo "total [+$(el)s]"
