"""Summarise verify rows per variant and feature: counts and max errors (O and LSE).

Usage: python3 scripts/device/features_summary.py ROWS.json [...]   (`fmhactl results --kind verify
--json --limit 0`, or `fmhactl verify --json` output). Each config counts under every feature it
uses ("none" for a plain one: seeds72's configs). The error ratio is
max|out - ref| / tolerance (PASS needs <= 1), the LSE ratio likewise.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def features_of(config: dict) -> list[str]:
    names = []
    if config.get("window_left", -1) != -1 or config.get("window_right", -1) != -1:
        names.append("window")
    for flag in ("sink", "kv_shared"):
        if config.get(flag):
            names.append(flag)
    if config.get("topk", 0):
        names.append("topk")
    return names or ["none"]


def main(paths: list[str]) -> int:
    groups: dict[tuple[str, str, str], dict] = defaultdict(lambda: {"n": 0, "status": defaultdict(int), "err": 0.0,
                                                                    "ratio": 0.0, "lse": 0.0, "lse_ratio": 0.0})
    for path in paths:
        try:
            rows = json.load(open(path))
        except (OSError, ValueError) as exc:
            print(f"{path}: unreadable ({exc})")
            continue
        for row in rows:
            grid = "heads=1" if (row.get("config") or {}).get("heads") == 1 else "heads>1"
            m = row.get("metrics") or {}
            for feature in features_of(row.get("config") or {}):
                g = groups[(row["variant"], grid, feature)]
                g["n"] += 1
                g["status"][row["status"]] += 1
                if row["status"] in ("PASS", "FAIL"):
                    g["err"] = max(g["err"], m.get("max_abs_err") or 0.0)
                    g["ratio"] = max(g["ratio"], (m.get("max_abs_err") or 0.0) / (m.get("tolerance") or 1e-30))
                    g["lse"] = max(g["lse"], m.get("lse_max_err") or 0.0)
                    g["lse_ratio"] = max(g["lse_ratio"], (m.get("lse_max_err") or 0.0) / (m.get("lse_tolerance") or 1e-30))
    print("variant\tshape\tfeature\tconfigs\tstatus\tmax|O err|\tO err/tol\tmax|LSE err|\tLSE err/tol")
    for (variant, grid, feature), g in sorted(groups.items()):
        status = " ".join(f"{k}={v}" for k, v in sorted(g["status"].items()))
        print(f"{variant}\t{grid}\t{feature}\t{g['n']}\t{status}\t{g['err']:.3e}\t{g['ratio']:.3f}\t{g['lse']:.3e}\t"
              f"{g['lse_ratio']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
