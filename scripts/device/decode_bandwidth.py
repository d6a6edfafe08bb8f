"""One line per decode row (seq_q 1) of a bench JSON: kernel median against the bytes a decode step
would move if every top-k entry were a valid key (K rows + Q + O + LSE; K = V), as GB/s and % of
the H100's 3.35 TB/s (or PEAK_TBS, the second argument: 4.8 for the H200). Bench's own row (`gathered`/`moved`) counts the keys the lists really hold
(verify's lists carry -1 padding and out-of-range entries), so it is the lower, honest figure.

    python3 scripts/device/decode_bandwidth.py OUT/bench.json [PEAK_TBS]
"""

from __future__ import annotations

import json
import os
import sys

HBM_BYTES_PER_S = 3.35e12


def bytes_moved(cfg: dict) -> int:
    """A T = 1 decode call's K rows (every top-k entry, or the 128-key window; K = V) + Q + O + LSE."""
    keys = cfg.get("topk") or 128
    return cfg["batch"] * (keys * cfg["head_dim"] * 2 + 2 * cfg["heads"] * cfg["head_dim"] * 2 + cfg["heads"] * 4)


def main(path: str, peak_bytes_per_s: float = HBM_BYTES_PER_S) -> int:
    for row in json.load(open(path)):
        cfg, metrics = row.get("config", {}), row.get("metrics", {})
        kernel = metrics.get("kernel", {})
        if not kernel.get("median_ms") or cfg.get("seq_q") != 1:
            continue
        need = bytes_moved(cfg)
        seconds = kernel["median_ms"] * 1e-3
        base = {name: round(b["median_ms"], 4) for name, b in metrics.get("baselines", {}).items() if b.get("available")}
        print(f"{row.get('step', ''):18s} {row['config_key']:58s} {seconds * 1e6:7.1f} us  "
              f"p10 {kernel['p10_ms'] * 1e3:6.1f}  {need / 2**20:6.2f} MiB  {need / seconds / 1e9:6.0f} GB/s "
              f"({100 * need / seconds / peak_bytes_per_s:4.1f}% HBM)  host {kernel.get('host_us_per_call', 0):.1f} us/call  {base}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1], float(sys.argv[2]) * 1e12 if len(sys.argv) > 2 else HBM_BYTES_PER_S))
    except BrokenPipeError:  # a reader that stopped early (| head) is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
