"""One line per shape of a `fmhactl bench --json` file: ours, cuDNN and flash SDPA with ratios.

Usage: python3 scripts/bench_summary.py BENCH.json   (the device scripts print it into their summaries)
"""

from __future__ import annotations

import json
import sys


def main(path: str) -> int:
    try:
        rows = json.load(open(path))
    except (OSError, ValueError) as exc:
        print(f"  no JSON in {path}: {exc}")
        return 0
    for r in rows:
        m = r.get("metrics", {})
        k, b = m.get("kernel", {}), m.get("baselines", {})
        c, f = b.get("cudnn", {}), b.get("flash", {})
        print(f"  {str(r.get('config_key', r.get('config'))):34} {k.get('tflops', 0):5.0f} TF/s  "
              f"cudnn {c.get('tflops', 0):5.0f} x{c.get('ratio', 0):.3f}  flash {f.get('tflops', 0):5.0f} x{f.get('ratio', 0):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
