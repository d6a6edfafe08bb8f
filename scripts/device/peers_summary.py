"""The peers bench in one table: per config, the kernel's TFLOP/s and each baseline's (torch SDPA
backends as sdpa/NAME, the peer libraries fa4 and flashinfer by name) with ours / it (above 1:
ours is faster), or n/a and why (not installed, refused, wrong output).

Usage: python3 scripts/device/peers_summary.py BENCH_ROWS.json   (`fmhactl results --kind bench --json`)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fmhactl.records import BenchMetrics  # noqa: E402


def lines(rows: list[dict]) -> list[str]:
    out = []
    for row in sorted(rows, key=lambda r: r.get("id", 0)):
        m = BenchMetrics.from_dict(row.get("metrics") or {})
        head = f"{row.get('variant')} {row.get('config_key')} {row.get('status')}"
        if m.kernel is None:
            out.append(f"{head}: {m.error or 'no timing'}")
            continue
        out.append(f"{head}: kernel {m.kernel.median_ms:.4f} ms {m.kernel.tflops:.1f} TFLOP/s"
                   + (f" ({m.error})" if m.error else ""))
        for b in m.baselines:
            if b.available and b.timing is not None:
                ratio = f"{b.ratio:.3f}" if b.ratio is not None else "-"
                out.append(f"    {b.label:12s} {b.timing.median_ms:.4f} ms {b.timing.tflops:7.1f} TFLOP/s  ours/it {ratio}")
            else:
                out.append(f"    {b.label:12s} n/a: {b.reason}")
    return out


def main(path: str) -> int:
    try:
        rows = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        print(f"{path}: unreadable ({exc})")
        return 1
    print("\n".join(lines(rows)) or "no bench rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
