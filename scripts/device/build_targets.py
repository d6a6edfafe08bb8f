"""Compile several (variant, target) pairs at once, one process each, into the build cache.

`fmhactl build` makes native builds and *fast* emulated ones only; the device scripts also need
the strict-emulator builds (minutes each) and the rule micro-kernels started in parallel.
Items are NAME:KIND with KIND strict, fast or native; NAME emu_rules is the rule kernel
(tests/tcgen05/test_emu_rules.py), always strict. One line per build, in the order given.

Usage: python3 scripts/device/build_targets.py sm100_tma_s2_tmem:strict emu_rules:strict sm90_pingpong:native
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor


def build_one(item: str) -> str:
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.registry import get_variant

    name, _, kind = item.partition(":")
    started = time.time()
    if name == "emu_rules":
        sys.path.insert(0, "tests/tcgen05")
        import test_emu_rules

        result = test_emu_rules.build_rules()
    else:
        target = {"strict": BuildTarget("sm_90a", True, True), "fast": BuildTarget("sm_90a", True, False),
                  "native": BuildTarget("sm_90a")}[kind]
        result = build(get_variant(name), target)
    spills = max((k.spill_stores for k in result.kernels), default=0)
    return (f"built {name} {kind} in {time.time() - started:.0f} s (compile {result.compile_seconds:.0f} s, "
            f"cache hit {result.cache_hit}, {len(result.kernels)} kernels, max spill stores {spills})")


def main(items: list[str]) -> int:
    with ProcessPoolExecutor(max(1, len(items))) as pool:
        for line in pool.map(build_one, items):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
