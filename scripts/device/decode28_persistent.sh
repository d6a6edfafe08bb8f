#!/usr/bin/env bash
# Session 12: sm90_mqa_decode with persistent CTAs past one wave (the producer filters the next
# item's list and loads its first blocks while the consumers finish the current one), A/B against
# .ab/old in one call: decode27x.sh (GPU tests, dsv4-long on both kernels, b1-b64 benches old and
# new), verify of shapes that take the persistent grid (more items than SMs: b256 top-k, b200
# window, 128 heads (two head chunks) at b100, T=4 at b64, f16), and the serving batches
# (b128/b256 at an 8k cache, b384/b512 at 4k) old and new.
#   OUT=/dir bash scripts/device/decode28_persistent.sh      carry: .whl .ab
set -u -o pipefail
OUT=${OUT:-/tmp/persist_ab}; mkdir -p "$OUT"
SKIP="ncu-b64-topk" SKIP_GATHER=1 SPLITS_AB="" OUT="$OUT" bash scripts/device/decode27x.sh 300 > "$OUT/decode27x.log" 2>&1
source scripts/device/steps.sh
device_python
export FMHACTL_HOME=/tmp/fmhactl-decode27x
F="h=64,hkv=1,d=512,kvshared,sink"
timeout 150 python3 -m fmhactl verify sm90_mqa_decode --seed 29 --timeout 140 --json \
  --shape "b=256,t=1,s=8192,$F,topk=512" --shape "b=200,t=1,s=8192,$F,causal,wl=127" \
  --shape "b=100,h=128,hkv=1,t=1,s=4096,d=512,kvshared,topk=256" --shape "b=64,t=4,s=4096,$F,causal,wl=200" \
  --shape "b=140,t=1,s=2048,$F,topk=300,dtype=f16" --shape "b=133,t=1,s=4096,$F,causal,wl=31,topk=64" \
  > "$OUT/verify-persistent.json" 2> "$OUT/verify-persistent.err"
tail -n 1 "$OUT/verify-persistent.err"
T="t=1,$F,topk=512"; W="t=1,$F,causal,wl=127"
BIG="--shape b=128,s=8192,$T --shape b=256,s=8192,$T --shape b=384,s=4096,$T --shape b=512,s=4096,$T --shape b=256,s=8192,$W --shape b=512,s=4096,$W"
B="--seed 27 --warmup 5 --iters 30 --json --timeout 100"
timeout 110 python3 -m fmhactl bench sm90_mqa_decode $B $BIG > "$OUT/big-new.json" 2> "$OUT/big.err"
rm -rf /tmp/ps-new && mkdir -p /tmp/ps-new && cp -r kernels fmhactl /tmp/ps-new/ && cp -r .ab/old/. .
FMHACTL_HOME=/tmp/fmhactl-decode27x-old timeout 110 python3 -m fmhactl bench sm90_mqa_decode $B $BIG > "$OUT/big-old.json" 2>> "$OUT/big.err"
rm -rf kernels fmhactl && cp -r /tmp/ps-new/kernels /tmp/ps-new/fmhactl .
python3 scripts/device/decode_ab_summary.py "$OUT"
