#!/usr/bin/env bash
# Session 16: the peers call's one HANG row (sm90_persistent_feat, b4 h16 T=S=8k d128 causal wl=127,
# 120 s per config with fa4 + flashinfer + flex): the kernel alone (run, verify) first, then the
# bench row with each baseline in its own step (their first-use compiles apart), the peers only
# where /tmp/peers-site is still unpacked (the machine stayed warm).   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start hang16 "${1:-420}"
SHAPE=${SHAPE:-b=4,h=16,t=8192,s=8192,d=128,causal,wl=127}
V=${V:-sm90_persistent_feat}
run run-kernel 60 python3 -m fmhactl run "$V" --shape "$SHAPE"
run verify 90 python3 -m fmhactl verify "$V" --shape "$SHAPE" --shape b=4,h=16,t=8192,s=8192,d=64,causal,wl=127 --seed 16
run bench-sdpa-mask 90 python3 -m fmhactl bench "$V" --shape "$SHAPE" --baseline sdpa-mask --timeout 85 --json
run bench-flex 150 python3 -m fmhactl bench "$V" --shape "$SHAPE" --baseline flex --timeout 145 --json
if [ -f /tmp/peers-site/.complete ]; then
  source /tmp/peers-site/env.sh
  run bench-peers 150 python3 -m fmhactl bench "$V" --shape "$SHAPE" --baseline fa4 --baseline flashinfer --timeout 145 --json
else
  log "peers not unpacked here (the machine went back): no fa4/flashinfer row"
fi
for s in bench-sdpa-mask bench-flex bench-peers; do [ -s "$RAW/$s.out" ] && cp "$RAW/$s.out" "$OUT/$s.json"; done
{ cat "$RAW/run-kernel.out" "$RAW/run-kernel.err"
  for s in bench-sdpa-mask bench-flex bench-peers; do
    [ -s "$OUT/$s.json" ] && { echo "== $s"; python3 scripts/device/peers_summary.py "$OUT/$s.json"; }
  done
  cat "$RAW/verify.out"  # verify's own table: verdict and errors per config
  cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
