#!/usr/bin/env bash
# Strict-mode overhead: wall time of the same verify run (one variant, seeds72, same seed) under
# --emulation fast and strict, both builds already cached. Prints one line per mode.
#   bash scripts/device/strict_overhead.sh VARIANT LOGDIR [TIME_LIMIT_S]
set -u -o pipefail
v=$1; logs=$2; limit=${3:-300}
for mode in fast strict; do
  s=$(date +%s.%N)
  timeout "$limit" python3 -m fmhactl verify "$v" --grid seeds72 --seed 7 --timeout 120 --emulation $mode > "$logs/overhead.$mode.txt" 2>&1
  rc=$?; e=$(date +%s.%N)
  echo "overhead $v seeds72 $mode rc=$rc wall $(python3 -c "print(f'{$e - $s:.1f}')") s (builds cached): $(grep passed "$logs/overhead.$mode.txt" | tail -n 1)"
done
