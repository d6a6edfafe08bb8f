"""Steps of scripts/device/dechd.sh.

    python3 scripts/device/dechd_steps.py build
        build the decode cubin (NVRTC, sm_90a) and print each kernel's registers, spills and SMEM
    python3 scripts/device/dechd_steps.py padded b=4,h=32,hkv=8,t=1,s=4096,d=96 ...
        the old way a decode step at a head dim the decode kernels lacked ran (what
        fmhactl/torch/padding.py did for d=80/96 before they took it): zero-pad q, k and v to the
        next compiled head dim every call, run the decode kernels there, copy the first d output
        columns out. Per-call µs of that, back to back, at each shape; JSON {shape key:
        {per_call_us, host_us, padded_to, max_abs_diff_vs_native}} on stdout.
"""

from __future__ import annotations

import json
import sys


def build() -> int:
    from fmhactl.build.compiler import BuildTarget
    from fmhactl.build.entry import build as build_variant
    from fmhactl.torch import decode

    for kernel in build_variant(decode.variant(), BuildTarget(decode.ARCH)).kernels:
        print(kernel)
    return 0


def padded(shapes: list[str]) -> int:
    import torch

    import fmhactl.torch as ft
    from fmhactl.bench.decode import parse_decode_shapes
    from fmhactl.bench.overhead import back_to_back, random_qkv
    from fmhactl.torch import decode, padding

    gen = torch.Generator(device="cuda").manual_seed(0)
    out = {}
    for cfg in parse_decode_shapes(shapes):
        wide = decode.kernel_head_dim(cfg.head_dim)
        if wide == cfg.head_dim:
            continue
        q, k, v = random_qkv(cfg, gen)
        scale = cfg.head_dim ** -0.5

        def old_way():
            return padding.narrow_output(
                ft.attention(*(padding.pad_head_dim(t, wide) for t in (q, k, v)), scale=scale), cfg.head_dim, "bshd")

        with torch.no_grad():
            before = decode.launches()
            got, want = old_way(), ft.attention(q, k, v)
            assert decode.launches() == before + 2, "the decode kernels did not serve both"
            diff = float((got.float() - want.float()).abs().max())
            for _ in range(5):
                old_way()
            out[cfg.key] = {**back_to_back(old_way, 50, 7), "padded_to": wide, "max_abs_diff_vs_native": diff}
    print(json.dumps(out, indent=1))
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"]:
        return build()
    if argv[:1] == ["padded"]:
        return padded(argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
