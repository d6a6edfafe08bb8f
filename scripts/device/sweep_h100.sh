#!/usr/bin/env bash
# Issue 15 on the lent single H100: --gpus all against the one-worker path (same verdicts, both
# times), a planted CRASH and HANG isolated under --gpus all, and bench through the sweep.
# Run from the worktree root with FMHACTL_HOME and OUT set; logs land in $OUT.
set -uo pipefail
F="python3 -m fmhactl"
nvidia-smi -L | tee "$OUT/gpus.txt"
$F build ref selftest_fault selftest_hang --arch sm_90a --json > /dev/null 2> "$OUT/build.err"; echo "build rc=$?"
t0=$(date +%s.%N)
$F verify ref --grid awkward --seed 1234 --json > "$OUT/one.json" 2> "$OUT/one.err"; echo "one-worker verify rc=$?"
t1=$(date +%s.%N)
$F verify ref --grid awkward --seed 1234 --gpus all --json > "$OUT/all.jsonl" 2> "$OUT/all.err"; echo "--gpus all verify rc=$?"
t2=$(date +%s.%N)
python3 - "$t0" "$t1" "$t2" <<'PY'
import json, os, sys
t0, t1, t2 = map(float, sys.argv[1:])
out = os.environ["OUT"]
one = json.load(open(f"{out}/one.json"))
lines = [json.loads(l) for l in open(f"{out}/all.jsonl") if l.strip()]
rows = [l for l in lines if "summary" not in l]
summary = [l["summary"] for l in lines if "summary" in l][0]
a = [(r["variant"], r["config_key"], r["status"], r["seed"]) for r in one]
b = [(r["variant"], r["config_key"], r["status"], r["seed"]) for r in rows]
print(f"configs: one-worker {len(a)}, --gpus all {len(b)}; verdicts identical and in the same order: {a == b}")
print("statuses:", {s: sum(x[2] == s for x in b) for s in sorted({x[2] for x in b})})
print(f"wall: one-worker {t1 - t0:.1f} s, --gpus all {t2 - t1:.1f} s (process wall, incl. start-up)")
print("placement of row 0:", rows[0]["metrics"].get("placement"))
print("sweep summary:", json.dumps(summary))
PY
$F verify selftest_fault selftest_hang ref --grid smoke --gpus all --timeout 10 > "$OUT/faults.txt" 2>&1; echo "faults verify rc=$? (1 expected)"
grep -E "CRASH|HANG|passed" "$OUT/faults.txt" | cut -c1-160
$F bench ref --shape b=2,h=8,t=1024,s=1024,d=128 --shape b=1,h=8,hkv=2,t=512,s=777,d=64 --gpus all --warmup 5 --iters 20 --json > "$OUT/bench.jsonl" 2> "$OUT/bench.err"; echo "bench --gpus all rc=$?"
python3 - <<'PY'
import json, os
for l in open(os.environ["OUT"] + "/bench.jsonl"):
    r = json.loads(l)
    k = r["metrics"].get("kernel", {})
    b = r["metrics"].get("baselines", {}).get("cudnn", {})
    print(r["config_key"], r["status"], f"{k.get('tflops', 0):.1f} TFLOP/s", "cudnn", f"{b.get('tflops', 0):.1f}",
          "gpu", r["gpu"], r["metrics"]["placement"].get("uuid"))
PY
