#!/usr/bin/env bash
# Session 14: what bounds the SM90 kernel at S1k hd64 and S4k hd128 beside cuDNN's: ncu's L2,
# DRAM, tensor (gmma), XU (MUFU: ex2) and FMA pipe utilisation of one launch of each.
#   OUT=/dir bash scripts/device/pipes14.sh      carry: .whl
set -u -o pipefail
OUT=${OUT:-/tmp/pipes14}; mkdir -p "$OUT"
source scripts/device/steps.sh
device_python
M=gpu__time_duration.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct
for shape in 16,16,1024,64 16,16,1024,64,causal 8,16,4096,128 8,16,4096,64; do
  for impl in op cudnn; do
    re='regex:fmha_sm90'; [ $impl = cudnn ] && re='regex:sdpa|fprop|cudnn|fmha'
    echo "==== $impl $shape" >> "$OUT/ncu.txt"
    timeout 120 ncu --metrics $M -k "$re" --launch-skip 3 --launch-count 1 --csv --print-units base \
      python3 scripts/dev/pipes_probe.py $impl $shape >> "$OUT/ncu.txt" 2>> "$OUT/ncu.err"
  done
done
python3 - "$OUT/ncu.txt" <<'PY'
import csv, io, sys
block, name, rows = None, None, {}
for line in open(sys.argv[1]):
    if line.startswith("===="):
        name = line[5:].strip(); rows[name] = {}; continue
    if line.startswith('"ID"') or line.startswith('"') and name:
        try:
            r = next(csv.reader(io.StringIO(line)))
        except StopIteration:
            continue
        if len(r) > 14 and r[0] != "ID":
            rows[name][r[-3]] = (r[-1], r[4][:40])
short = {"gpu__time_duration.sum": "us", "lts__throughput.avg.pct_of_peak_sustained_elapsed": "L2%",
         "lts__t_bytes.sum": "L2 GB", "dram__throughput.avg.pct_of_peak_sustained_elapsed": "DRAM%",
         "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active": "gmma%",
         "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active": "XU%",
         "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA%",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM%",
         "l1tex__throughput.avg.pct_of_peak_sustained_elapsed": "L1%",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "warps%", "lts__t_sector_hit_rate.pct": "L2hit%"}
for name, m in rows.items():
    vals = []
    for key, label in short.items():
        v = m.get(key, ("-", ""))[0]
        try:
            f = float(v.replace(",", ""))
            v = f"{f / 1e3:.1f}" if label == "us" else f"{f / 1e9:.2f}" if label == "L2 GB" else f"{f:.1f}"
        except ValueError:
            pass
        vals.append(f"{label} {v}")
    kernel = next(iter(m.values()), ("", ""))[1]
    print(f"{name:28s} {kernel:40s} " + "  ".join(vals))
PY
