#!/usr/bin/env bash
# fmhactl trace (issue 16) on an sm_90 GPU, one pass. Everything it prints is MODELED B200 time
# from the strict emulator's synchronisation, not a measurement.
#   1. build the 1-stage and 2-stage TMA variants (strict emulation, sm_90a) in parallel;
#   2. fmhactl trace --compare sm100_tma_tmem sm100_tma_s2_tmem at hd128, s_k 4096 (1 CTA):
#      Perfetto JSON for each, both summaries, the side-by-side table, the FA4 B200 anchor ratio;
#   3. the same raw events re-modeled on the CPU (`fmhactl trace V --raw`): the single-variant form;
#   4. verify of both variants with tracing off and on (same seed): verdicts must be identical;
#   5. the trace files checked (JSON, every wait paired with its arrive, no negative spans).
# Outputs (7 files) go to $OUT; a compact summary is printed last. Usage, from the repo root:
#   OUT=/tmp/trace-out bash scripts/device/trace.sh
set -u -o pipefail
OUT=${OUT:-/tmp/trace-out}; mkdir -p "$OUT"
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-trace}
PY=${PYTHON:-python3}
fm() { "$PY" -m fmhactl "$@"; }
V1=sm100_tma_tmem
V2=sm100_tma_s2_tmem
SHAPE="b=1,h=1,t=128,s=4096,d=128"
start=$(date +%s)
log() { echo "[+$(( $(date +%s) - start ))s] $*" | tee -a "$OUT/steps.log"; }
: > "$OUT/steps.log"; : > "$OUT/summary.txt"; : > "$OUT/builds.log"

log "1. strict builds of $V1 $V2 (sm_90a)${SKIP_BUILD:+ skipped (SKIP_BUILD set: CPU dry run)}"
[ -n "${SKIP_BUILD:-}" ] || "$PY" - "$V1" "$V2" > "$OUT/builds.log" 2>&1 <<'PY'
import sys
from concurrent.futures import ProcessPoolExecutor
def one(name):
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.registry import get_variant
    r = build(get_variant(name), BuildTarget("sm_90a", emulated=True, strict=True))
    return name, round(r.compile_seconds, 1)
with ProcessPoolExecutor(2) as pool:
    for row in pool.map(one, sys.argv[1:]):
        print("built", *row)
PY
log "   builds rc=$?: $(tr '\n' ' ' < "$OUT/builds.log" | tail -c 300)"

log "2. fmhactl trace --compare $V1 $V2 --shape $SHAPE"
[ -n "${SKIP_BUILD:-}" ] || rm -f /tmp/trace-raw-*.bin  # never re-model a stale recording
fm trace --compare "$V1" "$V2" --shape "$SHAPE" --seed 7 --out "$OUT/trace.json" --save-raw /tmp/trace-raw.bin \
  --json > "$OUT/compare.json" 2> /tmp/trace-compare.err
rc=$?
log "   trace rc=$rc"
{ echo "==== fmhactl trace --compare $V1 $V2 --shape $SHAPE (rc=$rc)"; cat /tmp/trace-compare.err; } >> "$OUT/summary.txt"

log "3. re-model the recorded events on the CPU (fmhactl trace V --raw)"
for v in "$V1" "$V2"; do
  # Same events, same model: rewrites the identical trace-$v.json that step 2 wrote.
  fm trace "$v" --shape "$SHAPE" --raw "/tmp/trace-raw-$v.bin" --out "$OUT/trace-$v.json" > /dev/null \
    2> "/tmp/trace-raw-$v.err"
  rc=$?
  { echo "==== fmhactl trace $v --raw (rc=$rc)"; cat "/tmp/trace-raw-$v.err"; } >> "$OUT/summary.txt"
  log "   $v --raw rc=$rc"
done

