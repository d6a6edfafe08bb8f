#!/usr/bin/env python3
"""Redraw a bench PNG from the JSON `fmhactl bench --json` printed (no GPU needed).

    python scripts/redraw_bench_plot.py BENCH.json OUT.png [--title TEXT] [--only CONFIG_KEY ...]

The picture is the one `fmhactl bench --plot` draws (fmhactl.bench.plot.draw_bench), from the
device's stored rows, unchanged.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_json", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--title", default="")
    parser.add_argument("--only", nargs="*", default=None, help="config keys to keep, in this order")
    opts = parser.parse_args()
    from fmhactl.bench.plot import draw_bench, read_bench_json
    from fmhactl.errors import ExitCode, FmhactlError
    from fmhactl.services.kernels import BenchOutcome

    try:
        rows = read_bench_json(opts.bench_json)  # every row checked before anything is drawn
        if opts.only:
            keep = {key: i for i, key in enumerate(opts.only)}
            rows = sorted((r for r in rows if r.config_key in keep), key=lambda r: keep[r.config_key])
        points = BenchOutcome(rows[0].variant, rows).points() if rows else []
        if not points:
            raise FmhactlError(f"{opts.bench_json}: no bench row with a timing to draw", ExitCode.BAD_INPUT)
        draw_bench(points, opts.png, title=opts.title or f"fmhactl bench {rows[0].variant}",
                   subtitle=f"{rows[0].gpu} ({rows[0].mode})")
    except FmhactlError as exc:
        print(f"fmhactl: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return int(exc.code)
    print(f"wrote {opts.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
