"""Summary of scripts/device/dechd.sh: per head dim, the op's decode step beside cuDNN and flash
SDPA (per-call µs, kernel µs of an L2-flushed call, ratios baseline / op: above 1 the op is faster),
and the old way of serving a head dim the decode kernels lacked (zero-pad q/k/v to the next
compiled head dim every call, decode there, copy the columns out) where padded.json
(`dechd_steps.py padded`) has it; "dec. off": the op with its decode kernels off (the prefill
family, padded where it lacks the head dim: what d=256 decode steps ran before).

    python3 scripts/device/dechd_summary.py decode.json [padded.json]
"""

from __future__ import annotations

import json
import sys


def _load(path: str) -> dict | None:
    try:
        return json.load(open(path))
    except (OSError, ValueError) as exc:
        print(f"{path}: no JSON ({exc})")
        return None


def main(argv: list[str]) -> int:
    bench = _load(argv[1]) if len(argv) > 1 else None
    padded = (_load(argv[2]) or {}) if len(argv) > 2 else {}
    if not bench:
        return 1
    print(f"GPU: {bench.get('gpu')}; per-call: {bench.get('iters')} back-to-back calls; kernel: median of "
          f"{bench.get('rounds')} L2-flushed calls")
    head = (f"{'shape':30s} {'decode':>6s} {'op/call':>8s} {'cudnn':>8s} {'flash':>8s} {'cudnn/op':>8s} "
            f"{'flash/op':>8s} {'op kern':>8s} {'cudnn k':>8s} {'flash k':>8s} {'op GB/s':>8s} {'old pad':>8s} "
            f"{'dec. off':>8s}")
    print("columns: per-call µs (op/call, cudnn, flash, old pad, dec. off); cudnn/op, flash/op: their per-call µs "
          "over the op's (above 1: the op is faster); kernel µs of one L2-flushed call (op kern, cudnn k, flash k)")
    print(head)
    for row in bench["rows"]:
        impls = row["impls"]

        def us(name: str, measure: str = "per_call_us") -> float | None:
            return impls.get(name, {}).get(measure)

        def cell(x: float | None, fmt: str = "8.1f") -> str:
            return format(x, fmt) if x is not None else f"{'-':>8s}"

        op, cudnn, flash = us("fmhactl"), us("sdpa-cudnn"), us("sdpa-flash")
        old = padded.get(row["shape"], {}).get("per_call_us")
        print(f"{row['shape']:30s} {str(row['decode_path']):>6s} {cell(op)} {cell(cudnn)} {cell(flash)} "
              f"{cell(cudnn / op if op and cudnn else None, '8.2f')} "
              f"{cell(flash / op if op and flash else None, '8.2f')} "
              f"{cell(us('fmhactl', 'kernel_us'))} {cell(us('sdpa-cudnn', 'kernel_us'))} "
              f"{cell(us('sdpa-flash', 'kernel_us'))} {cell(impls.get('fmhactl', {}).get('hbm_gb_s'), '8.0f')} "
              f"{cell(old)} {cell(us('fmhactl-no-split'))}")
        for name in ("sdpa-cudnn", "sdpa-flash"):
            if "skipped" in impls.get(name, {}):
                print(f"    {name}: skipped: {impls[name]['skipped'][:150]}")
        diffs = {k[len('max_abs_diff_vs_'):]: round(v, 4) for k, v in row.items() if k.startswith("max_abs_diff_vs_")}
        print(f"    max |op - other|: {diffs}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
