"""Per shape and variant, each round's kernel min and median (us) and cuDNN's ratio by median and by
min, from an A/B call's bench.json (collect_rows): on the H200 a median can land in a slow clock
mode the min escapes, so both are read before a knob is called a gain.

    python3 scripts/device/ab_min_median.py OUT/bench.json
"""

from __future__ import annotations

import collections
import json
import sys


def main(path: str) -> None:
    rows = json.load(open(path))
    by_shape: dict[str, dict[str, list[tuple[float, float, float, float]]]] = collections.defaultdict(
        lambda: collections.defaultdict(list))
    for row in rows:
        kernel, cudnn = row["metrics"]["kernel"], row["metrics"]["baselines"]["cudnn"]
        by_shape[row["config_key"]][row["variant"]].append(
            (kernel["min_ms"] * 1e3, kernel["median_ms"] * 1e3, cudnn["median_ms"] / kernel["median_ms"],
             cudnn["min_ms"] / kernel["min_ms"]))
    for shape, variants in by_shape.items():
        print(shape)
        for variant, runs in sorted(variants.items()):
            print(f"   {variant:20s} min " + " ".join(f"{r[0]:7.1f}" for r in runs)
                  + " | med " + " ".join(f"{r[1]:7.1f}" for r in runs)
                  + " | cudnn/k med " + " ".join(f"{r[2]:.3f}" for r in runs)
                  + " | min/min " + " ".join(f"{r[3]:.3f}" for r in runs))


if __name__ == "__main__":
    main(sys.argv[1])
