#!/usr/bin/env bash
# Issue 13 (kernel side) on the lent H100: verify every SM100 variant (emulated on sm_90a, strict
# by default) on the seeds72, awkward, fa and hd512 grids, in parallel (one process per variant);
# the Q-load fix before/after under strict emulation; strict vs fast wall time; two dumps.
#   cd <worktree> && OUT=/dir bash scripts/device/sm100_issue13.sh
#   EMULATION="--emulation fast" GRIDS="seeds72" VARIANTS="sm100_tma_s2_tmem" QLOAD_DEMO= OVERHEAD= ...
# Logs go to $OUT/sm100-logs.tar.gz; a summary table (pass counts, max error per variant x grid)
# to $OUT/summary.txt and stdout. Emulated timings mean nothing and are not reported.
set -u -o pipefail
OUT="${OUT:-/tmp/sm100-issue13}"
LOGS="$OUT/logs"; mkdir -p "$LOGS"
export FMHACTL_HOME="${FMHACTL_HOME:-$OUT/home}"
EMULATION="${EMULATION:---emulation strict}"
GRIDS="${GRIDS:-seeds72 awkward fa hd512}"
VARIANTS="${VARIANTS:-$(python3 -m fmhactl list --json 2>/dev/null | python3 -c 'import json,sys; print(" ".join(v["name"] for v in json.load(sys.stdin) if v.get("launcher")=="sm100"))')}"
echo "variants: $VARIANTS"; echo "grids: $GRIDS"; echo "emulation option: ${EMULATION:-<default>}"
nvidia-smi -L
# The Q-load fix, before and after (issue 13 item 1): a copy of this tree with the fix taken out
# (the load warp issues Q's TMA even for a tile with no key) runs the causal T > s_k configs under
# strict emulation beside the tree as it is. Runs in the background with its own cache.
QLOAD_SHAPES="t=300,s=113,causal t=1023,s=239,causal t=799,s=239,causal,d=256 t=300,s=113,causal,d=512"
qload_demo() {
  rm -rf /tmp/unfixed && mkdir -p /tmp/unfixed && cp -r fmhactl kernels scenarios pyproject.toml /tmp/unfixed/
  python3 - /tmp/unfixed/kernels/sm100/fmha_sm100.cuh <<'PYFIX'
import sys, re
p = sys.argv[1]; s = open(p).read()
fix = re.search(r"\n    // A tile with no key to visit.*?\n    if \(t.n_tiles == 0\) return;", s, re.S)
assert fix, "fix block not found"
open(p, "w").write(s[:fix.start()] + s[fix.end():])
PYFIX
  local args=""; for sh in $QLOAD_SHAPES; do args="$args --shape $sh"; done
  for tree in /tmp/unfixed "$PWD"; do
    local tag=$([ "$tree" = "$PWD" ] && echo fixed || echo unfixed)
    (cd "$tree" && PYTHONPATH="$tree:${PYTHONPATH:-}" FMHACTL_HOME="$OUT/home-$tag" \
      timeout "${PER_GRID_S:-400}" python3 -m fmhactl verify sm100_tma_s2_tmem sm100_tma_tmem $args --emulation strict \
      --timeout 90 > "$LOGS/qload.$tag.txt" 2>&1; echo "rc=$?" >> "$LOGS/qload.$tag.txt")
  done
}
if [ -n "${QLOAD_DEMO-1}" ]; then qload_demo & fi
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
# Strict-mode overhead: the same variant and grid in fast mode (its own build), wall time of the
# whole verify run beside the strict one above (emulated runs: verification cost, not kernel speed).
if [ -n "${OVERHEAD-1}" ]; then
  for mode in fast strict; do
    start=$(date +%s)
    python3 -m fmhactl verify sm100_tma_s2_tmem --grid seeds72 --emulation $mode --timeout 90 > "$LOGS/overhead.$mode.txt" 2>&1
    echo "overhead $mode rc=$? wall_s=$(( $(date +%s) - start )) (build included)" | tee -a "$LOGS/overhead.txt"
  done
fi
for v in sm100_tma_s2_tmem sm100_tma_s2_smem; do
  python3 -m fmhactl dump "$v" --shape t=100,s=300,d=128,causal --at P > "$LOGS/dump.$v.P.log" 2>&1
  echo "dump $v P rc=$?" | tee -a "$LOGS/dumps.txt"
done
python3 - "$LOGS" > "$OUT/summary.txt" <<'PY'
import json, sys, pathlib, collections
logs = pathlib.Path(sys.argv[1])
print(f"{'variant':24} {'grid':8} {'pass':>5} {'fail':>5} {'unsup':>5} {'other':>5} {'max_err':>10} {'err/tol':>8}  last line")
for f in sorted(logs.glob("*.jsonl")):
    v, g = f.stem.rsplit(".", 1)
    try: recs = json.loads(f.read_text() or "[]")
    except ValueError: recs = []
    counts = collections.Counter(); max_err = 0.0; ratio = 0.0; bad = []; pools = collections.Counter()
    for r in recs:
        st = r["status"]; counts[st] += 1; m = r.get("metrics") or {}
        if isinstance(m.get("max_abs_err"), (int, float)):
            max_err = max(max_err, m["max_abs_err"])
            if m.get("tolerance"): ratio = max(ratio, m["max_abs_err"] / m["tolerance"])
        tp = m.get("tmem_pools") or {}
        for key in ("planned_ctas_per_sm", "max_ctas_holding_tmem_per_sm"):
            if isinstance(tp.get(key), int): pools[key] = max(pools[key], tp[key])
        if isinstance(tp.get("allocs_blocked"), int): pools["allocs_blocked"] += tp["allocs_blocked"]
        if st not in ("PASS",): bad.append((r.get("config_key"), st, str(m.get("reasons") or m.get("reason") or m.get("error") or m)[:200]))
    other = sum(n for s, n in counts.items() if s not in ("PASS", "FAIL", "UNSUPPORTED"))
    err = (logs / f"{v}.{g}.err").read_text().strip().splitlines()
    tail = [l for l in err if "passed" in l][-1:] or err[-2:]
    print(f"{v:24} {g:8} {counts['PASS']:5} {counts['FAIL']:5} {counts['UNSUPPORTED']:5} {other:5} {max_err:10.3e} {ratio:8.3f}  {' | '.join(tail)}")
    if pools: print(f"      TMEM pools: planned CTAs/SM <= {pools['planned_ctas_per_sm']}, most holding TMEM on one SM "
                    f"{pools['max_ctas_holding_tmem_per_sm']}, allocs that blocked {pools['allocs_blocked']}")
    for b in bad[:3]: print("     ", b)
PY
cat "$OUT/summary.txt"; cat "$LOGS/dumps.txt"
for tag in unfixed fixed; do echo "--- Q-load $tag"; tail -n 12 "$LOGS/qload.$tag.txt" 2>/dev/null; done
cat "$LOGS/overhead.txt" 2>/dev/null
tar -czf "$OUT/sm100-logs.tar.gz" -C "$OUT" logs && rm -rf "$LOGS"
rm -rf "$FMHACTL_HOME/cache"
