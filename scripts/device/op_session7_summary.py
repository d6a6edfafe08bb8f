"""Print the op_session7.sh results as short tables: decode bench (fused merge vs a merge launch vs
cuDNN/flash), the greedy probes (where a step's time goes), models, the qwen2 T=2048 re-measure.

    python scripts/device/op_session7_summary.py OUT_DIR
"""

from __future__ import annotations

import sys
from pathlib import Path

from op_session6_summary import _load, model_rows  # same folder: run as a script

NAN = float("nan")


def decode_rows(result: dict) -> None:
    print("decode bench (kernel us, L2 flushed): shape | op | combine-launch | no-split | cudnn | flash | op GB/s | "
          "cudnn/op | flash/op | launch/op | per-call cudnn/op | max diff")
    for row in result["rows"]:
        impls, speed = row["impls"], row["speed"]

        def us(name: str) -> str:
            m = impls.get(name, {})
            return f"{m['kernel_us']:.1f}" if "kernel_us" in m else "skip"

        diff = max((v for k, v in row.items() if k.startswith("max_abs_diff")), default=NAN)
        print(f"  {row['shape']} | {us('fmhactl')} | {us('fmhactl-combine-launch')} | {us('fmhactl-no-split')} | "
              f"{us('sdpa-cudnn')} | {us('sdpa-flash')} | {impls.get('fmhactl', {}).get('hbm_gb_s', 0):.0f} | "
              f"{speed.get('sdpa-cudnn/fmhactl kernel_us', NAN):.2f} | {speed.get('sdpa-flash/fmhactl kernel_us', NAN):.2f} | "
              f"{speed.get('fmhactl-combine-launch/fmhactl kernel_us', NAN):.2f} | "
              f"{speed.get('sdpa-cudnn/fmhactl per_call_us', NAN):.2f} | {diff:.3g}")


def _gen2(gc_stats: dict) -> int:
    """Generation-2 collections (JSON turned the generation keys into strings)."""
    counts = gc_stats["collections"]
    return int(counts.get("2", counts.get(2, 0)))


def probe_rows(name: str, probe: dict) -> None:
    print(f"greedy probe {name} (hd{probe['head_dim']}): impl | ms/step | ratio vs sdpa | host us/step median/p90/max "
          "per round | gc gen2 (s) | decode launches | new plans | fallbacks | kernel us/step")
    for impl, runs in probe["runs"].items():
        host = "; ".join(f"{r['host_us_per_step']['median']:.0f}/{r['host_us_per_step']['p90']:.0f}/"
                         f"{r['host_us_per_step']['max']:.0f}" for r in runs)
        gen2 = "; ".join(f"{_gen2(r['gc'])}({r['gc']['seconds']:.3f})" for r in runs)
        walls = ", ".join(f"{1e3 * r['wall_s'] / probe['tokens']:.2f}" for r in runs)
        during = runs[-1]["during_run"]
        kernels = probe["kernels"].get(impl, {})
        print(f"  {impl} | {probe['ms_per_step'][impl]:.2f} ({walls}) | "
              f"{probe['ratio_tokens_per_s'][impl]:.3f} | {host} | {gen2} | {during['decode_launches']} | "
              f"{during['decode_plans'] + during['fastpath_plans']} | {during['sdpa_fallbacks']} | "
              f"{kernels.get('kernel_us_per_step', NAN):.0f}")
    for impl, prof in probe["cprofile"].items():
        print(f"  cProfile {impl}, own us/step: " + "; ".join(f"{f['function']} {f['own_us_per_step']:.0f}"
                                                                for f in prof["top_own_time"][:6]))
        print(f"  cProfile {impl}, fmhactl cumulative us/step: " + "; ".join(
            f"{f['function']} {f['cumulative_us_per_step']:.0f} ({f['calls_per_step']:.0f}x)"
            for f in prof["fmhactl_by_cumulative"][:4]))
    for impl, kernels in probe["kernels"].items():
        print(f"  kernels {impl}, us/step: " + "; ".join(f"{k['kernel'][:40]} {k['us_per_step']:.0f}"
                                                        for k in kernels["top"][:4]))


def remeasure_rows(result: dict) -> None:
    print("qwen2-small prefill T=2048, 3 runs x 30 iterations: sdpa ms (p10/med/p90) | fmhactl ms | ratio")
    for r in result["results"]:
        s, f = r["sdpa"], r["fmhactl"]
        print(f"  {s['p10_ms']:.2f}/{s['median_ms']:.2f}/{s['p90_ms']:.2f} | {f['p10_ms']:.2f}/{f['median_ms']:.2f}/"
              f"{f['p90_ms']:.2f} | {r['ratio_tokens_per_s']:.3f}")


def main(out: str) -> int:
    folder = Path(out)
    bench = _load(folder / "decode_bench.json")
    if bench:
        decode_rows(bench)
    for name in ("llama", "qwen2"):
        probe = _load(folder / f"probe_{name}.json")
        if probe:
            probe_rows(name, probe)
    for name in ("llama", "qwen2"):
        result = _load(folder / f"model_{name}.json")
        if result:
            model_rows(name, result)
    again = _load(folder / "qwen2_2048.json")
    if again:
        remeasure_rows(again)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
