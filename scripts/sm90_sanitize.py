"""Small shapes of every SM90 variant in ONE process, for compute-sanitizer (one tool run covers
the family instead of one torch start-up per variant under the sanitizer).

Usage: compute-sanitizer --tool racecheck python3 scripts/sm90_sanitize.py [VARIANT ...]
Prints one line per (variant, shape) and exits 1 if any check fails.
"""

from __future__ import annotations

import sys

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.config import parse_shape
from fmhactl.registry import load_registry
from fmhactl.runtime.execute import Executor, gpu_info
from fmhactl.runtime.jobs import make_job
from fmhactl.verify.job import verify_job

SHAPES = ("b=1,h=2,t=130,s=200,d=64", "b=1,h=2,hkv=1,t=70,s=300,d=128,causal",
          # causal tiles end at seq_q: the first tile starts before row 0
          "b=1,h=2,t=300,s=300,d=64,causal", "b=1,h=1,t=64,s=100,d=256",
          "b=1,h=1,t=200,s=77,d=128,causal,dtype=f16",
          # more tiles than SMs: the persistent variant claims tiles from its counter
          "b=2,h=16,hkv=4,t=1000,s=1100,d=64,causal",
          # the _feat variants: a window, sinks and K = V over a causal first tile before row 0
          "b=1,h=2,t=300,s=300,d=64,causal,wl=100,sink,kvshared")


def main() -> int:
    gpu_info()
    executor = Executor()
    failed = 0
    wanted = set(sys.argv[1:])  # variant names; none: the whole sm90 family
    variants = [v for v in load_registry().values() if v.launcher == "sm90" and (not wanted or v.name in wanted)]
    runs = 0
    for variant in variants:
        built = build(variant, BuildTarget("sm_90a"))
        for i, text in enumerate(SHAPES):
            cfg = parse_shape(text)
            if (reason := variant.unsupported_reason(cfg)) is not None:
                print(f"{variant.name} {cfg.key}: not run ({reason})", flush=True)
                continue
            runs += 1
            job = make_job("verify", variant, built, cfg, 1000 + i, "native")
            result = verify_job(executor, job)
            ok = result["status"] == "PASS"
            failed += not ok
            print(f"{variant.name} {cfg.key}: {result['status']}", flush=True)
    executor.close()
    print(f"{runs - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
