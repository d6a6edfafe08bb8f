"""Two family.toml inline-table bodies ("A = 1, B = 2") merged, the second's keys replacing the
first's (ab21.sh: a scratch variant's switches over its base variant's).

    python3 scripts/device/merge_switches.py "FMHA_STAGES = 2, FMHA_X = 1" "FMHA_STAGES = 3"
"""

from __future__ import annotations

import sys


def parse(body: str) -> dict[str, str]:
    pairs = (item.split("=", 1) for item in body.split(",") if item.strip())
    return {key.strip(): value.strip() for key, value in pairs}


if __name__ == "__main__":
    merged = parse(sys.argv[1]) | parse(sys.argv[2])
    print(", ".join(f"{key} = {value}" for key, value in merged.items()))
