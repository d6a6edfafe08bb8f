#!/usr/bin/env bash
# Session 26: decode split rules side by side in one call, on small-batch GQA decode steps where
# cuDNN's kernel is ahead (b1 h32:8 S2k: 13.5 against 16.2 us, session 24). A setting is
# `default`, `unbalanced` (the rule without balanced_splits), a name with RULE_<name> set (python
# statements on `d`, fmhactl.torch.decode, e.g. RULE_k1="d.BALANCE_KEYS_PER_ROW = 1") or the split
# heuristic's two knobs (FMHACTL_DECODE_SPLITS=CTAS_PER_SM,MIN_SPLIT_KEYS). Rounds alternate the settings' order.
#     OUT=/dir [SETTINGS="default 2,256 4,64 2,64"] [ROUNDS=2] bash scripts/device/decode26.sh [BUDGET_S]   carry: .whl
# $OUT/decode26.txt: per shape and setting, fmhactl and cuDNN kernel us (median of the rounds).
set -u -o pipefail
source scripts/device/steps.sh
device_start decode26 200 "${1:-}"
STEP_RESERVE=5 STEP_MIN=8
SHAPES=${SHAPES:-"b=1,h=32,hkv=8,t=1,s=2048,d=128 b=1,h=32,hkv=8,t=1,s=8192,d=128 b=2,h=32,hkv=8,t=1,s=4096,d=128 b=1,h=16,hkv=2,t=1,s=16384,d=128 b=1,h=32,hkv=8,t=1,s=2048,d=64 b=4,h=32,hkv=8,t=4,s=4096,d=128 b=8,h=32,hkv=8,t=1,s=8192,d=128"}
ARGS=$(for s in $SHAPES; do printf -- "--shape %s " "$s"; done)
SETTINGS=(${SETTINGS:-default 2,256 4,64 2,64})
UNBALANCED='import sys; import fmhactl.torch.decode as d; d.balanced_splits = lambda seq_k, rows: 1 << 30
from fmhactl.cli.app import main; sys.argv = ["fmhactl", *sys.argv[1:]]; main()'

# A setting may start with PATCH- (e.g. shallow-default): the sed expression PATCH_<PATCH> (env)
# applied to this call's copy of kernels/sm90/fmha_decode.cuh before its run (the build cache keys
# on the source, so each patch builds once); u<N>- sets combine_rows' kUnroll to N. Default:
# PATCH_shallow makes the merge's deep loop the shallow one (the merge before session 26).
MERGE_SRC=kernels/sm90/fmha_decode.cuh
MERGE_KEEP=$(mktemp /tmp/decode26-src.XXXX); cp "$MERGE_SRC" "$MERGE_KEEP"
PATCH_shallow=${PATCH_shallow:-"s/constexpr int kDeepUnroll = .*;/constexpr int kDeepUnroll = kUnroll;/"}
for r in $(seq 1 "${ROUNDS:-2}"); do
  for s in "${SETTINGS[@]}"; do
    s_rule=${s##*-}
    [ -n "${DRY:-}" ] || cp "$MERGE_KEEP" "$MERGE_SRC"
    if [[ $s == *-* ]]; then
      patch=${s%-*}
      if [[ $patch == u[0-9]* ]]; then expr="s/constexpr int kUnroll = .*;/constexpr int kUnroll = ${patch#u};/"
      else expr_var=PATCH_$patch; expr=${!expr_var:-}; fi
      [ -n "$expr" ] || { log "$s: no patch named $patch"; continue; }
      [ -n "${DRY:-}" ] || sed -i "$expr" "$MERGE_SRC"
    fi
    if [ "$s_rule" = unbalanced ]; then  # the rule before balanced_splits (session 26), in the same run
      run "decode-$r-$s" 90 env -u FMHACTL_DECODE_SPLITS python3 -c "$UNBALANCED" bench --decode $ARGS --json
      continue
    fi
    rule_var=RULE_$s_rule
    if [ -n "${!rule_var:-}" ]; then  # RULE_<name>="d.X = ...": statements on fmhactl.torch.decode as d
      run "decode-$r-$s" 90 env -u FMHACTL_DECODE_SPLITS python3 -c "import sys; import fmhactl.torch.decode as d; ${!rule_var}
from fmhactl.cli.app import main; sys.argv = ['fmhactl', *sys.argv[1:]]; main()" bench --decode $ARGS --json
      continue
    fi
    if [ "$s_rule" = default ]; then env=(env -u FMHACTL_DECODE_SPLITS); else env=(env FMHACTL_DECODE_SPLITS=$s_rule); fi
    run "decode-$r-${s/,/_}" 90 "${env[@]}" python3 -m fmhactl bench --decode $ARGS --json
  done
  SETTINGS=($(printf '%s\n' "${SETTINGS[@]}" | tac))
done
[ -n "${DRY:-}" ] || cp "$MERGE_KEEP" "$MERGE_SRC"
[ -n "${DRY:-}" ] && exit 0
python3 - "$RAW" > "$OUT/decode26.txt" <<'PY'
import glob, json, os, statistics, sys
from collections import defaultdict
times = defaultdict(list)
for path in sorted(glob.glob(f"{sys.argv[1]}/decode-*.out")):
    setting = os.path.basename(path)[:-4].split("-", 2)[2]
    try:
        rows = json.load(open(path))["rows"]
    except Exception as exc:
        print(f"{path}: no JSON ({type(exc).__name__})"); continue
    for row in rows:
        impls = row["impls"]
        times[(row["shape"], setting, "fmhactl")].append(impls["fmhactl"]["kernel_us"])
        times[(row["shape"], setting, "cudnn")].append(impls["sdpa-cudnn"]["kernel_us"])
for shape in sorted({k[0] for k in times}):
    cells = []
    for setting in sorted({k[1] for k in times if k[0] == shape}):
        ours = statistics.median(times[(shape, setting, "fmhactl")])
        cudnn = statistics.median(times[(shape, setting, "cudnn")])
        cells.append(f"{setting}: {ours:.1f} us (cudnn {cudnn:.1f}, {cudnn / ours:.3f})")
    print(shape, " | ".join(cells))
PY
cat "$RAW/device.log" >> "$OUT/decode26.txt"
