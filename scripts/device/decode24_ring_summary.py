"""New vs old vs cuDNN per decode shape, from two `fmhactl bench --decode --json` runs of one call
(scripts/device/decode24_ring.sh: the ring kernel, then main's register version).
Usage: python3 scripts/device/decode24_ring_summary.py NEW.json OLD.json"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def _rows(path: str) -> dict[str, dict]:
    try:
        got = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        print(f"{path}: no JSON ({type(exc).__name__})")
        return {}
    return {row["shape"]: row for row in got.get("rows", [])}


def _us(row: dict | None, impl: str) -> float:
    return (row or {}).get("impls", {}).get(impl, {}).get("kernel_us", math.nan)


def _gbs(row: dict | None, impl: str) -> float:
    return (row or {}).get("impls", {}).get(impl, {}).get("hbm_gb_s", math.nan)


def main(new_path: str, old_path: str) -> None:
    new, old = _rows(new_path), _rows(old_path)
    print("==== decode kernel us (L2 flushed, median): new = ring, old = main's register kernel, same call; "
          "x/new > 1: the ring is faster than x; cudnn from each run")
    print(f"{'shape':36s} {'new':>7s} {'old':>7s} {'old/new':>7s} {'cudnn':>7s} {'cud/new':>7s} {'cud/old':>7s} "
          f"{'flash/new':>9s} {'GB/s new':>8s} {'GB/s old':>8s}  max|diff| new vs cudnn")
    ratios: dict[str, list[float]] = {"old/new": [], "cudnn/new": [], "cudnn/old": []}
    for shape in list(new) + [s for s in old if s not in new]:
        n, o = new.get(shape), old.get(shape)
        un, uo = _us(n, "fmhactl"), _us(o, "fmhactl")
        cn, co = _us(n, "sdpa-cudnn"), _us(o, "sdpa-cudnn")
        fl = _us(n, "sdpa-flash")
        for key, value in (("old/new", uo / un), ("cudnn/new", cn / un), ("cudnn/old", co / uo)):
            if value == value:
                ratios[key].append(value)
        diff = (n or {}).get("max_abs_diff_vs_sdpa-cudnn", math.nan)
        path = "" if (n or {}).get("decode_path", True) else "  (not the decode path)"
        print(f"{shape:36s} {un:7.1f} {uo:7.1f} {uo / un:7.2f} {cn:7.1f} {cn / un:7.2f} {co / uo:7.2f} "
              f"{fl / un:9.2f} {_gbs(n, 'fmhactl'):8.0f} {_gbs(o, 'fmhactl'):8.0f}  {diff:.2e}{path}")
    for key, values in ratios.items():
        if values:
            geo = math.exp(sum(math.log(v) for v in values) / len(values))
            print(f"geomean {key}: {geo:.3f} over {len(values)} shapes (min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
