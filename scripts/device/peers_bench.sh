#!/usr/bin/env bash
# ON THE DEVICE, the last call of the peers payload (scripts/device/peers_payload.sh's header gives
# the calls and their carry lists: this one carries its part and .whl): stages the part and unpacks
# the peers (scripts/device/peers_install.sh), then benches V (default sm90_persistent) on the sm90
# suite's shapes it supports (scripts/suite_shapes.py: sm90_persistent runs 9 of the 10; d=256 is
# not among them) beside cudnn, flash, fa4 and flashinfer in one `fmhactl bench` (one worker: FA4's
# kernels, which the CuTe DSL compiles on first use, and FlashInfer's modules, built ahead of time,
# load once). Each peer is checked against the reference on a config's first input set before it
# is timed; one that cannot run a config says why (n/a). Bench stores each config's row as it ends,
# so a run its timeout cut still reports the configs it finished.
# $OUT gets: summary.txt (printed last), bench.json (the stored bench rows), raw.tgz (each step's
# stdout/stderr and device.log).
# Then (issue 27 item 3) FV (default sm90_persistent_feat) on FEATURE_SHAPES (window, sinks) beside
# FEATURE_BASELINES ("fa4 flashinfer flex"), in what time is left, FEATURE_TIMEOUT (300) s a config:
# FlashInfer JIT-compiles the window modules peers_payload.sh did not build ahead of time, and
# with FA4's and flex's first compiles one config took over 120 s (session 16 call 4).
# Knobs: BUDGET (s, default 540), V, BASELINES ("cudnn flash fa4 flashinfer"), SUITE_CAP (s the suite
# bench may take, default 330; 0 skips it), FV, FEATURE_SHAPES, FEATURE_BASELINES, FV2 and
# FEATURE_SHAPES2 (a second feature bench after the first: bench refuses a whole list when one
# shape does not fit its variant, so hd64 rows on the 192-row tile and hd128 rows on another go
# apart), DRY=1 (print the commands, run nothing: a CPU check).
set -u -o pipefail
OUT=${OUT:-/tmp/peers-bench-out}; mkdir -p "$OUT"
RAW=$(mktemp -d /tmp/peers-bench-raw.XXXX)
export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-peers}
BUDGET=${BUDGET:-540}
V=${V:-sm90_persistent}
BASELINES=${BASELINES:-cudnn flash fa4 flashinfer}
SITE=${PEERS_SITE:-/tmp/peers-site}
start=$(date +%s)
SINCE=$(date +%Y-%m-%dT%H:%M:%S)  # local time, as `fmhactl results --since` reads it
STEP_RESERVE=20 STEP_MIN=30
source scripts/device/steps.sh  # device_python, left, log, run

device_python  # the carried .whl (pydantic, ...) under /tmp/site; the tree and /tmp/site on PYTHONPATH
if [ -z "${DRY:-}" ]; then
  bash scripts/device/peers_install.sh 2>&1 | tee -a "$RAW/device.log"
  if [ ! -f "$SITE/.complete" ]; then
    log "the peers are not unpacked (a part is missing): make the calls again from call 1"
    tar -czf "$OUT/raw.tgz" -C "$RAW" .
    exit 3
  fi
  source "$SITE/env.sh"  # the peers' site before the rest of PYTHONPATH, their caches under /tmp
  log "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
fi
run imports 60 python3 -c 'import importlib, time
for module in ("torch", "flash_attn.cute.interface", "flashinfer"):
    begin = time.time()
    try:
        m = importlib.import_module(module)
        version = getattr(m, "__version__", "")
        print(f"import {module}: {version} in {time.time() - begin:.1f} s ({m.__file__})")
    except Exception as exc:
        print(f"import {module}: FAILED {type(exc).__name__}: {str(exc).splitlines()[0][:300]}")'
baselines=()
for b in $BASELINES; do baselines+=(--baseline "$b"); done
# the suite's shapes V runs (bench refuses a list holding one it cannot: sm90_persistent has no d=256)
shapes=$(python3 scripts/suite_shapes.py "$V" sm90) || { log "suite_shapes.py failed"; exit 2; }
if [ "${SUITE_CAP:-330}" != 0 ]; then
  # shellcheck disable=SC2086  # one word a --shape flag or value
  run bench "${SUITE_CAP:-330}" python3 -m fmhactl bench "$V" $shapes --timeout 300 --json "${baselines[@]}"
fi
FV=${FV:-sm90_persistent_feat}
FEATURE_SHAPES=${FEATURE_SHAPES:-"--shape b=4,h=16,t=8192,s=8192,d=128,causal,wl=127
 --shape b=4,h=16,t=8192,s=8192,d=128,causal,wl=1023,sink --shape b=8,h=16,t=4096,s=4096,d=64,causal,sink"}
fbaselines=()
for b in ${FEATURE_BASELINES:-fa4 flashinfer flex}; do fbaselines+=(--baseline "$b"); done
# shellcheck disable=SC2086
run bench-features 600 python3 -m fmhactl bench "$FV" $FEATURE_SHAPES --timeout "${FEATURE_TIMEOUT:-300}" --json "${fbaselines[@]}"
if [ -n "${FV2:-}" ]; then
  # shellcheck disable=SC2086
  run bench-features2 600 python3 -m fmhactl bench "$FV2" ${FEATURE_SHAPES2:?FV2 needs FEATURE_SHAPES2} \
    --timeout "${FEATURE_TIMEOUT:-300}" --json "${fbaselines[@]}"
fi
if [ -n "${DRY:-}" ]; then rm -rf "$RAW"; exit 0; fi

cat "$RAW/imports.out" >> "$RAW/device.log"
python3 -m fmhactl results --kind bench --variant "$V" --since "$SINCE" --limit 0 --json > "$OUT/bench.json" 2>> "$RAW/device.log"
python3 -m fmhactl results --kind bench --variant "$FV" --since "$SINCE" --limit 0 --json > "$OUT/bench-features.json" 2>> "$RAW/device.log"
[ -n "${FV2:-}" ] && python3 -m fmhactl results --kind bench --variant "$FV2" --since "$SINCE" --limit 0 --json \
  > "$OUT/bench-features2.json" 2>> "$RAW/device.log"
{ [ "${SUITE_CAP:-330}" != 0 ] && python3 scripts/device/peers_summary.py "$OUT/bench.json"
  python3 scripts/device/peers_summary.py "$OUT/bench-features.json"
  [ -n "${FV2:-}" ] && python3 scripts/device/peers_summary.py "$OUT/bench-features2.json"
  cat "$RAW/device.log"; } > "$OUT/summary.txt" 2>&1
cat "$RAW/imports.out" >> "$OUT/summary.txt"
tar -czf "$OUT/raw.tgz" -C "$RAW" .
rm -rf "$RAW"
cat "$OUT/summary.txt"
