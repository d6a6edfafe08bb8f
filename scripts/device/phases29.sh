#!/usr/bin/env bash
# Session 29, call 1: where the cluster decode kernel's time goes at T = 1 with few KV heads, and
# whether ping-pong beats the persistent kernel on causal hd128 (with and without a sink).
#   tests     the decode GPU tests (cluster28.sh's tests step)
#   phases    ncu of the op call at $PHASE_SHAPES under timing-only patches that return early
#             (ret0: at the start; ret1: after the key loop; ret2: before the cluster merge;
#             ret2b: after its first cluster barrier; ret3: before the clusters' second-level merge)
#             and split rules (d4: balance divisor 4; k64: 64-key splits, divisor 16), beside cuDNN
#   causal    fmhactl bench of sm90_persistent(_feat) and sm90_pingpong(_feat) on causal hd128 rows
#     OUT=/dir [STEPS="tests phases causal"] bash scripts/device/phases29.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start phases29 560 "${1:-}"
STEPS=${STEPS:-"tests phases causal"}
if has tests; then
  OUT=$OUT/tests STEPS=tests BUDGET=100 bash scripts/device/cluster28.sh > "$RAW/tests.log" 2>&1
  log "tests: $(grep -h "pytest:" "$RAW/tests.log" | tail -n 1)"
fi
if has phases; then
  export PATCH_ret0='s|^    const int dim = p.head_dim;|    if (kCluster) return;\n&|'
  export PATCH_ret1='s|^    MergeSmem<D>& smem = |    if (kCluster) return;\n&|'
  export PATCH_ret2='s|cluster_merge<D, Mma>(p, s, b, h_kv, row0);  // its first|return;  // its first|'
  export PATCH_ret2b='s|cluster::sync();  // every peer|cluster::sync(); return;  // every peer|'
  export PATCH_ret3='s|^    if (n_clusters == 1) return;|    return;|'
  export RULE_d4="d.CLUSTER_BALANCE_DIVISOR = 4"
  export RULE_k64="d.MIN_SPLIT_KEYS = 64; d.CLUSTER_BALANCE_DIVISOR = 16"
  SH=${PHASE_SHAPES:-"b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=8192,d=128 b=1,h=8,hkv=1,t=1,s=32768,d=128 b=1,h=16,hkv=2,t=1,s=16384,d=128 b=1,h=32,hkv=8,t=1,s=2048,d=128 b=1,h=32,hkv=4,t=1,s=131072,d=128 b=1,h=32,hkv=8,t=4,s=32768,d=128"}
  OUT=$OUT/phases NCU_ONLY=1 ROUNDS=1 SHAPES="$SH" NCU_SHAPES="$SH" \
    SETTINGS="${SETTINGS:-default d4 k64 ret0-default ret1-default ret2-default ret2b-default ret3-default}" \
    BUDGET=$(( $(left) - ${CAUSAL_RESERVE:-150} )) bash scripts/device/decode26.sh > "$RAW/phases.log" 2>&1
  log "phases rc=$?"
fi
if has causal; then
  C=b=8,h=16,t=4096,s=4096,d=128,causal
  for v in sm90_persistent sm90_pingpong; do
    run "causal-$v" 70 python3 -m fmhactl bench "$v" --shape "$C" --shape b=4,h=16,t=8192,s=8192,d=128,causal \
      --baseline cudnn --seed 29 --warmup 10 --iters 30 --json
  done
  for v in sm90_persistent_feat sm90_pingpong_feat; do
    run "sink-$v" 70 python3 -m fmhactl bench "$v" --shape "$C,sink" --baseline sdpa-mask --seed 29 --warmup 10 --iters 30 --json
  done
  for f in "$RAW"/causal-*.out "$RAW"/sink-*.out; do
    python3 - "$f" <<'PY' >> "$RAW/device.log" 2>&1
import json, sys
name = sys.argv[1].rsplit("/", 1)[-1]
try:
    rows = json.load(open(sys.argv[1]))
except Exception as exc:
    print(name, "no JSON", type(exc).__name__); raise SystemExit
for r in rows:
    m = r.get("metrics", {})
    k = m.get("kernel") or {}
    cells = [f"{b}: {t.get('median_ms', float('nan')) * 1e3:.1f} us (ours/it {t.get('ratio') or 0:.3f})"
             for b, t in (m.get("baselines") or {}).items() if t.get("available")]
    print(name, r.get("config_key"), r.get("status"), f"ours {k.get('median_ms', float('nan')) * 1e3:.1f} us", *cells)
PY
  done
fi
cp -r "$RAW" "$OUT/raw" 2>/dev/null
cat "$RAW/device.log"
