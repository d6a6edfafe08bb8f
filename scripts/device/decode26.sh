#!/usr/bin/env bash
# Session 26: decode split rules side by side in one call, on small-batch GQA decode steps where
# cuDNN's kernel is ahead (b1 h32:8 S2k: 13.5 against 16.2 us, session 24). A setting is
# `default`, a name with RULE_<name> set (python statements on `d`, fmhactl.torch.decode, e.g.
# RULE_k1="d.BALANCE_KEYS_PER_ROW = 1"; `unbalanced`, the rule without balanced_splits, is one by
# default) or the split heuristic's two knobs (FMHACTL_DECODE_SPLITS=CTAS_PER_SM,MIN_SPLIT_KEYS).
# Rounds alternate the settings' order. NCU_SHAPES="shape ...": first, ncu of one op call and one
# SDPA-cuDNN call at each (scripts/device/decode_ncu.py: every kernel's grid, registers, SMEM and
# GPU duration, without the event timing's host and flush noise). NCU_ONLY=1: each setting's op
# call at $SHAPES under ncu instead of the bench (one round). Kernels: $OUT/ncu.txt.
#     OUT=/dir [SETTINGS="default 2,256 4,64 2,64"] [ROUNDS=2] bash scripts/device/decode26.sh [BUDGET_S]   carry: .whl
# $OUT/decode26.txt: per shape and setting, fmhactl and cuDNN kernel us (median of the rounds).
set -u -o pipefail
source scripts/device/steps.sh
device_start decode26 200 "${1:-}"
STEP_RESERVE=5 STEP_MIN=8
SHAPES=${SHAPES:-"b=1,h=32,hkv=8,t=1,s=2048,d=128 b=1,h=32,hkv=8,t=1,s=8192,d=128 b=2,h=32,hkv=8,t=1,s=4096,d=128 b=1,h=16,hkv=2,t=1,s=16384,d=128 b=1,h=32,hkv=8,t=1,s=2048,d=64 b=4,h=32,hkv=8,t=4,s=4096,d=128 b=8,h=32,hkv=8,t=1,s=8192,d=128"}
ARGS=$(for s in $SHAPES; do printf -- "--shape %s " "$s"; done)
SETTINGS=(${SETTINGS:-default 2,256 4,64 2,64})
RULE_unbalanced=${RULE_unbalanced:-"d.balanced_splits = lambda seq_k, rows: 1 << 30"}
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -n 1)
NCU_METRICS=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,dram__bytes_read.sum
# knob_env SPLITS: the env command of a run with FMHACTL_DECODE_SPLITS=SPLITS ('' : unset), in KNOB_ENV
knob_env() {
  if [ -n "$1" ]; then KNOB_ENV=(env "FMHACTL_DECODE_SPLITS=$1"); else KNOB_ENV=(env -u FMHACTL_DECODE_SPLITS); fi
}
# ncu_step NAME SPLITS RULE IMPLS SHAPE...: decode_ncu.py under ncu (clocks as they run), CSV to
# $RAW/NAME.out; SPLITS: the split knobs for it (knob_env)
ncu_step() {
  local name=$1 splits=$2 rule=$3 impls=$4; shift 4
  if [ -z "$NCU" ]; then log "$name: no ncu, skipped"; return; fi
  knob_env "$splits"
  run "$name" 120 "${KNOB_ENV[@]}" "$NCU" --profile-from-start off --clock-control none --csv --metrics "$NCU_METRICS" \
    python3 scripts/device/decode_ncu.py --rule "$rule" --impls "$impls" "$@"
}
[ -z "${NCU_SHAPES:-}" ] || ncu_step ncu-baselines "" "" fmhactl,cudnn $NCU_SHAPES

