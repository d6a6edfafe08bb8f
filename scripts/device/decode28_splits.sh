#!/usr/bin/env bash
# Issue 27, session 12 call 1: the split rule of sm90_mqa_decode measured on every shape it would
# change (session 11 timed top-k only), and the decode at serving batches (b128, b256), with flex
# beside it from b16. Usage:  OUT=/dir bash scripts/device/decode28_splits.sh [BUDGET_S]   carry: .whl
# $OUT: summary.txt (decode27x_summary.py's view), bench.json, raw.tgz.
set -u -o pipefail
OUT=${OUT:-/tmp/decode28}; [ -n "${DRY:-}" ] || mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/decode28-raw.XXXX)
source scripts/device/steps.sh
device_python
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-decode28}
BUDGET=${BUDGET:-${1:-420}}
start=$(date +%s)
STEP_RESERVE=15 STEP_MIN=8
V=sm90_mqa_decode
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
B="--seed 27 --warmup 5 --iters 30 --json"
shapes() { local spec=$1; shift; for b in "$@"; do printf -- "--shape b=%s,%s " "$b" "$spec"; done; }
log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
run build 40 python3 -m fmhactl build $V --arch sm_90a
run bench-new-decode-topk 40 python3 -m fmhactl bench $V $B --timeout 38 $(shapes $TOPK 1 4 16 64 128 256)
run bench-new-decode-win 40 python3 -m fmhactl bench $V $B --timeout 38 $(shapes $WIN 1 4 16 64 128 256)
for n in 1 2 4; do
  run bench-new-decode-splits$n 30 env FMHACTL_DECODE_SPLITS=$n python3 -m fmhactl bench $V $B --timeout 28 $(shapes $WIN 1 4 16 64)
done
for n in 1 2; do
  run bench-new-decode-splits$n-big 40 env FMHACTL_DECODE_SPLITS=$n python3 -m fmhactl bench $V $B --timeout 38 \
    $(shapes $TOPK 128 256) $(shapes $WIN 128 256)
done
run bench-flex-decode-topk 60 python3 -m fmhactl bench $V $B --timeout 58 $(shapes $TOPK 16 64) --baseline flex
run bench-flex-decode-win 60 python3 -m fmhactl bench $V $B --timeout 58 $(shapes $WIN 16 64) --baseline flex
[ -n "${DRY:-}" ] && { rm -rf "$RAW"; exit 0; }
collect_rows
python3 scripts/device/decode27x_summary.py "$OUT" > "$OUT/summary.txt" 2>&1
cp "$RAW/device.log" "$OUT/device.log"
tar czf "$OUT/raw.tgz" -C "$RAW" .
