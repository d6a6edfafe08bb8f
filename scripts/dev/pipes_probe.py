"""A few calls of one attention implementation at one shape, for ncu to profile (a device diagnostic).

    python3 scripts/dev/pipes_probe.py {op,cudnn,fa4} b,h,s,d[,causal]
ncu picks the kernel by name (scripts/device/pipes14.sh, stalls17.sh): fmha_sm90 for the op,
cudnn/sdpa for cuDNN, flash for FA4 (the flash-attn-4 wheel's CuTe DSL kernels, on the path only
after scripts/device/peers_install.sh).
"""
from __future__ import annotations

import sys

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel

import fmhactl.torch as ft


def main() -> None:
    impl, spec = sys.argv[1], sys.argv[2].split(",")
    b, h, s, d = (int(x) for x in spec[:4])
    causal = "causal" in spec[4:]
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    if impl == "fa4":
        from flash_attn.cute.interface import flash_attn_func

        q, k, v = (t.transpose(1, 2).contiguous() for t in (q, k, v))  # FA4 takes (batch, seq, heads, dim)
    for _ in range(5):
        if impl == "op":
            ft.attention(q, k, v, causal=causal)
        elif impl == "fa4":
            flash_attn_func(q, k, v, causal=causal)
        else:
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
