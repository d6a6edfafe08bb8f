#!/usr/bin/env bash
# Session 5's second lead call (H100): the recorded trace (issue 22), the docs/img pictures
# (scenario device-plots), the M6 torch checks recorded on the op's current dispatch and the
# evidence export (issue 23), and the raw-PTX kernel's GPU tests (issue 28). Run from the repo root
# with OUT set; everything of value is copied under $OUT.
set -u -o pipefail
T0=$(date +%s); L=$OUT/logs; mkdir -p "$L"
say() { echo "[+$(( $(date +%s) - T0 ))s] $*" | tee -a "$OUT/summary.txt"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=$PWD:/tmp/site PYTHONUNBUFFERED=1 FMHACTL_HOME=$PWD/.fmhactl/evidence-run
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
( timeout 480 bash scripts/device/record_trace.sh > "$L/trace.txt" 2>&1; echo "rc=$?" >> "$L/trace.txt" ) & TP=$!
timeout 150 python3 -m fmhactl.torch.checks --record --json > "$L/torch-checks.json" 2> "$L/torch-checks.err"
say "torch checks rc=$? $(python3 -c "import json,sys; print(' '.join(c['name']+'='+c['status'] for c in json.load(open(sys.argv[1]))))" "$L/torch-checks.json" 2>&1)"
timeout 330 python3 -m fmhactl scenario run device-plots > "$L/plots.txt" 2>&1
say "device-plots rc=$? $(tail -n 1 "$L/plots.txt")"
FMHACTL_EMULATE=native timeout 90 python3 -m pytest -q -m gpu tests/ptx -p no:cacheprovider > "$L/ptx-gpu.txt" 2>&1
say "ptx gpu tests rc=$? $(tail -n 1 "$L/ptx-gpu.txt")"
wait $TP; say "trace: $(grep -E 'record_trace|rc=' "$L/trace.txt" | tr '\n' ' ')"
python3 -m fmhactl results export --out "$OUT/evidence" > "$L/export.txt" 2>&1; say "export rc=$? $(tail -n 1 "$L/export.txt")"
python3 -m fmhactl status --out /tmp/status-out > "$L/status.txt" 2>&1; cat "$L/status.txt" | head -n 12 | tee -a "$OUT/summary.txt"
cp docs/img/bench-sm90_pingpong-h100.png docs/img/roofline-sm90_pingpong-h100.png docs/img/bench-sm90_persistent-h100.png "$OUT/" 2>/dev/null
cp docs/trace/*.raw.gz "$OUT/" 2>/dev/null
tar -czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$L"
say total
