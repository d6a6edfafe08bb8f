#!/usr/bin/env bash
# Session 12: timing-only variants of sm90_mqa_decode side by side in one call (each .ab/<name>/
# copied over the tree, built into its own FMHACTL_HOME, benched, the tree restored), one-item
# CTAs forced (FMHACTL_DECODE_PERSISTENT=0), b1 window and top-k, b64 top-k.
#   OUT=/dir bash scripts/device/decode28_variants.sh NAME...      carry: .whl .ab
set -u -o pipefail
OUT=${OUT:-/tmp/variants}; mkdir -p "$OUT"
source scripts/device/steps.sh
device_python
F="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink"
SHAPES="--shape b=1,$F,causal,wl=127 --shape b=1,$F,topk=512 --shape b=64,$F,topk=512"
rm -rf /tmp/var-cur && mkdir -p /tmp/var-cur && cp -r kernels fmhactl /tmp/var-cur/
for name in current "$@"; do
  [ "$name" = current ] || cp -r ".ab/$name/." .
  FMHACTL_DECODE_PERSISTENT=0 FMHACTL_HOME=/tmp/fh-var-$name timeout 90 python3 -m fmhactl bench sm90_mqa_decode \
    --seed 27 --warmup 5 --iters 30 --json --timeout 80 $SHAPES > "$OUT/$name.json" 2> "$OUT/$name.err"
  rm -rf kernels fmhactl && cp -r /tmp/var-cur/kernels /tmp/var-cur/fmhactl .
  python3 -c "
import json,sys
for r in json.load(open('$OUT/$name.json')): print('$name', r['config_key'], round(r['metrics']['kernel']['median_ms']*1e3,1), 'us')" 2>&1 | tail -3
done
