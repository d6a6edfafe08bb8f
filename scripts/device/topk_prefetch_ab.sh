#!/usr/bin/env bash
# Session 12: the top-k filter with its entries' loads in flight together (kernels/common/topk_list.cuh),
# A/B against .ab/old in one call: decode27x.sh (GPU tests, dsv4-long on both kernels, b1-b64 benches of
# both kernels, old and new) and sm90_mqa_decode at serving batches (b256 at an 8k cache, b384/b512 at 4k),
# old and new.   OUT=/dir bash scripts/device/topk_prefetch_ab.sh      carry: .whl .ab
set -u -o pipefail
OUT=${OUT:-/tmp/topk_ab}; mkdir -p "$OUT"
SKIP="ncu-b64-topk" SPLITS_AB="" OUT="$OUT" bash scripts/device/decode27x.sh 330 > "$OUT/decode27x.log" 2>&1
source scripts/device/steps.sh
device_python
F="h=64,hkv=1,t=1,d=512,kvshared,sink,topk=512"
BIG="--shape b=256,s=8192,$F --shape b=384,s=4096,$F --shape b=512,s=4096,$F"
B="--seed 27 --warmup 5 --iters 30 --json --timeout 100"
FMHACTL_HOME=/tmp/fmhactl-decode27x timeout 110 python3 -m fmhactl bench sm90_mqa_decode $B $BIG > "$OUT/big-new.json" 2> "$OUT/big.err"
rm -rf /tmp/tk-new && mkdir -p /tmp/tk-new && cp -r kernels /tmp/tk-new/ && cp -r .ab/old/. .
FMHACTL_HOME=/tmp/fmhactl-decode27x-old timeout 110 python3 -m fmhactl bench sm90_mqa_decode $B $BIG > "$OUT/big-old.json" 2>> "$OUT/big.err"
rm -rf kernels && cp -r /tmp/tk-new/kernels .
python3 scripts/device/decode_ab_summary.py "$OUT"
