#!/usr/bin/env bash
# Session 28: the cluster kernel's split merge (fmha_decode_cluster_*, distributed shared memory)
# on the device: the decode GPU tests (fused cluster / fused plain / merge launch), compute-sanitizer
# (memcheck, racecheck, synccheck) on op calls that take the cluster kernel, and ncu of the op call
# under settings of decode26.sh (default: the cluster kernel where it has enough splits; plain:
# CLUSTER_MIN_SPLITS past any count; d1 / d4: the cluster kernel's balance divisor 1 / 4, not 2).
#     OUT=/dir [STEPS="tests sanitizer ncu fuzz bench"] bash scripts/device/cluster28.sh [BUDGET_S]   carry: .whl
set -u -o pipefail
source scripts/device/steps.sh
device_start cluster28 540 "${1:-}"
STEPS=${STEPS:-"tests sanitizer ncu"}
export RULE_plain="d.CLUSTER_MIN_SPLITS = 1 << 30"
export RULE_d1="d.CLUSTER_BALANCE_DIVISOR = 1"
export RULE_d4="d.CLUSTER_BALANCE_DIVISOR = 4"
FEW=${FEW:-"b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=8,hkv=1,t=1,s=32768,d=128 b=1,h=16,hkv=2,t=1,s=16384,d=128 b=1,h=32,hkv=8,t=1,s=2048,d=128 b=1,h=32,hkv=8,t=1,s=8192,d=128 b=16,h=32,hkv=8,t=1,s=4096,d=128 b=1,h=32,hkv=4,t=1,s=131072,d=128 b=8,h=32,hkv=8,t=1,s=8192,d=128 b=1,h=32,hkv=8,t=4,s=32768,d=128 b=1,h=16,hkv=4,t=4,s=32768,d=64 b=1,h=16,hkv=4,t=1,s=8192,d=256"}
if has tests; then
  run clusters 60 python3 -c "import torch; torch.zeros(1, device='cuda'); import fmhactl.torch.decode as d; print('max active clusters (hd64, hd128, hd256):', [d._functions(0, 'bf16', h)[3] for h in (64, 128, 256)])"
  log "$(cat "$RAW/clusters.out" 2>/dev/null)"
  run pytest-decode 240 python3 -m pytest -q -m gpu tests/torch/test_decode_gpu.py -p no:cacheprovider
  cp "$RAW/pytest-decode.out" "$OUT/pytest-decode.txt" 2>/dev/null
  log "pytest: $(tail -n 1 "$RAW/pytest-decode.out" 2>/dev/null)"
fi
if has sanitizer; then
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
  SAN="b=1,h=8,hkv=1,t=1,s=4096,d=128 b=1,h=16,hkv=1,t=1,s=12000,d=256 b=2,h=16,hkv=4,t=3,s=6000,d=96 b=1,h=32,hkv=8,t=4,s=8192,d=128 b=1,h=16,hkv=1,t=1,s=900,d=128"
  for tool in memcheck racecheck synccheck; do
    run "cs-$tool" 90 "$CS" --tool "$tool" --report-api-errors no python3 scripts/device/decode_ncu.py --impls fmhactl $SAN
    log "cs-$tool: $(grep -h "SUMMARY" "$RAW/cs-$tool.out" "$RAW/cs-$tool.err" 2>/dev/null | tail -n 1)"
  done
  run cs-memcheck-plain 60 "$CS" --tool memcheck --report-api-errors no python3 scripts/device/decode_ncu.py --rule "$RULE_plain" --impls fmhactl $SAN
  log "cs-memcheck-plain: $(grep -h "SUMMARY" "$RAW/cs-memcheck-plain.out" "$RAW/cs-memcheck-plain.err" 2>/dev/null | tail -n 1)"
fi
if has ncu; then
  OUT=$OUT/ncu NCU_ONLY=1 ROUNDS=1 SHAPES="$FEW" NCU_SHAPES="$FEW" SETTINGS="${SETTINGS:-default plain d1 d4}" \
    BUDGET=$(( $(left) - 40 )) bash scripts/device/decode26.sh > "$RAW/ncu.log" 2>&1
  log "ncu rc=$?"
fi
if has fuzz; then  # the op and the integrations on fresh random cases (decode shapes among them)
  FMHACTL_FUZZ_CASES=${FUZZ_CASES:-200} FMHACTL_FUZZ_HF_CASES=${FUZZ_HF_CASES:-60} run pytest-fuzz 170 \
    python3 -m pytest -q -m gpu tests/torch/test_op_random_gpu.py tests/torch/test_integrations_random_gpu.py -p no:cacheprovider
  cp "$RAW/pytest-fuzz.out" "$OUT/pytest-fuzz.txt" 2>/dev/null
  log "fuzz: $(tail -n 1 "$RAW/pytest-fuzz.out" 2>/dev/null); $(grep -m2 -i "seed" "$RAW/pytest-fuzz.out" | tr '\n' ' ')"
fi
if has bench; then
  DEF=$(python3 -c "from fmhactl.bench.decode import DEFAULT_SHAPES as d; print(' '.join(d))")
  OUT=$OUT/bench ROUNDS=${ROUNDS:-3} SHAPES="$FEW $DEF" SETTINGS="${SETTINGS:-default plain}" \
    BUDGET=$(( $(left) - 30 )) bash scripts/device/decode26.sh > "$RAW/bench.log" 2>&1
  log "bench rc=$?"
fi
cp -r "$RAW" "$OUT/raw" 2>/dev/null
