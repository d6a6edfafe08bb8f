#!/usr/bin/env bash
# Issue 27: sm100_tma_s2_tmem's sparse top-k (FMHA_TOPK) under strict emulation of sm_100a on one
# H100, bounded by a budget. Builds the strict sm_90a emulator build (FMHACTL_EMU_PTXAS_O=0), then:
#   verify-dsv4     fmhactl verify sm100_tma_s2_tmem --grid dsv4 --emulation strict (its 16 top-k
#                   configs were UNSUPPORTED before; now all 43 should PASS)
#   gpu-test        tests/features/test_topk_sm100_gpu.py (dsv4's top-k configs + 5 corner shapes)
#                   and tests/features/test_features_gpu.py -k sm100 (window/sink/K=V + one top-k)
#   verify-seeds72  no-regression of the dense path (64 PASS before)
# Every step is bounded by min(its cap, time left - 15 s); a step without time says so.
# $OUT gets: summary.txt (printed last), verify-dsv4.json, verify-seeds72.json, raw.tgz (each
# step's stdout/stderr, device.log, the stored rows).
#   OUT=/tmp/topk100 [CACHE=topk100-cache.tar.xz] bash scripts/device/topk100.sh [BUDGET_S]  (default 560)
# DRY=1 prints the steps and runs nothing (a CPU check).
set -u -o pipefail
OUT=${OUT:-/tmp/topk100-out}; mkdir -p "$OUT"
BUDGET=${1:-${BUDGET:-560}}
start=$(date +%s)
SINCE=$(date +%Y-%m-%dT%H:%M:%S)
if [ -z "${DRY:-}" ] && ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
fi
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-topk100}
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0} FMHACTL_EMULATION=strict
mkdir -p "$FMHACTL_HOME"
# CACHE=file.tar.xz: a build cache made on the CPU (tar -C \$FMHACTL_HOME -cJf ... cache), so the
# strict build (about 220 s here) is a cache hit when its sources and options are the same.
if [ -z "${DRY:-}" ] && [ -n "${CACHE:-}" ] && [ -f "$CACHE" ]; then tar -C "$FMHACTL_HOME" -xJf "$CACHE"; fi
RAW=$(mktemp -d /tmp/topk100-raw.XXXX)
V=sm100_tma_s2_tmem
STEP_RESERVE=15 STEP_MIN=20
source scripts/device/steps.sh  # left, log, run

log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null) budget ${BUDGET}s"
run build 330 python3 scripts/device/build_targets.py $V:strict
run verify-dsv4 150 python3 -m fmhactl verify $V --grid dsv4 --seed 27 --timeout 60 --emulation strict --json
FMHACTL_GPU_TEST_HOME=$FMHACTL_HOME run gpu-test 150 python3 -m pytest -q -p no:cacheprovider tests/features/test_topk_sm100_gpu.py \
  tests/features/test_features_gpu.py -k "sm100 or topk"
run verify-seeds72 150 python3 -m fmhactl verify $V --grid seeds72 --seed 27 --timeout 60 --emulation strict --json
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi

# Every row this run stored (a verify its timeout cut never printed its JSON).
timeout 30 python3 -m fmhactl results --kind verify --variant $V --since "$SINCE" --limit 0 --json \
  > "$RAW/stored-rows.json" 2> "$RAW/stored-rows.err"
for g in dsv4 seeds72; do cp "$RAW/verify-$g.out" "$OUT/verify-$g.json" 2>/dev/null; done
{
  echo "==== steps"; cat "$RAW/device.log"
  echo "==== build"; tail -n 3 "$RAW/build.out" 2>/dev/null
  echo "==== GPU tests"; tail -n 4 "$RAW/gpu-test.out" 2>/dev/null
  python3 - "$RAW" <<'PY'
import json, sys
from collections import Counter
raw = sys.argv[1]

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

def summarise(name, rows):
    for topk in (True, False):
        part = [r for r in rows if ("topk" in r["config_key"]) == topk]
        if not part:
            continue
        counts = Counter(r["status"] for r in part)
        errs = [(r.get("metrics") or {}).get("max_abs_err") for r in part]
        errs = [e for e in errs if isinstance(e, (int, float))]
        print(f"{name} {'top-k' if topk else 'no top-k'}: {len(part)} rows {dict(counts)}"
              f"{f', max |O err| {max(errs):.3g}' if errs else ''}")
    for r in [r for r in rows if r["status"] != "PASS"][:25]:
        m = r.get("metrics") or {}
        print("  ", r["status"], r["config_key"], str(m.get("reasons") or m.get("reason") or "")[:200])

cut = False
for grid in ("dsv4", "seeds72"):
    rows = load(f"{raw}/verify-{grid}.out")
    if rows is None:
        print(f"verify {grid}: no JSON (cut or not run)")
        cut = True
    else:
        summarise(f"verify {grid}", rows)
if cut:
    summarise("stored rows since the start (every verify and the GPU tests)", load(f"{raw}/stored-rows.json") or [])
PY
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
