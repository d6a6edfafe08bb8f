"""Where a kernel's warps stall, from ncu's source page (`ncu -i R --page source --csv --print-source
sass`, gzipped, as abprof30.sh / srcprof29.sh write it): the total sample count, the share of each
stall reason, and the TOP instructions by samples in address order (their sample count, how often
they executed and their two main reasons). Run here, on the CSV a device call brought back.

    python3 scripts/device/stall_summary.py OUT/src-new-1.csv.gz [TOP]
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"


def summarize(path: str, top: int) -> list[str]:
    rows = list(csv.reader(io.TextIOWrapper(gzip.open(path), encoding="utf-8")))
    header, data = rows[1], rows[2:]
    at = {name: i for i, name in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]

    def count(row: list[str], name: str) -> int:
        return int(row[at[name]] or 0)

    total = sum(count(r, SAMPLES) for r in data) or 1
    shares = sorted(((sum(count(r, h) for r in data), h) for h in reasons), reverse=True)
    lines = [f"{total} samples, {len(data)} instructions",
             " ".join(f"{h[6:]}={100 * n / total:.1f}%" for n, h in shares[:8])]
    hottest = sorted(range(len(data)), key=lambda i: -count(data[i], SAMPLES))[:top]
    for i in sorted(hottest):
        r = data[i]
        main = sorted(((count(r, h), h[6:]) for h in reasons), reverse=True)[:2]
        lines.append(f"{i:5d} {r[at['Address']][-5:]} {count(r, SAMPLES):5d} "
                     f"ex={r[at['Instructions Executed']]:>7s} {r[at['Source']].strip()[:64]} {main}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or (len(argv) == 3 and not argv[2].isdigit()):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    try:
        lines = summarize(argv[1], int(argv[2]) if len(argv) == 3 else 30)
    except (OSError, ValueError, IndexError, KeyError) as exc:
        print(f"{argv[1]}: not an ncu source-page CSV (gzipped): {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    try:
        print("\n".join(lines))
    except BrokenPipeError:  # a reader that stopped early (| head) is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
