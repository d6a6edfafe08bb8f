"""The MMA micro-kernel case shared by the GPU tests and the CPU dry run: build operands, launch
tests/tcgen05/kernels/mma.cu, compare D with torch matmul (fp64 reference)."""

from __future__ import annotations

import torch

from fmhactl.layout import accum

import smem_images
from tc5_harness import MmaTestParams

SENTINEL = -1  # 0xFFFFFFFF: the kernel writes it to every D column before the MMAs


def _round_up(x: int, a: int) -> int:
    return -(-x // a) * a


def _ts_words(a: torch.Tensor, dtype: str, m_rows: int, lane0: int) -> torch.Tensor:
    """A's TMEM words (128 lanes x columns) per the layout model's TS A map (spec §3.5)."""
    e_bits = 32 if dtype == "tf32" else 16
    bits = smem_images._bits(a, dtype)
    cols = a.shape[1] * e_bits // 32
    words = torch.zeros(128, cols, dtype=torch.int64)
    for m in range(m_rows):
        for k in range(a.shape[1]):
            lane, col, bit = accum.a_cell(m_rows, m, k, lane0 << 16, e_bits)
            words[lane, col] |= int(bits[m, k]) << bit
    return words


def run_mma(mod, *, m: int, n: int, dtype: str, major: str, layout: str, ts: bool,
            seed: int, lane0: int = 0, device: str = "cuda") -> None:
    """One mma.cu launch checked against torch; device="cpu" with a fake module dry-runs the host side."""
    k_total = 32 if dtype == "tf32" else 64
    gen = torch.Generator().manual_seed(seed)
    a = torch.randn(m, k_total, generator=gen)
    b = torch.randn(n, k_total, generator=gen)
    b_img = smem_images.operand_image(b, dtype, major, layout)
    params = MmaTestParams()
    keep = []  # device tensors must outlive the launch

    def upload(t: torch.Tensor) -> int:
        dev = t.contiguous().to(device)
        keep.append(dev)
        return dev.data_ptr()

    params.b_image = upload(b_img.data)
    params.b_bytes = b_img.nbytes
    for s, d in enumerate(b_img.descs):
        params.b_desc[s] = d
    if ts:
        words = _ts_words(a, dtype, m, lane0)
        params.a_tmem = upload((words - (words >= 2**31).to(torch.int64) * 2**32).to(torch.int32))
        params.a_cols = words.shape[1]
        a_bytes = 0
    else:
        a_img = smem_images.operand_image(a, dtype, major, layout)
        params.a_image = upload(a_img.data)
        params.a_bytes = a_bytes = a_img.nbytes
        for s, d in enumerate(a_img.descs):
            params.a_desc[s] = d
    d_out = torch.zeros(128 * n, dtype=torch.int32, device=device)
    params.d_out = d_out.data_ptr()
    params.idesc = smem_images.idesc(m, n, dtype, "k" if ts else major, major)
    params.k_steps = len(b_img.descs)
    params.n = n
    params.ts = int(ts)
    params.d_lane0 = lane0
    smem = 1024 + _round_up(a_bytes, 1024) + _round_up(b_img.nbytes, 1024)
    kernel = "mma_tf32" if dtype == "tf32" else "mma_f16"
    violations = mod.run(kernel, params, smem=smem)
    assert not violations, "\n".join(map(str, violations))

    raw = d_out.cpu().view(128, n)
    got = torch.empty(m, n, dtype=torch.float64)
    d_lanes = set()
    for row in range(m):
        lane, _ = accum.d_cell(m, row, 0, lane0 << 16)
        d_lanes.add(lane)
        got[row] = raw[lane].view(torch.float32).to(torch.float64)
    others = [lane for lane in range(128) if lane not in d_lanes]
    assert bool((raw[others] == SENTINEL).all()), "MMA wrote TMEM lanes outside D"
    expected = smem_images.rounded(a, dtype) @ smem_images.rounded(b, dtype).T
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-4,
                               msg=lambda text: f"seed {seed}: {text}")
