"""Compare two kernels' executed SASS from ncu's source page (`ncu --page source --print-source sass
--csv`, as scripts/device/stalls17.sh writes): warp instructions executed by opcode, side by side,
and each kernel's stall reasons as shares of its samples; then the hottest spin loops (YIELD or
mbarrier TRYWAIT executed more than --min times) of each. Session 20 found the producer's
mbarrier wait turning 125 times a KV tile in sm90_persistent (hd128 S4k) this way.

    python3 scripts/device/sass_mix_compare.py A.csv[.gz] B.csv[.gz] [--names ours fa4] [--top 30]
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import sys


def _rows(path: str) -> list[dict[str, str]]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = [line for line in f if not line.startswith("==")]
    table = list(csv.reader(lines))
    start = next(i for i, row in enumerate(table) if row and row[0] == "Address")
    header = table[start]
    return [dict(zip(header, row)) for row in table[start + 1:] if len(row) > 5]


def _opcode(source: str) -> str:
    text = source.strip()
    if text.startswith("@"):
        text = text.split(None, 1)[1] if " " in text else ""
    return text.split()[0].split(".")[0] if text else "?"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--names", nargs=2, default=("A", "B"))
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--min", type=int, default=1_000_000, help="executions that make a spin loop hot")
    args = parser.parse_args(argv)
    kernels = {name: _rows(path) for name, path in zip(args.names, (args.a, args.b))}
    mix = {name: collections.Counter() for name in kernels}
    stalls = {name: collections.Counter() for name in kernels}
    for name, rows in kernels.items():
        for row in rows:
            mix[name][_opcode(row["Source"])] += int(row["Instructions Executed"] or 0)
            for key, value in row.items():
                if key.startswith("stall_") and "Not Issued" not in key:
                    stalls[name][key] += int(value or 0)
    a, b = args.names
    print("warp instructions executed: " + ", ".join(f"{n} {sum(m.values()) / 1e6:.1f}M" for n, m in mix.items()))
    for op in sorted(set(mix[a]) | set(mix[b]), key=lambda o: -(mix[a][o] + mix[b][o]))[:args.top]:
        print(f"  {op:10s} {mix[a][op] / 1e6:9.2f}M {mix[b][op] / 1e6:9.2f}M  {a}-{b} {(mix[a][op] - mix[b][op]) / 1e6:+8.2f}M")
    totals = {n: max(1, sum(s.values())) for n, s in stalls.items()}
    print(f"stall samples (share): {a} / {b}")
    for key in sorted(stalls[a], key=lambda k: -stalls[a][k])[:10]:
        print(f"  {key:24s} {100 * stalls[a][key] / totals[a]:6.1f}% {100 * stalls[b][key] / totals[b]:6.1f}%")
    for name, rows in kernels.items():
        for row in rows:
            executed = int(row["Instructions Executed"] or 0)
            if executed >= args.min and ("YIELD" in row["Source"] or "TRYWAIT" in row["Source"]):
                print(f"  hot wait in {name}: {row['Address'][-6:]} {executed / 1e6:.2f}M  {row['Source'].strip()[:70]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
