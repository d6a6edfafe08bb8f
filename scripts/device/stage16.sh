#!/usr/bin/env bash
# Session 16: the worker's stage reports (fmhactl/runtime/stage.py) on the GPU. A bench whose flex
# baseline cannot finish its first-use compile inside a 4 s watchdog must come back HANG naming
# "baseline flex" with the kernel's timing kept; verify of the self-test hang kernel must name
# "the kernel"; then the GPU tests of the worker, verify and bench paths.   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start stage16 "${1:-200}"
run bench-flex-4s 40 python3 -m fmhactl bench sm90_persistent_feat --shape b=2,h=8,t=1024,s=1024,d=64,causal,wl=127 \
  --baseline cudnn --baseline flex --timeout 4
run verify-hang 40 python3 -m fmhactl verify selftest_hang --shape b=1,h=1,t=3,s=64,d=64 --shape b=1,h=1,t=8,s=64,d=64 --timeout 5
run gpu-tests 110 python3 -m pytest -q -m gpu tests/runtime tests/verify tests/bench -x -p no:cacheprovider
{ for s in bench-flex-4s verify-hang gpu-tests; do echo "== $s"; tail -n 25 "$RAW/$s.out"; tail -n 3 "$RAW/$s.err"; done
  cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
rm -rf "$RAW"
cat "$OUT/summary.txt"
