"""Print fmhactl/bench/greedy_probe.py reports (one JSON file each) as short tables: per
implementation and round, ms per step, host us per step (median / p90), GC collections and
seconds, plan builds and fallbacks during the run; then the cProfile's heaviest functions by own
time and fmhactl's by cumulative time, and the GPU kernels' us per step.

    python3 scripts/device/greedy_probe_summary.py probe_llama.json [probe_qwen2.json ...]
"""

from __future__ import annotations

import json
import sys


def _report(path: str) -> None:
    try:
        with open(path) as f:
            probe = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"{path}: no probe ({exc})")
        return
    print(f"== {probe['model']} (hd{probe['head_dim']}): {probe['tokens']} steps after {probe['prompt']}, "
          f"{probe['rounds']} rounds, {probe['gpu']}, torch {probe['torch']}")
    for impl, runs in probe["runs"].items():
        cells = []
        for run in runs:
            host, gc = run["host_us_per_step"], run["gc"]
            collections = "/".join(str(gc["collections"][k]) for k in sorted(gc["collections"]))
            cells.append(f"{1e3 * run['wall_s'] / probe['tokens']:.3f} ms/step host {host['median']:.0f}/"
                         f"{host['p90']:.0f} us gc {collections} {1e3 * gc['seconds']:.1f} ms "
                         f"{run['during_run']}")
        ratio = probe["ratio_tokens_per_s"].get(impl, 0.0)
        print(f"  {impl:18s} {probe['ms_per_step'][impl]:.3f} ms/step  sdpa/it {ratio:.3f}")
        for cell in cells:
            print(f"      {cell}")
    for impl, prof in probe["cprofile"].items():
        print(f"  cProfile {impl}: own us/step (calls/step)")
        for row in prof["top_own_time"][:8]:
            print(f"      {row['own_us_per_step']:8.1f}  ({row['calls_per_step']:.0f})  {row['function']}")
        for row in prof["fmhactl_by_cumulative"][:4]:
            print(f"      cum {row['cumulative_us_per_step']:8.1f}  ({row['calls_per_step']:.0f})  {row['function']}")
    for impl, kern in probe["kernels"].items():
        top = ", ".join(f"{k['kernel'][:40]} {k['us_per_step']:.1f}" for k in kern["top"][:3])
        print(f"  kernels {impl}: {kern['kernel_us_per_step']:.1f} us/step ({top})")


def main(paths: list[str]) -> int:
    for path in paths:
        _report(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
