"""A few calls of one attention implementation at one shape, for ncu to profile (a device diagnostic).

    python3 scripts/dev/pipes_probe.py {op,cudnn} b,h,s,d[,causal]
ncu picks the kernel by name (scripts/device/pipes14.sh): fmha_sm90 for the op, cudnn/sdpa for cuDNN.
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
    for _ in range(5):
        if impl == "op":
            ft.attention(q, k, v, causal=causal)
        else:
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
