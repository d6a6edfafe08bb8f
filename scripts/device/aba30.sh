#!/usr/bin/env bash
# Session 30: sm90_mqa_decode, the tree's kernel against .ab/<v>'s for v in VARIANTS (default old; same paths) in A-B-A order, so
# that a drift over the call shows as A's two runs disagreeing. Bench only (kernel medians).
#     OUT=/dir [ROUNDS=2] [SPLITS=n: FMHACTL_DECODE_SPLITS] [ABA_SHAPES="--shape ..."] bash scripts/device/aba30.sh [BUDGET_S]   carry: .whl (.ab travels untracked)
set -u -o pipefail
source scripts/device/steps.sh
require_ab_sources ${VARIANTS:-old}  # before any work (else it would time the tree twice)
device_start aba30 300 "${1:-}"
V=sm90_mqa_decode
TOPK="h=64,hkv=1,t=1,s=32768,d=512,kvshared,sink,topk=512"
WIN="h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink"
SH=${ABA_SHAPES:-"--shape b=1,$TOPK --shape b=4,$TOPK --shape b=16,$TOPK --shape b=64,$TOPK --shape b=64,$WIN --shape b=128,${TOPK/s=32768/s=8192}"}
bench_as() {  # NAME: bench the sources now in the tree into their own cache
  run "bench-$1" 60 env FMHACTL_HOME=/tmp/fmhactl-aba30-$2 ${SPLITS:+FMHACTL_DECODE_SPLITS=$SPLITS} python3 -m fmhactl bench $V \
    --seed 30 --warmup 5 --iters 50 --timeout 50 --json $SH
}
for r in $(seq 1 "${ROUNDS:-2}"); do
  use_ab_sources new && bench_as "new-$r-a" new
  for v in ${VARIANTS:-old}; do  # .ab/<v>/ holds that variant's sources (the tree's paths)
    use_ab_sources "$v" && bench_as "$v-$r" "$v"
  done
  use_ab_sources new && bench_as "new-$r-b" new
done
python3 - "$RAW" <<'PY' | while read -r line; do log "$line"; done
import glob, json, os, sys
table = {}
for path in sorted(glob.glob(f"{sys.argv[1]}/bench-*.out")):
    name = os.path.basename(path)[6:-4]
    try:
        rows = json.load(open(path))
    except Exception as exc:
        print(f"{name}: no JSON ({type(exc).__name__})"); continue
    for r in rows:
        table.setdefault(r["config_key"], {})[name] = r["metrics"]["kernel"]["median_ms"] * 1e3
for key, runs in table.items():
    print(key[:48], " ".join(f"{n}={v:.1f}" for n, v in sorted(runs.items())))
PY
[ -n "${DRY:-}" ] || cp "$RAW/device.log" "$OUT/device.log"
