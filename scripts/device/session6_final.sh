#!/usr/bin/env bash
# Session 6's last device call, one pass: the milestone evidence (scripts/device/evidence.sh: every
# proof scenario re-run on this tree, exported) beside issue 26's project acceptance
# (scripts/device/projects_accept.sh). Both run at once: the evidence's strict builds are CPU work,
# the projects' verifies are short GPU work.
#   OUT=/dir bash scripts/device/session6_final.sh [budget_s]
# Back in $OUT: summary.txt (both summaries), evidence/records.jsonl, evidence-logs.tgz,
# projects.tgz (logs, bench plot, the fixture's STATUS.md, milestones/ and evidence/).
set -u -o pipefail
OUT=${OUT:-/tmp/session6-out}; mkdir -p "$OUT"
budget=${1:-540}
T0=$(date +%s)
( OUT=$OUT/ev DEADLINE_S=$budget bash scripts/device/evidence.sh > "$OUT/evidence-run.txt" 2>&1 ) &
ev=$!
sleep 5
( OUT=/tmp/projects-out bash scripts/device/projects_accept.sh $(( budget - 40 )) > /tmp/projects-run.txt 2>&1 ) &
pa=$!
wait $pa; wait $ev
{
  echo "=== evidence ($(( $(date +%s) - T0 ))s)"; cat "$OUT/ev/summary.txt" 2>/dev/null
  echo "=== projects"; cat /tmp/projects-out/summary.txt 2>/dev/null
} > "$OUT/summary.txt"
mkdir -p "$OUT/evidence" && cp "$OUT/ev/evidence/records.jsonl" "$OUT/evidence/" 2>/dev/null
tar -czf "$OUT/evidence-logs.tgz" -C "$OUT" ev evidence-run.txt 2>/dev/null
cp /tmp/projects-run.txt /tmp/projects-out/ 2>/dev/null
tar -czf "$OUT/projects.tgz" -C /tmp projects-out 2>/dev/null
rm -rf "$OUT/ev" "$OUT/evidence-run.txt"
cat "$OUT/summary.txt"
