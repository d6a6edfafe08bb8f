#!/usr/bin/env bash
# Issue 13 (kernel side) on the lent H100: verify every SM100 variant (emulated on sm_90a) on the
# seeds72, awkward, fa and hd512 grids, in parallel (one process per variant), plus two dumps.
#   cd <worktree> && OUT=/dir EMULATION="--emulation strict" bash scripts/device/sm100_issue13.sh
# Logs go to $OUT/sm100-logs.tar.gz; a summary table (pass counts, max error per variant x grid)
# to $OUT/summary.txt and stdout. Emulated timings mean nothing and are not reported.
set -u -o pipefail
OUT="${OUT:-/tmp/sm100-issue13}"
LOGS="$OUT/logs"; mkdir -p "$LOGS"
export FMHACTL_HOME="${FMHACTL_HOME:-$OUT/home}"
EMULATION="${EMULATION:-}"
GRIDS="${GRIDS:-seeds72 awkward fa hd512}"
VARIANTS="${VARIANTS:-$(python3 -m fmhactl list --json 2>/dev/null | python3 -c 'import json,sys; print(" ".join(v["name"] for v in json.load(sys.stdin) if v.get("launcher")=="sm100"))')}"
echo "variants: $VARIANTS"; echo "grids: $GRIDS"; echo "emulation option: ${EMULATION:-<default>}"
nvidia-smi -L
# Build once for sm_90a (emulated) so the parallel verifies do not race to compile.
python3 -m fmhactl build $VARIANTS --arch sm_90a > "$LOGS/build_sm90a.log" 2>&1; echo "build rc=$?"
for v in $VARIANTS; do
  (
    for g in $GRIDS; do
      timeout "${PER_GRID_S:-400}" python3 -m fmhactl verify "$v" --grid "$g" --timeout 90 $EMULATION --json \
        > "$LOGS/$v.$g.jsonl" 2> "$LOGS/$v.$g.err"
      echo "rc=$?" >> "$LOGS/$v.$g.err"
    done
  ) &
done
wait
for v in sm100_tma_s2_tmem sm100_tma_s2_smem; do
  python3 -m fmhactl dump "$v" --shape t=100,s=300,d=128,causal --at P > "$LOGS/dump.$v.P.log" 2>&1
  echo "dump $v P rc=$?" | tee -a "$LOGS/dumps.txt"
done
python3 - "$LOGS" > "$OUT/summary.txt" <<'PY'
import json, sys, pathlib, collections
logs = pathlib.Path(sys.argv[1])
print(f"{'variant':28} {'grid':8} {'pass':>5} {'fail':>5} {'unsup':>5} {'other':>5} {'max_err':>10} {'max err/tol':>11}")
for f in sorted(logs.glob("*.jsonl")):
    v, g = f.stem.rsplit(".", 1)
    counts = collections.Counter(); max_err = 0.0; ratio = 0.0; bad = []
    for line in f.read_text().splitlines():
        try: r = json.loads(line)
        except ValueError: continue
        if not isinstance(r, dict) or "status" not in r: continue
        st = r["status"]; counts[st] += 1
        m = r.get("metrics") or {}
        if isinstance(m.get("max_abs_err"), (int, float)):
            max_err = max(max_err, m["max_abs_err"])
            if m.get("tolerance"): ratio = max(ratio, m["max_abs_err"] / m["tolerance"])
        if st not in ("PASS", "UNSUPPORTED"): bad.append((r.get("config_key"), st, (r.get("message") or m.get("reasons") or "")))
    other = sum(n for s, n in counts.items() if s not in ("PASS", "FAIL", "UNSUPPORTED"))
    print(f"{v:28} {g:8} {counts['PASS']:5} {counts['FAIL']:5} {counts['UNSUPPORTED']:5} {other:5} {max_err:10.3e} {ratio:11.3f}")
    for b in bad[:4]: print("    ", str(b)[:300])
PY
cat "$OUT/summary.txt"; cat "$LOGS/dumps.txt"
tar -czf "$OUT/sm100-logs.tar.gz" -C "$OUT" logs && rm -rf "$LOGS"
rm -rf "$FMHACTL_HOME/cache"
