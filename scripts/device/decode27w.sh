#!/usr/bin/env bash
# Issue 27, decode with wgmma: first run of sm90_mqa_decode (kernels/sm90/fmha_mqa_decode.cuh) on
# one H100, beside sm90_mqa_gather (mma.sync) and sdpa-mask. Usage:
#   OUT=/path bash scripts/device/decode27w.sh [BUDGET]   (or: ... decode27w.sh OUT BUDGET)
# Never runs past BUDGET seconds (default 300). Steps, most telling first:
#  1. build both variants (regs/spills of the entry points);
#  2. the GPU test (tests/sm90/test_gpu_mqa_decode.py: split and unsplit decode shapes), then
#     verify dsv4-long (its 8 decode configs and the T=S=8k prefill row);
#  3. decode benches, T=1 h64:1 d512 s=32k K=V sink, top-k 512 and window 128, b=1/4/16/64:
#     sm90_mqa_decode beside sdpa-mask (out of memory from b16), then sm90_mqa_gather on the same
#     shapes (its --baseline flash reports itself unavailable on feature shapes: no second sdpa run);
#  4. an A/B of the split count (FMHACTL_DECODE_SPLITS=1 and 4 at b64 and b16);
#  5. ncu on ONE launch of b64 top-k (duration, DRAM bytes and throughput, occupancy, stalls).
# $OUT gets summary.txt, ncu.txt, bench.json, verify.json, raw.tgz (5 files).
# The device has no network: install the carried wheels first (`carry: .whl`), as session10_b.sh:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
#   export PYTHONPATH=$PWD:/tmp/site
set -u -o pipefail
OUT=${OUT:-/tmp/decode27w}; BUDGET=300
case "${1:-}" in ''|*[!0-9]*) [ -n "${1:-}" ] && OUT=$1; [ -n "${2:-}" ] && BUDGET=$2;; *) BUDGET=$1;; esac
start=$(date +%s)  # the budget counts from here, the wheel install included
if [ -z "${DRY:-}" ]; then
  mkdir -p "$OUT"
  if ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH=$PWD:/tmp/site
  fi
fi
RAW=$(mktemp -d /tmp/decode27w-raw.XXXX)
export PYTHONPATH=${PYTHONPATH:-$PWD} PYTHONUNBUFFERED=1 FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode27w}
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
log() { echo "[+$(( $(date +%s) - start ))s] $*" | tee -a "$RAW/device.log"; }
# run NAME MAX_SECONDS CMD...: bounded by min(MAX, time left - 10 s for the summary)
run() {
  local name=$1 cap=$2 t rc; shift 2
  case " ${SKIP:-} " in *" $name "*) log "$name: skipped (SKIP)"; return;; esac
  if [ -n "${DRY:-}" ]; then log "$name (cap ${cap}s): $*"; return; fi
  t=$(( $(left) - 10 )); (( t > cap )) && t=$cap
  if (( t < 8 )); then log "$name: skipped (no time left)"; return; fi
  timeout --kill-after=3 "$t" "$@" > "$RAW/$name.out" 2> "$RAW/$name.err"
  rc=$?
  log "$name rc=$rc$( ((rc == 124 || rc == 137)) && echo " (timed out at ${t}s)") $(tail -n 1 "$RAW/$name.err" | cut -c1-160)"
}
V=sm90_mqa_decode
G=sm90_mqa_gather
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
B="--seed 27 --warmup 5 --iters 30 --json"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
SECTIONS="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis"

log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null) ncu=${NCU:-none}"
run build 25 python3 -m fmhactl build $V --arch sm_90a
run build-gather 15 python3 -m fmhactl build $G --arch sm_90a
run gpu-test 70 python3 -m pytest -q -p no:cacheprovider tests/sm90/test_gpu_mqa_decode.py
run verify-dsv4-long 30 python3 -m fmhactl verify $V --grid dsv4-long --seed 27 --timeout 28 --json
run bench-decode-topk 25 python3 -m fmhactl bench $V $B --timeout 20 \
  --shape b=1,$TOPK --shape b=4,$TOPK --shape b=16,$TOPK --shape b=64,$TOPK --baseline sdpa-mask
run bench-gather-topk 25 python3 -m fmhactl bench $G $B --timeout 20 \
  --shape b=1,$TOPK --shape b=4,$TOPK --shape b=16,$TOPK --shape b=64,$TOPK --baseline flash
run bench-decode-win 20 python3 -m fmhactl bench $V $B --timeout 18 \
  --shape b=1,$WIN --shape b=4,$WIN --shape b=16,$WIN --shape b=64,$WIN --baseline sdpa-mask
run bench-gather-win 20 python3 -m fmhactl bench $G $B --timeout 18 \
  --shape b=1,$WIN --shape b=4,$WIN --shape b=16,$WIN --shape b=64,$WIN --baseline flash
