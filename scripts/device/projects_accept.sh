#!/usr/bin/env bash
# Issue 26 on the H100, one pass (aim: < 150 s):
#   1. `fmhactl init` a project; its three kernels verify on `fa` (sm90_start native; sm100_tc5
#      strict emulation; sm100_raw_ptx through the PTX path, strict);
#   2. the seeds-style fixture (tests/fixtures/seeds_project: own FmhaParams, grid=(1, n_h, batch))
#      verifies on `fa`, benches beside cuDNN/flash, profiles under ncu;
#   3. `fmhactl status` in the fixture writes its milestone files; `results export` writes its
#      evidence. Both are copied to $OUT/seeds_project/ for the lead to commit into the fixture.
# Logs in $OUT, a summary table last (also $OUT/summary.txt).
#   OUT=/tmp/projects-out bash scripts/device/projects_accept.sh
set -u -o pipefail
OUT=${OUT:-/tmp/projects-out}; mkdir -p "$OUT"
REPO=$PWD
export PYTHONPATH=${PYTHONPATH:-$REPO} PYTHONUNBUFFERED=1
export FMHACTL_EMU_PTXAS_O=${FMHACTL_EMU_PTXAS_O:-0}  # emulated builds: their speed means nothing
unset FMHACTL_HOME FMHACTL_PROJECT  # each project keeps its results in its own .fmhactl/
fm() { python3 -m fmhactl "$@"; }
SUMMARY="$OUT/summary.txt"; : > "$SUMMARY"
t_start=$(date +%s)
step() {  # name log command...: run, record rc, seconds and the last line
  local name=$1 log=$2; shift 2
  local t0=$(date +%s)
  "$@" > "$OUT/$log" 2>&1
  local rc=$?
  printf '%-34s rc=%-3s %4ss  %s\n' "$name" "$rc" "$(( $(date +%s) - t0 ))" \
    "$(grep -v '^\s*$' "$OUT/$log" | tail -n 1 | cut -c1-150)" | tee -a "$SUMMARY"
}

P=$(mktemp -d /tmp/fmhactl-init-XXXX)/attn
step "init" init.log fm init "$P"
cd "$P" || exit 1
step "scaffold: build --all" scaffold-build.log fm build --all --jobs 8
step "sm90_start verify fa" verify-sm90_start.log fm verify sm90_start --grid fa --seed 26 --timeout 60
step "sm100_tc5 verify fa (strict emu)" verify-sm100_tc5.log fm verify sm100_tc5 --grid fa --seed 26 --timeout 120
step "sm100_raw_ptx verify fa (PTX path)" verify-sm100_raw_ptx.log fm verify sm100_raw_ptx --grid fa --seed 26 --timeout 120
step "scaffold: project" scaffold-project.log fm project

F="$REPO/tests/fixtures/seeds_project"
cd "$F" || exit 1
step "fixture: project" fixture-project.log fm project
step "fixture: verify fa" fixture-verify.log fm verify heads_bf16 --grid fa --seed 26 --timeout 60
step "fixture: bench" fixture-bench.log fm bench heads_bf16 --shape b=2,h=8,t=1024,s=1024,d=128 \
  --shape b=2,h=8,t=1024,s=1024,d=64,causal --json --plot "$OUT/fixture-bench.png"
step "fixture: profile (ncu, NVTX)" fixture-profile.log timeout 120 python3 -m fmhactl profile heads_bf16 \
  --shape b=1,h=8,t=512,s=512,d=128
step "fixture: results export" fixture-export.log fm results export
step "fixture: status" fixture-status.log fm status
step "fixture: status --check" fixture-status-check.log fm status --check
mkdir -p "$OUT/seeds_project"
cp -r STATUS.md milestones evidence "$OUT/seeds_project/" 2>/dev/null
echo "total $(( $(date +%s) - t_start ))s; fixture status files and evidence in $OUT/seeds_project" | tee -a "$SUMMARY"
echo "---- summary ----"; cat "$SUMMARY"
