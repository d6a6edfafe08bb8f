"""Summaries for scripts/sm90_device.sh: the rescale threshold's accuracy effect (two verify
--json runs of the same grid and seed) and bench JSON as one line per shape."""

from __future__ import annotations

import json
import statistics
import sys


def _records(path: str) -> list[dict]:
    text = open(path).read().strip()
    if not text:
        return []
    try:
        data = json.loads(text)
        return data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]


def accuracy(a_path: str, b_path: str) -> None:
    for path in (a_path, b_path):
        rows = [r for r in _records(path) if r.get("status") in ("PASS", "FAIL")]
        errs = [r["metrics"]["max_abs_err"] for r in rows]
        lse = [r["metrics"].get("lse_max_err") or 0.0 for r in rows]
        margin = [r["metrics"]["max_abs_err"] / r["metrics"]["tolerance"] for r in rows if r["metrics"]["tolerance"]]
        passed = sum(r["status"] == "PASS" for r in rows)
        print(f"  {path.rsplit('/', 1)[-1]}: {passed}/{len(rows)} pass; max|err| max {max(errs):.3e} "
              f"mean {statistics.fmean(errs):.3e}; LSE err max {max(lse):.3e}; err/tolerance max {max(margin):.3f} "
              f"mean {statistics.fmean(margin):.3f}")


def bench(path: str) -> None:
    for r in _records(path):
        m = r.get("metrics", {})
        k, c = m.get("kernel", {}), m.get("baselines", {}).get("cudnn", {})
        print(f"  {r.get('variant')} {r.get('config_key')}: {k.get('tflops', 0):.0f} TF/s  cudnn {c.get('tflops', 0):.0f} "
              f"x{c.get('ratio', 0):.2f}")


if __name__ == "__main__":
    if sys.argv[1] == "--bench":
        bench(sys.argv[2])
    else:
        accuracy(sys.argv[1], sys.argv[2])
