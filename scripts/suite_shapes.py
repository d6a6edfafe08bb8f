"""`--shape S` arguments for the shapes of a bench suite that a variant supports (bench refuses
a list holding a shape the variant cannot run).

Usage: fmhactl bench VARIANT $(python3 scripts/suite_shapes.py VARIANT sm90)
"""

from __future__ import annotations

import sys
import tomllib

from fmhactl.config import parse_shape
from fmhactl.paths import project_root
from fmhactl.registry import get_variant


def main(variant_name: str, suite: str) -> int:
    variant = get_variant(variant_name)
    with open(project_root() / "scenarios" / "bench" / f"{suite}.toml", "rb") as handle:
        shapes = tomllib.load(handle)["shapes"]
    for shape in shapes:
        if variant.unsupported_reason(parse_shape(shape)) is None:
            print("--shape", shape)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
