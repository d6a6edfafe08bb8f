#!/usr/bin/env bash
# Session 12 call 2. Issue 27: sm90_mqa_decode under the measured split rule (splits_for_decode)
# beside sm90_mqa_gather at b1..b64 (32k cache) and at serving batches b128/b256 (8k cache: a 32k
# cache of 128 rows is 2^31 elements, over the kernels' 32-bit indexing); issue 24: the op per call
# against SDPA on every shape of the sm90 suite (its b64 T=1 row is taken now).
#   OUT=/dir bash scripts/device/session12_b.sh [BUDGET_S]      carry: .whl
# $OUT: summary.txt (decode27x_summary.py), bench.json, overhead.json, device.log, raw.tgz.
set -u -o pipefail
OUT=${OUT:-/tmp/s12b}; [ -n "${DRY:-}" ] || mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/s12b-raw.XXXX)
source scripts/device/steps.sh
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode28}
BUDGET=${BUDGET:-${1:-400}}
start=$(date +%s)
STEP_RESERVE=15 STEP_MIN=8
F=kvshared,sink
TOPK="h=64,hkv=1,t=1,d=512,$F,topk=512"
WIN="h=64,hkv=1,t=1,d=512,causal,wl=127,$F"
B="--seed 27 --warmup 5 --iters 30 --json"
shapes() { local spec=$1 s=$2; shift 2; for b in "$@"; do printf -- "--shape b=%s,s=%s,%s " "$b" "$s" "$spec"; done; }
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
run build 60 python3 -m fmhactl build sm90_mqa_decode sm90_mqa_gather --arch sm_90a
for k in decode gather; do
  run bench-new-$k-topk 40 python3 -m fmhactl bench sm90_mqa_$k $B --timeout 38 $(shapes $TOPK 32768 1 4 16 64) $(shapes $TOPK 8192 128 256)
  run bench-new-$k-win 40 python3 -m fmhactl bench sm90_mqa_$k $B --timeout 38 $(shapes $WIN 32768 1 4 16 64) $(shapes $WIN 8192 128 256)
done
SUITE=$(python3 -c "import tomllib; print(' '.join('--shape ' + s for s in tomllib.load(open('scenarios/bench/sm90.toml', 'rb'))['shapes']))")
run overhead 150 python3 -m fmhactl bench --overhead --json $SUITE --shape b=32,h=16,t=512,s=512,d=128 --shape b=1,h=8,t=32,s=32,d=64,causal
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
python3 scripts/device/decode27x_summary.py "$OUT" > "$OUT/summary.txt" 2>&1
cp "$RAW/overhead.out" "$OUT/overhead.json" 2>/dev/null
python3 scripts/device/op24_summary.py "$OUT" >> "$OUT/summary.txt" 2>&1 || true
cp "$RAW/device.log" "$OUT/device.log"
tar czf "$OUT/raw.tgz" -C "$RAW" .
