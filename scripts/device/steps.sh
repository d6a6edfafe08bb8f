# Sourced by the device scripts (sparse27, decode27, decode27_profile, model27, topk100):
# time-bounded steps with one log line each, so a call never runs past its budget and says what
# it skipped. The sourcing script sets `start` (epoch seconds), BUDGET (seconds) and RAW (a folder
# for each step's stdout/stderr and device.log); optionally STEP_RESERVE (seconds kept for the
# summary, default 12), STEP_MIN (a step with less time is skipped, default 10), SKIP ("name ...":
# steps not to run), DRY=1 (print the steps, run nothing: a CPU check of the script).
# The device lacks some wheels (pydantic, ...): install the carried ones (`carry: .whl`) under
# /tmp/site when they are missing, and put the tree and /tmp/site on PYTHONPATH. DRY installs nothing.
device_python() {
  if [ -z "${DRY:-}" ] && ! python3 -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  fi
  export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1
}
# device_start NAME DEFAULT_BUDGET [BUDGET_ARG]: the usual preamble in one call (newer scripts): OUT
# (default /tmp/NAME, made unless DRY), RAW, the device python, FMHACTL_HOME (default
# /tmp/fmhactl-NAME), BUDGET (env, else BUDGET_ARG, else DEFAULT_BUDGET), start, and the GPU in the log
device_start() {
  OUT=${OUT:-/tmp/$1}; [ -n "${DRY:-}" ] || mkdir -p "$OUT"
  RAW=$(mktemp -d "/tmp/$1-raw.XXXX")
  device_python
  export FMHACTL_HOME=${FMHACTL_HOME:-/tmp/fmhactl-$1}
  BUDGET=${BUDGET:-${3:-$2}}
  start=$(date +%s)
  log "$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null)"
}
left() { echo $(( BUDGET - ($(date +%s) - start) )); }
# has STEP: whether STEP is one of the words of $STEPS (the steps a script was asked to run)
has() { [[ " ${STEPS:-} " == *" $1 "* ]]; }
log() { echo "[+$(( $(date +%s) - start ))s] $*" | tee -a "$RAW/device.log"; }
# run NAME MAX_SECONDS CMD...: bounded by min(MAX, time left - STEP_RESERVE); stdout to
# $RAW/NAME.out, stderr to $RAW/NAME.err
run() {
  local name=$1 cap=$2 t rc; shift 2
  case " ${SKIP:-} " in *" $name "*) log "$name: skipped (SKIP)"; return;; esac
  if [ -n "${DRY:-}" ]; then log "$name (cap ${cap}s): $*"; return; fi
  t=$(( $(left) - ${STEP_RESERVE:-12} )); (( t > cap )) && t=$cap
  if (( t < ${STEP_MIN:-10} )); then log "$name: skipped (no time left)"; return; fi
  timeout --kill-after=5 "$t" "$@" > "$RAW/$name.out" 2> "$RAW/$name.err"
  rc=$?
  log "$name rc=$rc$( ((rc == 124 || rc == 137)) && echo " (timed out at ${t}s)") $(tail -n 1 "$RAW/$name.err" | cut -c1-160)"
}
# bench_rounds CAP VARIANT...: `fmhactl bench` of each variant on $SHAPES beside cuDNN (steps
# bench-ROUND-VARIANT, each capped at CAP s), ROUNDS times (default 2), the order reversed every
# other round so neither variant always runs first; --seed SEED (default 15)
bench_rounds() {
  local cap=$1 r v; shift
  local order=("$@")
  for r in $(seq 1 "${ROUNDS:-2}"); do
    for v in "${order[@]}"; do
      run bench-$r-$v "$cap" python3 -m fmhactl bench $v $SHAPES --baseline cudnn --seed "${SEED:-15}" --json
    done
    order=($(printf '%s\n' "${order[@]}" | tac))
  done
}
# evidence_step RESERVE: the milestone evidence re-made (evidence.sh STEPS="gpu out", into $OUT/ev)
# with the time left but RESERVE seconds for the steps after it; one log line with the record count
evidence_step() {
  if [ -n "${DRY:-}" ]; then log "evidence: OUT=$OUT/ev STEPS='gpu out' bash scripts/device/evidence.sh"; return; fi
  local ev_left=$(( $(left) - $1 ))
  OUT=$OUT/ev STEPS="gpu out" DEADLINE_S=$ev_left bash scripts/device/evidence.sh > "$RAW/evidence.log" 2>&1
  log "evidence rc=$? (deadline ${ev_left}s): $(grep -c . "$OUT/ev/evidence/records.jsonl" 2>/dev/null) records"
}
# verify prints its JSON array at the end, but stores each config's row as it lands: for a step
# its timeout cut, put the rows it stored in its place (rows_if_cut NAME GRID; needs V and SINCE)
rows_if_cut() {
  [ -n "${DRY:-}" ] && return
  python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$RAW/$1.out" 2>/dev/null && return
  log "$1: no JSON on stdout (cut?): its stored rows instead"
  python3 -m fmhactl results --kind verify --variant "$V" --grid "$2" --since "$SINCE" --limit 0 --json \
    > "$RAW/$1.out" 2>> "$RAW/$1.err"
}
# collect_rows: every step's JSON array ($RAW/bench-*.out, $RAW/verify-*.out) into $OUT/bench.json
# and $OUT/verify.json, each row tagged with its step (a step that printed no JSON adds nothing)
collect_rows() {
  python3 - "$RAW" "$OUT" <<'PY'
import glob, json, sys
raw, out = sys.argv[1], sys.argv[2]
for kind, pattern in (("bench", "bench-*.out"), ("verify", "verify-*.out")):
    rows = []
    for path in sorted(glob.glob(f"{raw}/{pattern}")):
        try:
            got = json.load(open(path))
        except (OSError, ValueError):
            continue
        for row in got:
            row["step"] = path.rsplit("/", 1)[-1][:-4]
        rows += got
    json.dump(rows, open(f"{out}/{kind}.json", "w"), indent=1)
PY
}
# memcheck_summary: the memcheck step's errors counted by kind (the SM90 family's 34
# cuGetProcAddress_v2 host-probe errors are expected; a kernel error is not) and its pass line
memcheck_summary() {
  echo "==== memcheck (errors by kind)"
  grep -h "^========= " "$RAW/sanitize.out" "$RAW/sanitize.err" 2>/dev/null | grep -v "^=========     \|^========= *$" | sort | uniq -c | sort -rn | head -12
  grep -h "passed\|FAIL" "$RAW/sanitize.out" | tail -n 3
}
# switch_variants SWITCH...: append to kernels/family.toml (on the device only; never committed)
# one scratch variant per switch, sm90_persistent_m192 with FMHA_<SWITCH> = 1 alone, named
# ab_m192_<switch>; prints the names (A/B of what each feature switch costs)
switch_variants() {
  local sw n
  for sw in "$@"; do
    n=$(echo "$sw" | tr A-Z a-z); echo "ab_m192_$n"
    [ -n "${DRY:-}" ] && continue
    grep -q "^name = \"ab_m192_$n\"" kernels/family.toml || cat >> kernels/family.toml <<TOML

[[variant]]
name = "ab_m192_$n"
description = "scratch: sm90_persistent_m192 with FMHA_$sw only (A/B of the feature switches' cost)"
source = "sm90/fmha_sm90.cu"
archs = ["sm_90a"]
launcher = "sm90"
kernel = "fmha_sm90_{dtype}_d{head_dim}"
switches = { FMHA_STAGES = 2, FMHA_STAGES_D64 = 3, FMHA_OVERLAP = 1, FMHA_PINGPONG = 0, FMHA_BLOCK_M = 192, FMHA_PERSISTENT = 1, FMHA_CONSUMERS = 3, FMHA_$sw = 1 }
head_dims = [64]
features = ["causal", "gqa", "lse", "tma", "pipeline", "wgmma", "persistent", "$n"]
tma_head_dim_fill = true
index64 = true
TOML
  done
}
# require_ab_sources V...: exit 2 unless each V is "new" (the tree's own sources) or has .ab/V/
# (that variant's sources at the tree's paths): before any work, else a script would time the tree
# under another name
require_ab_sources() {
  local v
  for v in "$@"; do
    [ "$v" = new ] || [ -d ".ab/$v" ] || { echo "$(basename "$0"): no .ab/$v/ (that variant's sources at the tree's paths)" >&2; exit 2; }
  done
}
# use_ab_sources V: kernels/ as the tree had it when this was first called, then .ab/V/ over it
# ("new": the tree's own); DRY swaps nothing. Call `use_ab_sources new` at the end.
use_ab_sources() {
  [ -n "${DRY:-}" ] && return
  [ -n "${AB_TREE_KERNELS:-}" ] || { AB_TREE_KERNELS=$(mktemp -d /tmp/ab-tree.XXXX); cp -r kernels "$AB_TREE_KERNELS/"; }
  rm -rf kernels && cp -r "$AB_TREE_KERNELS/kernels" . && { [ "$1" = new ] || cp -r ".ab/$1/." .; }
}
# finish_call: the call's raw step outputs into $OUT/raw.tgz, the scratch folder gone, and the
# summary (already written to $OUT/summary.txt) printed last
finish_call() {
  tar -czf "$OUT/raw.tgz" -C "$RAW" .
  rm -rf "$RAW"
  cat "$OUT/summary.txt"
}
# stop_unless_passed NAME: fail fast after a verify step: unless its stderr says "passed, 0
# failed", or if a config crashed or hung (each costs a worker restart), the call's budget ends
# here (the steps after it are skipped and say so)
stop_unless_passed() {
  [ -n "${DRY:-}" ] && return
  grep -q "passed, 0 failed" "$RAW/$1.err" || { log "stop: $1 did not pass"; BUDGET=0; }
  grep -q "crashed\|hung" "$RAW/$1.err" && { log "stop: $1 crashed or hung"; BUDGET=0; }
  return 0
}
# Shapes the feature scripts share (feat19, feat19b, ab19, mend20): the hd64 feature rows benched
# beside flex / FA4 (sinks, windows, K = V), and the sliding windows over many 192-row tiles a
# window verify runs (the WGs pass leading and trailing KV tiles of their own)
FEATURE_ROWS_D64="--shape b=8,h=16,t=4096,s=4096,d=64,causal,sink --shape b=16,h=16,t=1024,s=1024,d=64,causal,sink
 --shape b=8,h=16,t=4096,s=4096,d=64,causal,wl=127 --shape b=4,h=16,t=8192,s=8192,d=64,causal,wl=1023,sink
 --shape b=8,h=16,hkv=2,t=2048,s=2048,d=64,causal,kvshared"
WINDOW_VERIFY_SHAPES="--shape b=2,h=8,t=1500,s=1500,d=64,causal,wl=127 --shape b=2,h=4,t=1000,s=1300,d=64,wl=300,wr=50
 --shape b=1,h=4,t=777,s=777,d=64,causal,wl=200,sink,kvshared --shape b=3,h=4,hkv=1,t=2000,s=2000,d=64,causal,wl=63
 --shape b=2,h=4,t=900,s=2500,d=64,wl=0,wr=400,dtype=f16"
