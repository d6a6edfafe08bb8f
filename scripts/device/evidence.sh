#!/usr/bin/env bash
# Issue 23: the evidence behind STATUS.md and milestones/*.md, made on a lent H100 in one call
# (16 cores, well under 10 minutes), exported as the JSON lines the repository commits.
#
#   OUT=/dir bash scripts/device/evidence.sh        (run from the repository root)
#
# What runs (every milestone re-proved by its own scenario, so each row records that command):
#   cpu   strict emulated builds of the five SM100 milestone variants, in parallel, at ptxas -O0
#         (FMHACTL_EMU_PTXAS_O=0: about 4 min instead of 7-13; the strict rules are the same and the
#         family passes at both levels, docs/emulation-strict.md; emulated speed is never reported);
#         once they are done, `fmhactl build` of the milestone variants (the compile-only column)
#   gpu   meanwhile: M0 `fmhactl scenario run proof-m0` (ref, native, seeds72 + awkward) beside
#         SM90 `fmhactl scenario run proof-sm90` (the native Hopper family on seeds72/awkward/fa); M6
#         `fmhactl bench --model llama-small` and `python -m fmhactl.torch.checks --record` (the op
#         on its current dispatch: each row names the backend it ran)
#   emu   once the strict builds are cached, in parallel: scenarios proof-m1, proof-m2, proof-m3-m4,
#         proof-m5, proof-smem-p (verify --emulation strict, the default)
#   out   `fmhactl results export --out $OUT/evidence` (this run's rows plus the committed evidence/),
#         `fmhactl status` (into logs.tgz: status/), and $OUT/summary.txt
# What comes back (3 files: the device tool returns at most 8): $OUT/summary.txt,
# $OUT/evidence/records.jsonl, $OUT/logs.tgz (every step's log, status/STATUS.md + milestones/).
# The lead copies $OUT/evidence/records.jsonl to evidence/, runs `fmhactl status --evidence-only`
# and commits evidence/, STATUS.md and milestones/.
# Knobs: DEADLINE_S (default 540), STEPS (default "cpu gpu emu out"), SM100 / EMU_SCENARIOS (the
# variants to build strict / the scenarios to run after), FMHACTL_HOME (default
# .fmhactl/evidence-run inside the tree, ignored by git: a warm machine finds the strict builds).
set -u -o pipefail
T0=$(date +%s)
OUT=${OUT:-/tmp/evidence-out}; LOGS=$OUT/logs; mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export FMHACTL_HOME=${FMHACTL_HOME:-$PWD/.fmhactl/evidence-run}
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O-0}
PY=${PYTHON:-python3}
DEADLINE_S=${DEADLINE_S:-540}
STEPS=${STEPS:-cpu gpu emu out}
SM100=${SM100-sm100_direct_tmem sm100_tma_tmem sm100_tma_s2_tmem sm100_direct_smem sm100_tma_s2_smem}
EMU_SCENARIOS=${EMU_SCENARIOS-proof-m1 proof-m2 proof-m3-m4 proof-m5 proof-smem-p}
SUM=$OUT/summary.txt; : > "$SUM"
say() { echo "[+$(( $(date +%s) - T0 ))s] $*" | tee -a "$SUM"; }
left() { local l=$(( DEADLINE_S - ($(date +%s) - T0) )); [ "$l" -lt 1 ] && l=1; echo "$l"; }
has() { case " $STEPS " in *" $1 "*) return 0;; esac; return 1; }
run() {  # run NAME LIMIT_S CMD...: log to $LOGS/NAME.txt, one summary line with rc and the last line
  local name=$1 limit=$2; shift 2
  local start=$(date +%s)
  timeout "$limit" "$@" > "$LOGS/$name.txt" 2>&1
  local rc=$?
  say "$name rc=$rc $(( $(date +%s) - start ))s: $(grep -v '^\s*$' "$LOGS/$name.txt" | tail -n 1 | cut -c1-200)"
  return 0
}

say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 1) | git $(git rev-parse --short HEAD 2>/dev/null || echo '?') | FMHACTL_EMU_PTXAS_O=$FMHACTL_EMU_PTXAS_O"
# The lent machines lack pydantic (and textual, nvtx): carry the repo's .whl/ (README of the device
# tool) and they are installed here into /tmp/site, once per machine.
if ! "$PY" -c "import pydantic" 2>/dev/null && [ -d .whl ]; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    >> "$LOGS/pip.txt" 2>&1
  say "wheels from .whl/ into /tmp/site rc=$?"
fi
[ -d /tmp/site ] && export PYTHONPATH="$PYTHONPATH:/tmp/site"
if ! "$PY" -c "import torch, pydantic, typer, transformers; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'gpu', torch.cuda.is_available())" 2>&1 | tee -a "$SUM"; then
  say "python3 lacks a package fmhactl needs: carry .whl (pydantic, typing_inspection, annotated_types, pydantic_core)"
  exit 3
fi

if has cpu; then
  items=""; for v in $SM100; do items="$items $v:strict"; done
  ( run builds-strict "$(left)" "$PY" scripts/device/build_targets.py $items ) &
  BUILDS=$!
fi

if has gpu; then
  ( run proof-sm90 "$(left)" "$PY" -m fmhactl scenario run proof-sm90 ) &
  SM90_PID=$!
  run proof-m0 "$(left)" "$PY" -m fmhactl scenario run proof-m0
  wait "$SM90_PID"
  run model-bench 150 "$PY" -m fmhactl bench --model llama-small --prompt 1 --prompt 17 --prompt 511 --prompt 2048 --json
  run torch-checks "$(left)" "$PY" -m fmhactl.torch.checks --record --json
fi

if has cpu; then
  wait "$BUILDS"; sed 's/^/    /' "$LOGS/builds-strict.txt" | tee -a "$SUM"
  # the compile-only column, on the CPU while the emulated verifies below use the GPU
  ( run builds-compile-only "$(( $(left) > 60 ? $(left) - 45 : 15 ))" "$PY" -m fmhactl build ref $SM100 --jobs 8 ) &
  COMPILE=$!
fi

if has emu; then
  EMU_PIDS=()
  for s in $EMU_SCENARIOS; do
    ( run "$s" "$(left)" "$PY" -m fmhactl scenario run "$s" ) &
    EMU_PIDS+=($!)
  done
  [ "${#EMU_PIDS[@]}" -gt 0 ] && wait "${EMU_PIDS[@]}"
fi
if has cpu; then wait "$COMPILE"; fi

if has out; then
  run export 60 "$PY" -m fmhactl results export --out "$OUT/evidence"
  run status 60 "$PY" -m fmhactl status --out "$LOGS/status"
  echo "--- fmhactl status (this run's store + the committed evidence):" | tee -a "$SUM"
  cat "$LOGS/status.txt" | grep -v '^wrote ' | tee -a "$SUM"
  "$PY" - "$OUT/evidence/records.jsonl" <<'PY' 2>&1 | tee -a "$SUM"
import collections, json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
count = collections.Counter((r["kind"], r["variant"], r["mode"], r["status"], r["metrics"].get("emulation", "")) for r in rows)
print(f"--- evidence: {len(rows)} records in {sys.argv[1]}")
for (kind, variant, mode, status, emulation), n in sorted(count.items()):
    print(f"  {kind:12} {variant:20} {mode or '-':13} {emulation or '-':7} {status:12} {n}")
print("  GPUs:", ", ".join(sorted({r["gpu"] for r in rows if r["gpu"]})) or "-",
      "| dates:", min((r["date"] for r in rows), default="-"), "..", max((r["date"] for r in rows), default="-"))
PY
fi
say "total"
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$LOGS"