# A/B of the split plan: b64 unsplit (64 CTAs, no merge) and 4 splits; b16 with 2 splits
run bench-ab-splits1 15 env FMHACTL_DECODE_SPLITS=1 python3 -m fmhactl bench $V $B --timeout 12 --shape b=64,$TOPK --shape b=16,$TOPK
run bench-ab-splits4 15 env FMHACTL_DECODE_SPLITS=4 python3 -m fmhactl bench $V $B --timeout 12 --shape b=64,$TOPK --shape b=16,$TOPK
if [ -n "$NCU" ]; then
  # bench's first launch (its one warm-up) is the captured one
  run ncu-b64-topk 35 "$NCU" -k regex:fmha_mqa_decode -c 1 $SECTIONS \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum \
    python3 -m fmhactl bench $V --seed 27 --warmup 0 --iters 1 --timeout 30 --shape b=64,$TOPK
else
  log "ncu: not found"
fi
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi

python3 - "$RAW" "$OUT" <<'PY'
import glob, json, sys
raw, out = sys.argv[1], sys.argv[2]
for kind, pattern in (("bench", "bench-*.out"), ("verify", "verify-*.out")):
    rows = []
    for path in sorted(glob.glob(f"{raw}/{pattern}")):
        try:
            got = json.load(open(path))
        except (OSError, ValueError):
            continue
        for row in got:
            row["step"] = path.rsplit("/", 1)[-1][:-4]
        rows += got
    json.dump(rows, open(f"{out}/{kind}.json", "w"), indent=1)
PY
{
  for f in "$RAW"/ncu-*.out; do
    [ -f "$f" ] || continue
    echo "==== $(basename "$f" .out)"
    grep -E "fmha_mqa_decode|Duration|gpu__time_duration|dram__bytes|lts__t_bytes|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Dynamic Shared|Block Size|Grid Size|Warp Cycles Per Issued|Stall|stall|OPT|Est\. Speedup" "$f" | head -n 60
  done
} > "$OUT/ncu.txt" 2>&1
{
  echo "==== steps"
  cat "$RAW/device.log"
  echo "==== build"
  tail -n 4 "$RAW/build.out" 2>/dev/null
  echo "==== GPU test"
  tail -n 15 "$RAW/gpu-test.out" 2>/dev/null
  echo "==== verify dsv4-long"
  python3 - "$RAW/verify-dsv4-long.out" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))
except (OSError, ValueError) as exc:
    print("no verify rows:", exc); sys.exit()
from collections import Counter
print(dict(Counter(r.get("status") for r in rows)))
for r in rows:
    m = r.get("metrics", {})
    print(f"{r.get('status'):12s} {r.get('config_key'):58s} O {m.get('max_abs_err')} (tol {m.get('tolerance')}) LSE {m.get('lse_max_err')} {m.get('reasons', '')}")
PY
  echo "==== ncu"
  grep -E "^====|Duration|gpu__time_duration|dram__bytes_read|DRAM Throughput|Achieved Occupancy" "$OUT/ncu.txt"
  echo "==== decode: kernel median vs the bytes it must move (gathered K rows + Q + O + LSE) at 3350 GB/s"
  python3 - "$OUT/bench.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
by = {}  # config -> {"decode" | "gather": median ms}
for row in rows:
    cfg, m = row.get("config", {}), row.get("metrics", {})
    k = m.get("kernel", {})
    if not k.get("median_ms") or cfg.get("seq_q") != 1:
        continue
    b, d, kv = cfg["batch"], cfg["head_dim"], cfg.get("topk") or 128
    need = b * (kv * d * 2 + 2 * cfg["heads"] * d * 2 + cfg["heads"] * 4)
    ms = k["median_ms"]
    if "-ab-" not in row["step"]:  # the split A/B rows time other plans of the same shapes
        by.setdefault(row["config_key"], {})["gather" if "gather" in row["step"] else "decode"] = ms
    base = {n: round(v["median_ms"], 4) for n, v in m.get("baselines", {}).items() if v.get("available")}
    print(f"{row['step']:18s} {row['config_key']:58s} {ms * 1e3:7.1f} us  p10 {k['p10_ms'] * 1e3:6.1f}  "
          f"{need / 2**20:6.2f} MiB  {need / (ms * 1e-3) / 1e9:6.0f} GB/s ({100 * need / (ms * 1e-3) / 3.35e12:4.1f}% HBM)  {base}")
print("---- sm90_mqa_gather / sm90_mqa_decode (same shape)")
for key, got in by.items():
    if "gather" in got and "decode" in got:
        print(f"{key:58s} {got['gather'] / got['decode']:5.2f}x")
PY
} > "$OUT/summary.txt" 2>&1
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
