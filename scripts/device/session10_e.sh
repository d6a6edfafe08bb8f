#!/usr/bin/env bash
# Session 10, call E:
#   1. the shipped sm_100a PTX of sm100_tma_s2_tmem (with FMHA_TOPK's cp.async gather) through the
#      strict PTX path on the dsv4 grid (issue 27's features, issue 28's path), build carried;
#   2. then, alone on the GPU, `fmhactl bench --model dsv4` (scripts/device/model27.sh, op GPU tests skipped).
#   OUT=/dir bash scripts/device/session10_e.sh [BUDGET_S]        carry: .whl ptxgrid-cache.tar.xz
set -u -o pipefail
OUT=${OUT:-/tmp/s10e}; mkdir -p "$OUT"
budget=${1:-330}
t0=$(date +%s)
if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_EMU_PTXAS_O=0 FMHACTL_HOME=/tmp/fmhactl-s10e
mkdir -p "$FMHACTL_HOME"; tar -C "$FMHACTL_HOME" -xJf ptxgrid-cache.tar.xz
timeout ${PTX_S:-150} python3 -m fmhactl verify sm100_tma_s2_tmem --grid dsv4 --seed 27 --timeout 60 \
  --emulate native --emulation strict --json > "$OUT/ptx-dsv4.json" 2> "$OUT/ptx-dsv4.err"
echo "ptx dsv4 strict rc=$? [+$(( $(date +%s) - t0 ))s]: $(tail -n 1 "$OUT/ptx-dsv4.err")"
python3 - "$OUT/ptx-dsv4.json" <<'PY'
import json, sys
from collections import Counter
try:
    rows = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    sys.exit(f"no JSON: {exc}")
for topk in (True, False):
    part = [r for r in rows if ("topk" in r["config_key"]) == topk]
    errs = [m.get("max_abs_err") for m in ((r.get("metrics") or {}) for r in part) if isinstance(m.get("max_abs_err"), float)]
    print(f"{'top-k' if topk else 'no top-k'}: {len(part)} rows {dict(Counter(r['status'] for r in part))}"
          f" max |O err| {max(errs) if errs else '-'}")
for r in [r for r in rows if r["status"] != "PASS"][:20]:
    print("  ", r["status"], r["config_key"], str((r.get("metrics") or {}).get("reasons", ""))[:200])
PY
mkdir -p "$OUT/model"
OUT=$OUT/model SKIP="gpu-test op-opcheck" BUDGET=$(( budget - ($(date +%s) - t0) - 5 )) bash scripts/device/model27.sh > /dev/null 2>&1
echo "model27 rc=$? [+$(( $(date +%s) - t0 ))s]"; cat "$OUT/model/summary.txt"
