#!/usr/bin/env bash
# Session 14: the op per call beside SDPA on shapes outside the sm90 suite (what acceptance may
# time: odd lengths, chunked prefill, long causal, hd256 causal, head dims the kernels reach only
# padded, a ViT-like non-causal batch, speculative decode, fp16), plus the suite's two S1k misses.
#   OUT=/dir bash scripts/device/sweep14.sh [BUDGET]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh  # device_start, log, run
device_start sweep14 300 "${1:-}"
STEP_RESERVE=10 STEP_MIN=15
S="--shape b=1,h=32,hkv=8,t=2048,s=2048,d=128,causal --shape b=1,h=32,hkv=8,t=16384,s=16384,d=128,causal
   --shape b=4,h=16,t=1000,s=1000,d=64,causal --shape b=8,h=16,t=2500,s=2500,d=128
   --shape b=1,h=32,hkv=8,t=512,s=4096,d=128,causal --shape b=4,h=8,t=2048,s=2048,d=256,causal
   --shape b=2,h=32,t=2048,s=2048,d=96,causal --shape b=2,h=32,t=2048,s=2048,d=80
   --shape b=4,h=16,t=1024,s=1024,d=32,causal --shape b=32,h=12,t=197,s=197,d=64
   --shape b=8,h=32,hkv=8,t=4,s=8192,d=128 --shape b=64,h=32,hkv=8,t=1,s=1024,d=128
   --shape b=4,h=32,hkv=8,t=2048,s=2048,d=128,causal,dtype=f16
   --shape b=16,h=16,t=1024,s=1024,d=64 --shape b=16,h=16,t=1024,s=1024,d=64,causal"
run overhead 260 python3 -m fmhactl bench --overhead --json $S
[ -n "${DRY:-}" ] && exit 0
cp "$RAW/overhead.out" "$OUT/overhead.json" 2>/dev/null
{ cat "$RAW/device.log"; tail -n 3 "$RAW/overhead.err"
  python3 - "$OUT/overhead.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("no JSON:", e); sys.exit()
print(f"{'shape':42s} {'backend':24s} {'op us':>8s} {'cudnn/op':>8s} {'flash/op':>8s} {'sdpa/op':>8s} {'host op/sdpa':>12s}")
for r in d["rows"]:
    i = r["impls"]
    op = i.get("fmhactl", {}).get("per_call_us")
    def ratio(name):
        v = i.get(name, {}).get("per_call_us")
        return f"{v / op:8.3f}" if v and op else f"{'-':>8s}"
    h = i.get("fmhactl", {}).get("host_us"), i.get("sdpa", {}).get("host_us")
    host = f"{h[0] / h[1]:12.3f}" if all(h) else f"{'-':>12s}"
    print(f"{r['shape']:42s} {r['backend'].split(' ')[0]:24s} {op or 0:8.1f} {ratio('sdpa-cudnn')} {ratio('sdpa-flash')} {ratio('sdpa')} {host}")
PY
} > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
