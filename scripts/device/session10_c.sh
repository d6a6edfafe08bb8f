#!/usr/bin/env bash
# Session 10, call C (emulation only: nothing here is timed), everything at once:
#   1. the five strict-fa configs the PTX path has no row for (issue 28), under their own MPS daemon
#      (scripts/device/ptx_configs.sh);
#   2. the SM100 milestone evidence again (scripts/device/evidence.sh STEPS="cpu emu out"): the
#      sources changed (tc5::ld/st take the caller's line; sm100_tma_s2_tmem gained FMHA_TOPK);
#   3. sm100_tma_s2_tmem's top-k under strict emulation (scripts/device/topk100.sh: verify dsv4,
#      the top-k GPU tests, seeds72);
#   4. after the evidence: the strict rule kernels' GPU test (14 broken kernels, each must name its line).
# Every strict build comes from the carried ptxgrid-cache.tar.xz (made on the CPU with the device's
# NVRTC/nvJitLink 13.0, scripts/device/ptx_with_toolchain.py).
#   OUT=/dir bash scripts/device/session10_c.sh [BUDGET_S]        carry: .whl ptxgrid-cache.tar.xz
set -u -o pipefail
OUT=${OUT:-/tmp/s10c}; mkdir -p "$OUT"
budget=${1:-560}
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_EMU_PTXAS_O=0
EV_HOME=/tmp/fmhactl-s10c-ev; TK_HOME=/tmp/fmhactl-s10c-topk
mkdir -p "$EV_HOME" "$TK_HOME"; tar -C "$EV_HOME" -xJf ptxgrid-cache.tar.xz; tar -C "$TK_HOME" -xJf ptxgrid-cache.tar.xz
( FMHACTL_HOME=$EV_HOME STEPS="cpu emu out" DEADLINE_S=${EVIDENCE_S:-330} OUT=$OUT/ev \
    bash scripts/device/evidence.sh > "$OUT/ev.txt" 2>&1 ) &
ev_pid=$!
( FMHACTL_HOME=/tmp/fmhactl-s10c-ptx OUT=$OUT/cfg bash scripts/device/ptx_configs.sh $(( budget - 25 )) fa \
    sm100_tma_s2_tmem:106 sm100_tma_s2_tmem:107 sm100_tma_s2_tmem:118 \
    sm100_tma_s2_tmem_ex2:106 sm100_tma_s2_tmem_ex2:118 > "$OUT/cfg.txt" 2>&1 ) &
cfg_pid=$!
( FMHACTL_HOME=$TK_HOME OUT=$OUT/topk bash scripts/device/topk100.sh $(( budget - 30 )) > "$OUT/topk.txt" 2>&1 ) &
tk_pid=$!
wait "$ev_pid"; echo "evidence.sh rc=$? [+$(el)s]"
grep -E "rc=|DONE|STALE|FAIL" "$OUT/ev/summary.txt" | head -n 30
FMHACTL_HOME=$EV_HOME timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/tcgen05/test_emu_rules.py > "$OUT/rules.txt" 2>&1
echo "rules rc=$? [+$(el)s]: $(tail -n 1 "$OUT/rules.txt")"
grep -E "^FAILED|Error:" "$OUT/rules.txt" | head -n 20
wait "$tk_pid"; echo "topk100 rc=$? [+$(el)s]"; cat "$OUT/topk/summary.txt" 2>/dev/null | head -n 60
wait "$cfg_pid"; echo "ptx_configs rc=$? [+$(el)s]"; tail -n 25 "$OUT/cfg.txt"
# at most 8 files come back: the logs travel in one archive
extra="ev.txt cfg.txt topk.txt rules.txt cfg/logs.tgz topk/raw.tgz topk/verify-seeds72.json ev/logs.tgz"
tar -C "$OUT" -czf "$OUT/misc.tgz" $(cd "$OUT" && ls -d $extra 2>/dev/null) && (cd "$OUT" && rm -f $extra)
find "$OUT" -type f | sed "s|^$OUT/||"
echo "total [+$(el)s]"
