#!/usr/bin/env bash
# Issue 27: the SM90 native family's features (sliding window, sinks, K=V) on the H100, one call of
# <= 480 s. Builds the 7 SM90 variants, verifies sm90_persistent_feat + sm90_pingpong_feat on
# grids dsv4 and dsv4-long (LSE included; hd512 and top-k are UNSUPPORTED on SM90), re-runs the SM90
# milestone grids (scenario proof-sm90: the 5 plain variants on seeds72 + awkward + fa, 1258 configs),
# the feature GPU test, then benches prefill
# T=S=8k with the 128-key causal window (MQA 64:1, hd128 and hd64, with and without sinks) beside
# sdpa-mask and flex, the plain causal shapes beside cuDNN and flash, and the milestone bench shapes
# on each plain variant and its _feat twin, alternating (what carrying the switches costs). $OUT gets: summary.txt (printed last), bench.json (every bench row),
# verify-rows.json (every stored verify row), device.log, raw.tgz (each step's stdout and stderr).
set -u -o pipefail
OUT=${OUT:-/tmp/features-sm90-out}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/features-sm90-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-features-sm90}
BUDGET=${BUDGET:-460}   # seconds this script may use in all
start=$(date +%s)
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
log() { echo "[+$(( $(date +%s) - start ))s] $*" | tee -a "$OUT/device.log"; }
fm() { python3 -m fmhactl "$@"; }
# run NAME MAX_SECONDS CMD...: bounded by the time left; stdout to $RAW/NAME.out, stderr to .err
# SKIP="name ..." leaves those steps out (e.g. proof-sm90 when scripts/device/evidence.sh ran it already)
run() {
  local name=$1 cap=$2 t; shift 2
  case " ${SKIP:-} " in *" $name "*) log "$name: skipped (SKIP)"; return;; esac
  t=$(( $(left) - 10 )); (( t > cap )) && t=$cap
  if (( t < 15 )); then log "$name: skipped (no time left)"; return; fi
  timeout --kill-after=10 "$t" "$@" > "$RAW/$name.out" 2> "$RAW/$name.err"
  log "$name rc=$? $(tail -n 1 "$RAW/$name.err" | cut -c1-200)"
}
FEAT="sm90_persistent_feat sm90_pingpong_feat"
L="b=1,h=64,hkv=1,t=8192,s=8192"

log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
run build 120 python3 -m fmhactl build sm90_pipelined sm90_overlap sm90_pingpong sm90_pingpong_rescale0 sm90_persistent $FEAT --arch sm_90a --jobs 7
tail -n 12 "$RAW/build.out" >> "$OUT/device.log"
run verify-dsv4 90 python3 -m fmhactl verify $FEAT --grid dsv4 --seed 27 --timeout 60 --json
run verify-dsv4-long 60 python3 -m fmhactl verify $FEAT --grid dsv4-long --seed 27 --timeout 60 --json
run proof-sm90 150 python3 -m fmhactl scenario run proof-sm90
tail -n 6 "$RAW/proof-sm90.out" >> "$OUT/device.log"
run bench-features 200 python3 -m fmhactl bench sm90_persistent_feat --timeout 150 --json \
  --shape $L,d=128,causal,wl=127 --shape $L,d=128,causal,wl=127,sink --shape $L,d=128,causal,wl=127,sink,kvshared \
  --shape $L,d=64,causal,wl=127 --shape $L,d=64,causal,wl=127,sink --baseline sdpa-mask --baseline flex
run bench-plain 60 python3 -m fmhactl bench sm90_persistent --timeout 60 --json \
  --shape $L,d=128,causal --shape $L,d=64,causal --baseline cudnn --baseline flash
run gpu-tests 120 python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_sm90_features.py
tail -n 3 "$RAW/gpu-tests.out" >> "$OUT/device.log"
# The milestone bench shapes on each plain variant and its _feat twin, alternating, each beside cuDNN
# in its own process (milestones/SM90.md: pingpong 1.037x / 1.035x cuDNN at hd128 non-causal / causal,
# persistent 1.000x / 1.072x).
M="b=8,h=16,t=4096,s=4096,d=128"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in sm90_persistent sm90_persistent_feat sm90_pingpong sm90_pingpong_feat; do
    run bench-regress-$v-$round 60 python3 -m fmhactl bench $v --timeout 40 --json --shape $M --shape $M,causal --baseline cudnn
  done
done
run bench-pingpong 60 python3 -m fmhactl bench sm90_pingpong_feat --timeout 60 --json \
  --shape $L,d=128,causal,wl=127,sink --shape $L,d=64,causal,wl=127,sink --baseline flex
python3 - "$RAW" > "$OUT/bench.json" <<'PY'
import json, sys
rows = []
import glob
for path in sorted(glob.glob(f"{sys.argv[1]}/bench-*.out")):
    try:
        rows += json.load(open(path))
    except (OSError, ValueError):
        pass
print(json.dumps(rows, indent=1))
PY
# Every stored verify row (dsv4, dsv4-long, proof-sm90, the GPU test), also those of a verify cut short.
fm results --kind verify --limit 0 --json > "$OUT/verify-rows.json" 2> "$RAW/rows.err"
tar -czf "$OUT/raw.tgz" -C "$RAW" .
{
  echo "==== verify rows per variant / feature (features_summary.py)"
  python3 scripts/device/features_summary.py "$OUT/verify-rows.json"
  echo "==== rows not PASS (UNSUPPORTED reasons counted)"
  python3 - "$OUT/verify-rows.json" <<'PY'
import json, sys
from collections import Counter
rows = json.load(open(sys.argv[1]))
print("rows", len(rows), dict(Counter(r["status"] for r in rows)))
reasons = Counter()
for r in rows:
    if r["status"] == "UNSUPPORTED":
        reasons[(r["variant"], str((r.get("metrics") or {}).get("reason") or (r.get("metrics") or {}).get("reasons"))[:90])] += 1
    elif r["status"] != "PASS":
        print(r["status"], r["variant"], r["config_key"], str((r.get("metrics") or {}).get("reasons"))[:200])
for (variant, why), n in sorted(reasons.items()):
    print(f"UNSUPPORTED x{n} {variant}: {why}")
PY
  echo "==== bench (median ms; ratio = baseline ms / kernel ms, > 1: the kernel is faster)"
  python3 - "$OUT/bench.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    try:
        rows = json.load(open(path))
    except (OSError, ValueError) as exc:
        print(f"{path}: unreadable ({exc})"); continue
    for r in rows:
        m = r.get("metrics") or {}
        k = m.get("kernel") or {}
        if not k.get("median_ms"):
            print(f"{r['variant']}\t{r['config_key']}\t{r['status']}\t{str(m)[:200]}"); continue
        parts = [f"{r['variant']}\t{r['config_key']}\t{r['status']}\tkernel {k.get('median_ms', float('nan')):.4f} ms "
                 f"{k.get('tflops', 0):.1f} TFLOP/s"]
        for name, b in (m.get("baselines") or {}).items():
            if b.get("available"):
                parts.append(f"{name} {b['median_ms']:.4f} ms x{b['median_ms'] / k['median_ms']:.2f}")
            else:
                parts.append(f"{name} n/a ({str(b.get('reason'))[:60]})")
        print("\t".join(parts))
PY
} > "$OUT/summary.txt" 2>&1
log "done"
cat "$OUT/summary.txt"
