"""Summary of scripts/device/decode27x.sh: verify counts and errors, then each decode bench row
(kernel median, the bytes it must move and their share of the H100's HBM bandwidth, baselines),
then new / old for each kernel and shape (the A/B steps of the same call).
Usage: python3 scripts/device/decode27x_summary.py OUT_DIR"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from decode_bandwidth import HBM_BYTES_PER_S, bytes_moved  # this folder (python3 scripts/device/...)


def _load(path: Path) -> list[dict]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return []


def main(out: Path) -> None:
    verify = _load(out / "verify.json")
    print("==== verify dsv4-long")
    for step in sorted({r["step"] for r in verify}):
        rows = [r for r in verify if r["step"] == step]
        errs = [r.get("metrics", {}).get("max_abs_err") or 0.0 for r in rows]
        lse = [r.get("metrics", {}).get("lse_max_err") or 0.0 for r in rows]
        print(f"{step}: {dict(Counter(r.get('status') for r in rows))}  max O err {max(errs, default=0):.3g}  "
              f"max LSE err {max(lse, default=0):.3g}")
        for r in rows:
            if r.get("status") != "PASS":
                print(f"  {r.get('status')} {r.get('config_key')} {r.get('metrics', {}).get('reasons', '')}")
    print("==== decode benches: kernel median (p10), bytes, share of HBM, baselines (ms)")
    medians: dict[tuple[str, str, str], float] = {}
    for row in _load(out / "bench.json"):
        cfg, m = row.get("config", {}), row.get("metrics", {})
        k = m.get("kernel", {})
        if not k.get("median_ms"):
            print(f"{row['step']:26s} {row.get('config_key')}: no timing ({row.get('status')})")
            continue
        need = bytes_moved(cfg)
        ms = k["median_ms"]
        step = row["step"]
        parts = step.split("-")  # bench-{new,old}-{decode,gather}-{topk,win,splitsN}
        medians[(parts[1], parts[2], row["config_key"]) if parts[3] in ("topk", "win") else ("ab", step, row["config_key"])] = ms
        base = {n: round(v["median_ms"] * 1e3, 1) for n, v in m.get("baselines", {}).items() if v.get("available")}
        ratio = "".join(f"  {n}/ours {v / (ms * 1e3):.2f}x" for n, v in base.items())
        print(f"{step:26s} {row['config_key']:54s} {ms * 1e3:6.1f} us (p10 {k['p10_ms'] * 1e3:5.1f})  "
              f"{need / 2**20:6.2f} MiB  {100 * need / (ms * 1e-3) / HBM_BYTES_PER_S:5.1f}% HBM  "
              f"baselines us {base}{ratio}  covered={k.get('head_start_covered')}")
    print("==== old / new (same call, same shapes; > 1: the new kernel is faster)")
    for (age, kernel, key), ms in sorted(medians.items()):
        if age == "new" and ("old", kernel, key) in medians:
            print(f"{kernel:7s} {key:54s} old {medians[('old', kernel, key)] * 1e3:6.1f} us  new {ms * 1e3:6.1f} us  "
                  f"{medians[('old', kernel, key)] / ms:5.2f}x")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
