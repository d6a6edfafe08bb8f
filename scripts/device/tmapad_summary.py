"""Per-call µs of the op and SDPA from `fmhactl bench --overhead --json` documents (scripts/device/tmapad.sh):
  python3 scripts/device/tmapad_summary.py LABEL=PATH ...   (a PATH that holds no JSON is named, not fatal)"""

from __future__ import annotations

import json
import sys

OTHERS = ("fmhactl-general", "sdpa-cudnn", "sdpa-flash")
STATUS = ("plans", "tma_fill_plans", "padded_signatures", "padded_copies", "plan_launches")


def row_line(row: dict) -> str:
    impls = row["impls"]
    op, sdpa = impls.get("fmhactl", {}), impls.get("sdpa", {})
    if "per_call_us" not in op or "per_call_us" not in sdpa:
        return f"{row['shape']}: fmhactl {op} sdpa {sdpa}"
    others = "".join(f", {name} {impls[name]['per_call_us']:.1f}" for name in OTHERS
                     if "per_call_us" in impls.get(name, {}))
    return (f"{row['shape']}: fmhactl {op['per_call_us']:.1f} µs, sdpa {sdpa['per_call_us']:.1f} µs, ratio "
            f"{op['per_call_us'] / sdpa['per_call_us']:.3f}{others}; max |diff| vs sdpa "
            f"{row.get('max_abs_diff_vs_sdpa', float('nan')):.4f}\n    backend: {row['backend']}")


def summary(label: str, path: str) -> list[str]:
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as exc:
        return [f"-- {label}: no JSON in {path} ({type(exc).__name__})"]
    status = doc.get("fastpath") or {}
    return ([f"-- {label}: {doc.get('gpu')}, torch {doc.get('torch')}, {doc.get('rounds')} x {doc.get('iters')} calls"]
            + [row_line(row) for row in doc["rows"]]
            + [f"    fastpath: { {k: status.get(k) for k in STATUS} }"])


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        label, _, path = arg.partition("=")
        print("\n".join(summary(label, path)))
