#!/usr/bin/env bash
# Where sm90_mqa_decode's time per block goes: the kernel beside copies of it with parts taken out
# (timing only, results are wrong): .ab/<probe>/kernels/sm90/fmha_mqa_decode.cuh, e.g. noqk (no
# QK^T wgmma), nopv (no P V wgmma), nomma (neither), nomath (neither, no S exchange either).
# Each is built into its own FMHACTL_HOME and timed at b1 and b64 with the split forced to 1 (one
# CTA walks all 16 blocks of top-k 512) and at b64 with the default plan.
#   OUT=/dir bash scripts/device/decode27_probe.sh [PROBES...]      carry: .whl .ab
set -u -o pipefail
OUT=${OUT:-/tmp/decode27-probe}; mkdir -p "$OUT"
source scripts/device/steps.sh  # device_python, left, log, run, collect_rows
device_python
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
B="--seed 27 --warmup 5 --iters 30 --json --timeout 20"
cp kernels/sm90/fmha_mqa_decode.cuh /tmp/decode-base.cuh
for probe in base "${@:-noqk nopv nomma nomath}"; do
  for v in $probe; do
    if [ "$v" = base ]; then cp /tmp/decode-base.cuh kernels/sm90/fmha_mqa_decode.cuh
    else cp ".ab/$v/kernels/sm90/fmha_mqa_decode.cuh" kernels/sm90/fmha_mqa_decode.cuh; fi
    export FMHACTL_HOME=/tmp/fmhactl-probe-$v
    timeout 60 env FMHACTL_DECODE_SPLITS=1 python3 -m fmhactl bench sm90_mqa_decode $B --shape b=1,$TOPK --shape b=64,$TOPK \
      > "$OUT/$v-split1.json" 2> "$OUT/$v.err"
    timeout 40 python3 -m fmhactl bench sm90_mqa_decode $B --shape b=64,$TOPK > "$OUT/$v-default.json" 2>> "$OUT/$v.err"
  done
done
cp /tmp/decode-base.cuh kernels/sm90/fmha_mqa_decode.cuh
python3 - "$OUT" <<'PY'
import glob, json, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/*.json")):
    try:
        rows = json.load(open(path))
    except ValueError:
        print(path.rsplit("/", 1)[-1], "no JSON"); continue
    for r in rows:
        k = r.get("metrics", {}).get("kernel", {})
        print(f"{path.rsplit('/', 1)[-1]:22s} {r['config_key']:48s} {k.get('median_ms', float('nan')) * 1e3:7.1f} us")
PY
