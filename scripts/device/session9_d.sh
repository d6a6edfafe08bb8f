#!/usr/bin/env bash
# Session 9, call D: after the fix of the strict mbarrier-observation hook (tcgen05_emu_strict.cuh),
#   1. the SM100 milestone evidence again (the header is hashed by M1-M5 and SMEM-P):
#      scripts/device/evidence.sh STEPS="cpu emu out" (strict builds come from the carried cache);
#   2. meanwhile issue 28's stalled config, sm100_tma_s2_tmem_ex2 fa #112 (seed 119), and its
#      tma_s2_tmem twin through the strict PTX path, and the strict rule kernels (GPU tests), the
#      new split_observe case included;
#   3. scripts/device/sparse27.sh (issue 27's SM90 gather kernel): its build, GPU test and verifies
#      beside 1-2, then its benches alone with the time left.
#   OUT=/tmp/s9d bash scripts/device/session9_d.sh [BUDGET_S]
set -u -o pipefail
OUT=${OUT:-/tmp/s9d}; mkdir -p "$OUT"
budget=${1:-265}
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_HOME=/tmp/fmhactl-s9d FMHACTL_EMU_PTXAS_O=0
mkdir -p "$FMHACTL_HOME"; tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz
( STEPS="cpu emu out" DEADLINE_S=${EVIDENCE_S:-170} OUT=$OUT/ev bash scripts/device/evidence.sh > "$OUT/ev.txt" 2>&1 ) &
ev_pid=$!
SP=scripts/device/sparse27.sh
BENCHES="bench-decode bench-prefill bench-sweep"
sp_pid=""
if [ -f $SP ]; then  # its correctness steps beside the evidence; its benches alone at the end
  ( FMHACTL_HOME=/tmp/fmhactl-sparse27 SKIP="$BENCHES" BUDGET=${SPARSE_CHECKS_S:-140} OUT=$OUT/sp1 bash $SP > "$OUT/sp1.txt" 2>&1 ) &
  sp_pid=$!
fi
{
  for v in sm100_tma_s2_tmem_ex2 sm100_tma_s2_tmem; do
    timeout 130 python3 scripts/device/ptx_grid.py shard $v fa native strict 112 113 7 120
  done
} > "$OUT/ptx112.jsonl" 2> "$OUT/ptx112.err"
echo "ptx #112 done [+$(el)s]"; cut -c1-300 "$OUT/ptx112.jsonl"
timeout 100 python3 -m pytest -q -p no:cacheprovider -m gpu tests/tcgen05/test_emu_rules.py > "$OUT/rules.txt" 2>&1
echo "rules rc=$? [+$(el)s]: $(tail -n 1 "$OUT/rules.txt")"
wait "$ev_pid"; echo "evidence.sh rc=$? [+$(el)s]"
grep -E "rc=|DONE|STALE|FAIL" "$OUT/ev/summary.txt" | head -n 30
if [ -n "$sp_pid" ]; then
  wait "$sp_pid"; echo "sparse27 checks rc=$? [+$(el)s]"; tail -n 30 "$OUT/sp1.txt"
  left=$(( budget - $(el) - 8 ))
  if [ "$left" -gt 30 ]; then
    FMHACTL_HOME=/tmp/fmhactl-sparse27 SKIP="build gpu-test verify-dsv4 verify-dsv4-long" BUDGET=$left OUT=$OUT/sp2 bash $SP > "$OUT/sp2.txt" 2>&1
    echo "sparse27 benches rc=$? [+$(el)s]"; tail -n 30 "$OUT/sp2.txt"
  fi
  tar -C "$OUT" -czf "$OUT/sparse.tgz" $(cd "$OUT" && ls -d sp1 sp2 sp1.txt sp2.txt 2>/dev/null) && rm -rf "$OUT"/sp1 "$OUT"/sp2 "$OUT"/sp1.txt "$OUT"/sp2.txt
fi
rm -f "$OUT/ev.txt"
tar -C "$OUT" -czf "$OUT/misc.tgz" ptx112.err rules.txt 2>/dev/null && rm -f "$OUT/ptx112.err"
echo "total [+$(el)s]"
