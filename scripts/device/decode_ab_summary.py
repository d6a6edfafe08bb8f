"""New / old decode benches of one call, with their share of HBM, and any verify rows beside them.
Usage: python3 scripts/device/decode_ab_summary.py OUT_DIR   (reads verify-*.json, big-new.json,
big-old.json there: the A/B scripts' outputs, decode28_persistent.sh and topk_prefetch_ab.sh)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from decode_bandwidth import HBM_BYTES_PER_S, bytes_moved  # this folder (python3 scripts/device/...)


def _rows(path: Path) -> dict[str, dict]:
    try:
        return {r["config_key"]: r for r in json.loads(path.read_text())}
    except (OSError, ValueError):
        return {}


def _share(row: dict, ms: float) -> float:
    return 100 * bytes_moved(row["config"]) / (ms * 1e-3) / HBM_BYTES_PER_S


def main(out: Path) -> None:
    for path in sorted(out.glob("verify-*.json")):
        for r in _rows(path).values():
            m = r.get("metrics", {})
            print(f"verify {r['config_key']:58s} {r['status']}  O err {m.get('max_abs_err')}  LSE err {m.get('lse_max_err')}")
    new, old = _rows(out / "big-new.json"), _rows(out / "big-old.json")
    for key, r in new.items():
        ms = r["metrics"]["kernel"]["median_ms"]
        line = f"{key:52s} new {ms * 1e3:6.1f} us {_share(r, ms):5.1f}% HBM"
        o = old.get(key, {}).get("metrics", {}).get("kernel", {}).get("median_ms")
        if o:
            line += f"  old {o * 1e3:6.1f} us {_share(r, o):5.1f}%  old/new {o / ms:.3f}"
        print(line)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
