#!/usr/bin/env python3
"""Redraw a bench PNG from the JSON `fmhactl bench --json` printed (no GPU needed).

    python scripts/redraw_bench_plot.py BENCH.json OUT.png [--title TEXT] [--only CONFIG_KEY ...]

The picture is the one `fmhactl bench --plot` draws (fmhactl.bench.plot.draw_bench), from the
device's stored rows, unchanged.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_json", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--title", default="")
    parser.add_argument("--only", nargs="*", default=None, help="config keys to keep, in this order")
    opts = parser.parse_args()
    from fmhactl.bench.plot import draw_bench
    from fmhactl.results.store import ResultRow
    from fmhactl.services.kernels import BenchOutcome

    import dataclasses

    names = {f.name for f in dataclasses.fields(ResultRow)}
    docs = json.loads(opts.bench_json.read_text())
    rows = [ResultRow(**{k: v for k, v in d.items() if k in names}) for d in docs]
    if opts.only:
        keep = {key: i for i, key in enumerate(opts.only)}
        rows = sorted((r for r in rows if r.config_key in keep), key=lambda r: keep[r.config_key])
    if not rows:
        print(f"{opts.bench_json}: no rows to draw", file=sys.stderr)
        return 2
    variant = rows[0].variant
    outcome = BenchOutcome(variant, rows)
    draw_bench(outcome.points(), opts.png, title=opts.title or f"fmhactl bench {variant}",
               subtitle=f"{rows[0].gpu} ({rows[0].mode})")
    print(f"wrote {opts.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