log "4. verify with tracing off and on (same seed)"
VSHAPES=(--shape b=1,h=2,t=256,s=1024,d=128 --shape b=1,h=1,t=300,s=777,d=128,causal)
t0=$(date +%s)
fm verify "$V1" "$V2" "${VSHAPES[@]}" --seed 11 --timeout 120 --json > /tmp/verify-off.json 2> /tmp/verify-off.err
off_rc=$?; t1=$(date +%s)
FMHACTL_TRACE_CAPACITY=1048576 fm verify "$V1" "$V2" "${VSHAPES[@]}" --seed 11 --timeout 120 --json \
  > /tmp/verify-on.json 2> /tmp/verify-on.err
on_rc=$?; t2=$(date +%s)
"$PY" - "$off_rc" "$on_rc" "$(( t1 - t0 ))" "$(( t2 - t1 ))" > "$OUT/verify.log" 2>&1 <<'PY'
import json, sys
def rows(path):
    try:
        return [(r["variant"], r["config_key"], r["status"], r["metrics"].get("max_abs_err")) for r in json.load(open(path))]
    except Exception as exc:  # noqa: BLE001 - report, never crash the script
        return [("unreadable", path, repr(exc)[:200], None)]
off, on = rows("/tmp/verify-off.json"), rows("/tmp/verify-on.json")
print(f"verify tracing off rc={sys.argv[1]} wall {sys.argv[3]} s, on rc={sys.argv[2]} wall {sys.argv[4]} s "
      "(each includes worker start-up)")
for a, b in zip(off, on):
    print(f"  off {a[2]:<6} on {b[2]:<6} {a[0]} {a[1]} max_abs_err off {a[3]} on {b[3]}")
print("verdicts identical with tracing on:", off == on and len(off) > 0, f"({len(off)} configs)")
PY
cat /tmp/verify-off.err /tmp/verify-on.err | grep -v '^PASS' | head -n 20 >> "$OUT/verify.log"
log "   $(tail -n 1 "$OUT/verify.log" | head -c 200)"

log "5. check the trace files"
"$PY" - "$OUT" "$V1" "$V2" > /tmp/trace-check.log 2>&1 <<'PY'
import json, sys
from pathlib import Path
from fmhactl.trace.chrome import check_chrome
out = Path(sys.argv[1])
for v in sys.argv[2:]:
    p = out / f"trace-{v}.json"
    try:
        doc = json.loads(p.read_text())
    except Exception as exc:  # noqa: BLE001
        print(f"{p.name}: cannot load ({exc})"); continue
    ev = doc["traceEvents"]
    kinds = {k: sum(1 for e in ev if e.get("ph") == k) for k in ("X", "s", "f", "M")}
    waits = sum(1 for e in ev if e.get("cat") == "wait")
    problems = check_chrome(doc)
    print(f"{p.name}: {p.stat().st_size} bytes, slices {kinds['X']}, waits {waits}, flows {kinds['s']}, "
          f"problems {len(problems)} {problems[:3]}")
PY
cat /tmp/trace-check.log >> "$OUT/summary.txt"

log "total $(( $(date +%s) - start )) s"
echo "---- summary (modeled, not measured)"
cat /tmp/trace-compare.err
"$PY" - "$OUT/compare.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as exc:  # noqa: BLE001
    print("compare.json unreadable:", exc); sys.exit(0)
for r in doc["results"]:
    s, a = r["summary"], r["summary"].get("anchor")
    print(f"{r['variant']}: {s['cycles_per_kv_tile']} cycles/KV tile (steady {s['steady_cycles_per_kv_tile']}), "
          f"tensor busy {s['tensor_busy_fraction']:.0%}, {r['raw_events']} raw events")
    if a:
        print(f"  FA4 anchor ratio {a['ratio']} (model {a['modeled_tflops']} / FA4 {a['fa4_tflops']} TFLOP/s, "
              f"band ±{a['error_band']:.0%}, within {a['within_band']})")
PY
cat "$OUT/verify.log" | head -n 8
cat /tmp/trace-check.log
tail -n 1 "$OUT/steps.log"
