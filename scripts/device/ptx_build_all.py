"""Build the emulated cubins of the given variants in parallel, one line each: the PTX path
(--emulate native, the default) or, with --tc5, the tc5:: emulated build.
    python3 scripts/device/ptx_build_all.py [--strict] [--tc5] [--ckpt] [--jobs N] VARIANT...
(FMHACTL_EMU_PTXAS_O applies). With the device's toolchain (NVRTC 13.0, nvJitLink 13.0) preloaded,
the cache this fills (FMHACTL_HOME) is the one a device run hits: scripts/device/ptx_grid.sh."""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor


def one(name: str, strict: bool, tc5: bool, ckpt: bool = False) -> str:
    os.environ["FMHACTL_EMULATE"] = "tc5" if tc5 else "native"
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build
    from fmhactl.registry import get_variant
    from fmhactl.runtime.dump import checkpoint_variant

    label = f"{'tc5' if tc5 else 'ptx'}{'-strict' if strict else ''}{'-ckpt' if ckpt else ''}-build"
    started = time.time()
    try:
        variant = checkpoint_variant(get_variant(name)) if ckpt else get_variant(name)
        result = build(variant, BuildTarget("sm_90a", emulated=True, strict=strict))
        return (f"{label} {name} OK {time.time() - started:.1f}s cached={result.cache_hit} "
                f"regs={[k.registers for k in result.kernels][:4]}")
    except Exception as exc:  # one line per variant, whatever went wrong
        return f"{label} {name} FAILED {time.time() - started:.1f}s {str(exc)[:400]}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--tc5", action="store_true")
    parser.add_argument("--ckpt", action="store_true", help="the FMHA_CHECKPOINTS=1 build `fmhactl dump` runs")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("variants", nargs="+")
    args = parser.parse_args()
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(one, v, args.strict, args.tc5, args.ckpt) for v in args.variants]
        for future in futures:
            print(future.result(), flush=True)