# A setting may start with PATCH- (e.g. loop-default; several: a-b-default): the sed expression PATCH_<PATCH> (env)
# applied to this call's copy of kernels/sm90/fmha_decode.cuh before its run (the build cache keys
# on the source, so each patch builds once); a name with a file .ab/decode_<name>.cuh (carry .ab)
# puts that whole source in place instead (an A/B against the source before a change).
MERGE_SRC=kernels/sm90/fmha_decode.cuh
MERGE_KEEP=$(mktemp /tmp/decode26-src.XXXX); cp "$MERGE_SRC" "$MERGE_KEEP"
for r in $(seq 1 "${ROUNDS:-2}"); do
  for s in "${SETTINGS[@]}"; do
    s_rule=${s##*-}
    [ -n "${DRY:-}" ] || cp "$MERGE_KEEP" "$MERGE_SRC"
    missing=""
    if [[ $s == *-* ]]; then
      IFS=- read -r -a patches <<< "${s%-*}"
      for patch in "${patches[@]}"; do
        if [ -f ".ab/decode_$patch.cuh" ]; then  # a whole source (carry .ab): e.g. main's before a change
          [ -n "${DRY:-}" ] || cp ".ab/decode_$patch.cuh" "$MERGE_SRC"; continue
        fi
        expr_var=PATCH_$patch; expr=${!expr_var:-}
        [ -n "$expr" ] || { missing=$patch; break; }
        [ -n "${DRY:-}" ] || sed -i "$expr" "$MERGE_SRC"
      done
    fi
    [ -z "$missing" ] || { log "$s: no patch named $missing"; continue; }
    rule="" splits=""
    if [[ $s_rule =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then  # a name (a knob setting like 2,256 names no variable)
      rule_var=RULE_$s_rule; rule=${!rule_var:-}  # RULE_<name>="d.X = ...": statements on fmhactl.torch.decode as d
    fi
    if [ -z "$rule" ] && [ "$s_rule" != default ]; then splits=$s_rule; fi
    if [ -n "${NCU_ONLY:-}" ]; then  # ncu of each setting's op call at $SHAPES instead of the bench
      [ "$r" = 1 ] && ncu_step "ncu-$r-${s/,/_}" "$splits" "$rule" fmhactl $SHAPES
      continue
    fi
    knob_env "$splits"
    run "decode-$r-${s/,/_}" 90 "${KNOB_ENV[@]}" python3 -c "import sys; import fmhactl.torch.decode as d; $rule
from fmhactl.cli.app import main; sys.argv = ['fmhactl', *sys.argv[1:]]; main()" bench --decode $ARGS --json
  done
  SETTINGS=($(printf '%s\n' "${SETTINGS[@]}" | tac))
done
[ -n "${DRY:-}" ] || cp "$MERGE_KEEP" "$MERGE_SRC"
[ -n "${DRY:-}" ] && exit 0
python3 - "$RAW" > "$OUT/ncu.txt" <<'PY'
import csv, glob, os, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/ncu-*.out")):
    lines = open(path).read().splitlines()
    calls = [l.split(" ", 1)[1] for l in lines if l.startswith("profiled ")]
    rows = [r for r in csv.reader(l for l in lines if l.startswith('"'))]
    if not rows:
        print(f"{os.path.basename(path)}: no kernels"); continue
    head, kernels = rows[0], {}
    col = {k: head.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
    for r in rows[1:]:
        kernels.setdefault(int(r[col["ID"]]), {"name": r[col["Kernel Name"]].split("(")[0][:48]})[r[col["Metric Name"]]] = r[col["Metric Value"]]
    print(f"== {os.path.basename(path)[:-4]}  calls: {' | '.join(calls)}")
    for i in sorted(kernels):
        k = kernels[i]
        print(f"  {k['name']:48s} grid {k.get('launch__grid_size', '?'):>6s} regs {k.get('launch__registers_per_thread', '?'):>4s} "
              f"{float(k.get('gpu__time_duration.sum', 'nan').replace(',', '')) / 1e3:8.2f} us  dram read {k.get('dram__bytes_read.sum', '?')}")
PY
[ -n "${NCU_ONLY:-}" ] && exit 0
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
