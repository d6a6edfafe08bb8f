"""Build the kernels the torch op's GPU tests and benches load on sm_90a (the split-KV decode
kernels, sm90_persistent, ref), three at once; print each kernel's registers and spill stores.

    PYTHONPATH=<tree> python scripts/device/op_session7_build.py
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor


def main() -> int:
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.registry import load_registry
    from fmhactl.torch import decode

    registry = load_registry()
    variants = [decode.variant(), registry["sm90_persistent"], registry["ref"]]
    with ThreadPoolExecutor(len(variants)) as pool:
        for result in pool.map(lambda v: build(v, BuildTarget("sm_90a")), variants):
            print(result.variant, [(k.kernel, k.registers, k.spill_stores) for k in result.kernels][:8])
    return 0


if __name__ == "__main__":
    sys.exit(main())
