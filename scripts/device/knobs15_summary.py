"""Summary of scripts/device/knobs15.sh: verify verdicts and worst errors per step, then each shape's
kernel median per variant and round beside each baseline's (baseline/kernel > 1: the kernel is faster)."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path


def main(out: Path) -> None:
    verdicts: collections.Counter[tuple[str, str]] = collections.Counter()
    worst: dict[tuple[str, str], float] = collections.defaultdict(float)
    verify = json.loads((out / "verify.json").read_text()) if (out / "verify.json").exists() else []
    for row in verify:
        verdicts[(row["step"], row.get("status", "?"))] += 1
        metrics = row.get("metrics") or {}
        for key in ("max_abs_err", "lse_max_err"):
            if isinstance(metrics.get(key), (int, float)):
                worst[(row["step"], key)] = max(worst[(row["step"], key)], metrics[key])
        if row.get("status") not in ("PASS", "UNSUPPORTED"):
            print("NOT PASS:", row.get("variant"), row.get("config_key"), row.get("status"),
                  str(row.get("reason") or "")[:200])
    for (step, status), n in sorted(verdicts.items()):
        print(f"{step:40s} {status:12s} {n}")
    for (step, key), value in sorted(worst.items()):
        print(f"{step:40s} worst {key} {value:.3g}")
    by_shape: dict[str, list[str]] = collections.defaultdict(list)
    for row in json.loads((out / "bench.json").read_text()):
        metrics = row.get("metrics", {})
        kernel = metrics.get("kernel", {}).get("median_ms")
        ratios = {name: b["median_ms"] / kernel for name, b in metrics.get("baselines", {}).items()
                  if kernel and isinstance(b, dict) and b.get("median_ms")}
        if kernel and ratios:
            shown = " ".join(f"{name} {r:.3f}" for name, r in ratios.items())
            cell = f"{row['variant']} {kernel * 1e3:.1f} us ({shown})"
        else:
            cell = f"{row['variant']} {row.get('status')} {str(row.get('reason') or '')[:80]}"
        by_shape[row["config_key"]].append(f"{row['step'].split('-')[1]}:{cell}")
    print("kernel median per round, baseline/kernel in brackets")
    for shape, cells in by_shape.items():
        print(shape)
        for cell in cells:
            print("   ", cell)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
