#!/usr/bin/env bash
# Issue 27, decode: sm90_mqa_gather's split-K decode on one H100. Usage:
#   OUT=/path BUDGET=300 bash scripts/device/decode27.sh   (or: bash scripts/device/decode27.sh OUT BUDGET)
# Builds, runs the GPU test (split and unsplit shapes), verifies dsv4 and dsv4-long, then benches
# decode (T=1, h64:1, d512, s=32k, K=V, sink; top-k 512 and window 128 apart; b=1,4,16,64) with
# flex and sdpa-mask beside it (flex in its own capped call per shape group: a row it cannot
# finish says so), and the prefill T=S=8k window 128 row. Never runs past BUDGET. $OUT gets
# summary.txt, bench.json, verify.json, raw.tgz (every step's logs).
# Note: bench times one launch between CUDA events; a launch shorter than the host's enqueue
# (~20 us from Python) reads as the enqueue time (sparse27's 0.023 ms floor).
set -u -o pipefail
OUT=${1:-${OUT:-/tmp/decode27-out}}; BUDGET=${2:-${BUDGET:-300}}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/decode27-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode27}
start=$(date +%s)
SINCE=$(date +%Y-%m-%dT%H:%M:%S)  # local time, as `fmhactl results --since` reads it
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
log() { echo "[+$(( $(date +%s) - start ))s] $*" | tee -a "$RAW/device.log"; }
# run NAME MAX_SECONDS CMD...: bounded by min(MAX, time left - 12 s for the summary); stdout to
# $RAW/NAME.out, stderr to $RAW/NAME.err
run() {
  local name=$1 cap=$2 t rc; shift 2
  case " ${SKIP:-} " in *" $name "*) log "$name: skipped (SKIP)"; return;; esac
  if [ -n "${DRY:-}" ]; then log "$name (cap ${cap}s): $*"; return; fi
  t=$(( $(left) - 12 )); (( t > cap )) && t=$cap
  if (( t < 10 )); then log "$name: skipped (no time left)"; return; fi
  timeout --kill-after=5 "$t" "$@" > "$RAW/$name.out" 2> "$RAW/$name.err"
  rc=$?
  log "$name rc=$rc$( ((rc == 124 || rc == 137)) && echo " (timed out at ${t}s)") $(tail -n 1 "$RAW/$name.err" | cut -c1-160)"
}
# verify prints its JSON array at the end, but stores each config's row as it lands: for a step
# its timeout cut, summarise the rows it stored instead
rows_if_cut() {  # NAME GRID
  [ -n "${DRY:-}" ] && return
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$RAW/$1.out" 2>/dev/null && return
  log "$1: no JSON on stdout (cut?): its stored rows instead"
  python3 -m fmhactl results --kind verify --variant $V --grid "$2" --since "$SINCE" --limit 0 --json \
    > "$RAW/$1.out" 2>> "$RAW/$1.err"
}
V=sm90_mqa_gather
DEC="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink,topk=512"
PRE="b=1,h=64,hkv=1,t=8192,s=8192,d=512,causal,wl=127,kvshared,sink"
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"

log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
run build 25 python3 -m fmhactl build $V --arch sm_90a
run gpu-test 40 python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_mqa_gather.py
run verify-dsv4 25 python3 -m fmhactl verify $V --grid dsv4 --seed 27 --timeout 20 --json
rows_if_cut verify-dsv4 dsv4
run verify-dsv4-long 35 python3 -m fmhactl verify $V --grid dsv4-long --seed 27 --timeout 30 --json
rows_if_cut verify-dsv4-long dsv4-long
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
B="--seed 27 --warmup 5 --iters 30 --json"
run bench-decode-topk 45 python3 -m fmhactl bench $V $B --timeout 40 \
  --shape b=1,$TOPK --shape b=4,$TOPK --shape b=16,$TOPK --shape b=64,$TOPK --baseline sdpa-mask
run bench-decode-win 45 python3 -m fmhactl bench $V $B --timeout 40 \
  --shape b=1,$WIN --shape b=4,$WIN --shape b=16,$WIN --shape b=64,$WIN --baseline sdpa-mask
run bench-flex-topk 60 python3 -m fmhactl bench $V $B --timeout 55 --shape b=4,$TOPK --shape b=16,$TOPK --baseline flex
run bench-flex-win 60 python3 -m fmhactl bench $V $B --timeout 55 --shape b=4,$WIN --shape b=16,$WIN --baseline flex
run bench-prefill 40 python3 -m fmhactl bench $V --seed 27 --timeout 35 --warmup 3 --iters 20 --json \
  --shape $PRE --baseline flex --baseline sdpa-mask
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi

python3 - "$RAW" "$OUT" <<'PY'
import glob, json, sys
raw, out = sys.argv[1], sys.argv[2]
for kind, pattern in (("bench", "bench-*.out"), ("verify", "verify-*.out")):
    rows = []
    for path in sorted(glob.glob(f"{raw}/{pattern}")):
        try:
            rows += json.load(open(path))
        except (OSError, ValueError):
            pass
    json.dump(rows, open(f"{out}/{kind}.json", "w"), indent=1)
PY
{
  echo "==== steps"
  cat "$RAW/device.log"
  echo "==== build"
  tail -n 9 "$RAW/build.out" 2>/dev/null
  echo "==== GPU test (tests/sm90/test_gpu_mqa_gather.py)"
  tail -n 3 "$RAW/gpu-test.out" 2>/dev/null
  python3 scripts/device/sparse27_summary.py --verify "$RAW/verify-dsv4.out" "$RAW/verify-dsv4-long.out" \
    --bench "$RAW"/bench-*.out
  echo "==== decode bandwidth (bytes the kernel must read/write: gathered K rows + Q + O + LSE)"
  python3 - "$RAW" <<'PY'
import glob, json, re, sys
for path in sorted(glob.glob(sys.argv[1] + "/bench-*.out")):
    try:
        rows = json.load(open(path))
    except (OSError, ValueError):
        continue
    for row in rows:
        key, m = row.get("config_key", ""), row.get("metrics", {})
        ms = m.get("kernel", {}).get("median_ms")
        b = re.search(r"b=?(\d+)", key); t = re.search(r"t=?(\d+)", key)
        if not ms or "t=1," not in key.replace("seq_q=1,", "t=1,") and "_t1_" not in key:
            pass
        print(key, "kernel", ms, "ms", {k: (v.get("median_ms") if v.get("available") else v.get("reason"))
                                       for k, v in m.get("baselines", {}).items()})
PY
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
