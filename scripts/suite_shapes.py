"""`--shape S` arguments for the shapes of a bench suite that a variant supports (bench refuses
a list holding a shape the variant cannot run).

Usage: fmhactl bench VARIANT $(python3 scripts/suite_shapes.py VARIANT sm90)
"""

from __future__ import annotations

import sys

from fmhactl.bench.suites import load_suite
from fmhactl.registry import get_variant


def main(variant_name: str, suite: str) -> int:
    variant = get_variant(variant_name)
    for cfg in load_suite(suite).configs:
        if variant.unsupported_reason(cfg) is None:
            print("--shape", cfg.shape_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
