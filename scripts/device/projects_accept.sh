#!/usr/bin/env bash
# Issue 26 on the H100, one pass (aim: < 150 s; the strict-emulation smoke runs last, if time is left):
#   1. `fmhactl init` a project; its three kernels verify on `fa` (sm90_start native; sm100_tc5
#      emulated; sm100_raw_ptx emulated through the PTX path; --emulation fast: strict emulation of
#      the whole fa grid takes many minutes), then strict emulation of both sm100 kernels on `smoke`;
#   2. the seeds-style fixture (tests/fixtures/seeds_project: own FmhaParams, grid=(1, n_h, batch))
#      verifies on `fa`, benches beside cuDNN/flash, profiles under ncu (NVTX range);
#   3. `fmhactl status` in the fixture writes its milestone files; `results export` writes its
#      evidence. Both are copied to $OUT/seeds_project/ for the lead to commit into the fixture.
# Logs in $OUT, a summary table last (also $OUT/summary.txt).
#   OUT=/tmp/projects-out bash scripts/device/projects_accept.sh [budget_s] [parts]
# parts: "scaffold fixture" (default) or either one. The strict smoke runs beside the fast verifies
# (its emulated builds take minutes of CPU; the device has 16 cores).
set -u -o pipefail
OUT=${OUT:-/tmp/projects-out}; mkdir -p "$OUT"
REPO=$PWD
budget=${1:-400}
parts=${2:-scaffold fixture}
export PYTHONPATH=${PYTHONPATH:-$REPO} PYTHONUNBUFFERED=1
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0}  # emulated builds: their speed means nothing
unset FMHACTL_HOME FMHACTL_PROJECT  # each project keeps its results in its own .fmhactl/
# `fm` is a command on PATH, not a shell function: `timeout` (in step) runs commands only.
mkdir -p /tmp/projects-bin && printf '#!/bin/sh\nexec python3 -m fmhactl "$@"\n' > /tmp/projects-bin/fm && chmod +x /tmp/projects-bin/fm
export PATH=/tmp/projects-bin:$PATH
SUMMARY="$OUT/summary.txt"; : > "$SUMMARY"
t_start=$(date +%s)
left() { echo $(( budget - ( $(date +%s) - t_start ) )); }
step() {  # name log command...: run (within the time left), record rc, seconds and the last line
  local name=$1 log=$2; shift 2
  local lim; lim=$(left)
  if [ "$lim" -lt 15 ]; then printf '%-36s skipped: no time left\n' "$name" | tee -a "$SUMMARY"; return; fi
  local t0=$(date +%s)
  timeout "$lim" "$@" > "$OUT/$log" 2>&1
  local rc=$?
  printf '%-36s rc=%-3s %4ss  %s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" \
    "$(grep -v '^\s*$' "$OUT/$log" | tail -n 1 | cut -c1-150)" | tee -a "$SUMMARY"
}

# PROJECT_DIR: a project `fmhactl init` made beforehand (its emulated builds cached with the device's
# toolchain: scripts/device/ptx_with_toolchain.py), else a fresh one.
P=${PROJECT_DIR:-$(mktemp -d /tmp/fmhactl-init-XXXX)/attn}
case "$parts" in *scaffold*)
if [ -z "${PROJECT_DIR:-}" ]; then step "init" init.log fm init "$P"; fi
cd "$P" || exit 1
step "scaffold: build --all" scaffold-build.log fm build --all --jobs 8
( step "scaffold: strict emu on smoke" verify-strict-smoke.log fm verify sm100_tc5 sm100_raw_ptx --grid smoke \
    --seed 26 --timeout 120 --emulation strict ) &
strict_pid=$!
step "sm90_start verify fa" verify-sm90_start.log fm verify sm90_start --grid fa --seed 26 --timeout 60
step "sm100_tc5 verify fa (emu fast)" verify-sm100_tc5.log fm verify sm100_tc5 --grid fa --seed 26 --timeout 60 --emulation fast
step "sm100_raw_ptx verify fa (PTX path)" verify-sm100_raw_ptx.log fm verify sm100_raw_ptx --grid fa --seed 26 --timeout 60 --emulation fast
wait "$strict_pid"
step "scaffold: project" scaffold-project.log fm project
step "scaffold: status" scaffold-status.log fm status
cp -r STATUS.md milestones "$OUT/" 2>/dev/null
;; esac

case "$parts" in *fixture*)
F="$REPO/tests/fixtures/seeds_project"
cd "$F" || exit 1
step "fixture: project" fixture-project.log fm project
step "fixture: verify fa" fixture-verify.log fm verify heads_bf16 --grid fa --seed 26 --timeout 60
step "fixture: bench" fixture-bench.log fm bench heads_bf16 --shape b=2,h=8,t=1024,s=1024,d=128 \
  --shape b=2,h=8,t=1024,s=1024,d=64,causal --json --plot "$OUT/fixture-bench.png"
step "fixture: profile (ncu, NVTX)" fixture-profile.log timeout 120 python3 -m fmhactl profile heads_bf16 \
  --shape b=1,h=8,t=512,s=512,d=128
step "fixture: status" fixture-status.log fm status
step "fixture: results export" fixture-export.log fm results export
step "fixture: status --evidence-only" fixture-status-evidence.log fm status --evidence-only
step "fixture: status --check" fixture-status-check.log fm status --check
mkdir -p "$OUT/seeds_project"
cp -r STATUS.md milestones evidence "$OUT/seeds_project/" 2>/dev/null
;; esac
echo "total $(( $(date +%s) - t_start ))s; fixture status files and evidence in $OUT/seeds_project" | tee -a "$SUMMARY"
echo "---- summary ----"; cat "$SUMMARY"
