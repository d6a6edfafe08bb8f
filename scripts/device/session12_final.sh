#!/usr/bin/env bash
# Session 12's closing numbers on one H100, in one call: issue 24 by op24.sh without the steps
# whose code did not change since they last ran (torch GPU tests: call 7; the kernel alone:
# session 11 call 10, the plain SM90 variants' SASS unchanged), then issue 27's decode on every
# batch (sm90_mqa_decode, top-k 512 and window 128, b1-b64 at a 32k cache, b128/b256 at 8k).
#   OUT=/dir bash scripts/device/session12_final.sh      carry: .whl
# $OUT: op24.sh's files (summary.txt, overhead.json, decode.json, model_llama.json,
# model_qwen2.json, raw.tgz) and dsv4.txt (decode27x_summary.py over the decode benches).
set -u -o pipefail
OUT=${OUT:-/tmp/s12final}; mkdir -p "$OUT"
SKIP="gpu-test kernels kernels256" OUT="$OUT" bash scripts/device/op24.sh 440
D=$(mktemp -d /tmp/s12final-dsv4.XXXX)
export PYTHONPATH=$PWD:/tmp/site FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-op24}
F=kvshared,sink
B="--seed 27 --warmup 5 --iters 30 --json --timeout 50"
shapes() { local spec=$1; for b in 1 4 16 64; do printf -- "--shape b=%s,s=32768,%s " "$b" "$spec"; done
           for b in 128 256; do printf -- "--shape b=%s,s=8192,%s " "$b" "$spec"; done; }
timeout 60 python3 -m fmhactl bench sm90_mqa_decode $B $(shapes "h=64,hkv=1,t=1,d=512,$F,topk=512") > "$D/bench-new-decode-topk.out" 2> "$D/topk.err"
timeout 60 python3 -m fmhactl bench sm90_mqa_decode $B $(shapes "h=64,hkv=1,t=1,d=512,causal,wl=127,$F") > "$D/bench-new-decode-win.out" 2> "$D/win.err"
source scripts/device/steps.sh  # collect_rows: $RAW/bench-*.out into $OUT/bench.json
mkdir -p "$D/out" && RAW=$D OUT=$D/out collect_rows
python3 scripts/device/decode27x_summary.py "$D/out" > "$OUT/dsv4.txt" 2>&1 || true
tail -n 2 "$D/topk.err" "$D/win.err" >> "$OUT/dsv4.txt"
