"""Build the PTX-path cubin (--emulate native) of the given variants in parallel, one line each.
    python3 scripts/device/ptx_build_all.py [--strict] VARIANT...   (FMHACTL_EMU_PTXAS_O applies)"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

STRICT = "--strict" in sys.argv
LABEL = "ptx-strict-build" if STRICT else "ptx-build"


def one(name: str) -> str:
    os.environ["FMHACTL_EMULATE"] = "native"
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.registry import get_variant

    started = time.time()
    try:
        result = build(get_variant(name), BuildTarget("sm_90a", emulated=True, strict=STRICT))
        return f"{LABEL} {name} OK {time.time() - started:.1f}s regs={[k.registers for k in result.kernels][:4]}"
    except Exception as exc:  # one line per variant, whatever went wrong
        return f"{LABEL} {name} FAILED {time.time() - started:.1f}s {str(exc)[:400]}"


if __name__ == "__main__":
    with ProcessPoolExecutor(8) as pool:
        for line in pool.map(one, [a for a in sys.argv[1:] if a != "--strict"]):
            print(line, flush=True)
