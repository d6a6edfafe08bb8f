"""Where the host time of a new KV length goes on the family route (issue 24, session 24): the op on
an MHA decode step over a 512 MiB cache, the KV length alternating (s, s-1), and the refresh's
parts timed alone: the whole op call, KvRefresh.apply, one map encode (tma_maps.encode, the cheap
path), the cheap path's argument checks (tma_fast.family_args) and the driver's encode by itself.
    python3 scripts/device/kv_refresh_probe.py   (a GPU; prints one line per part, median us)"""

from __future__ import annotations

import statistics
import time

import torch

import fmhactl.torch as ft
from fmhactl.runtime import tma_fast
from fmhactl.runtime.tma_maps import TmaMap, encode
from fmhactl.torch import fastpath, kv_length
from fmhactl.torch.inputs import to_bshd


def median_us(call, n: int = 400) -> float:
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1e6)
    return statistics.median(samples)


def main() -> None:
    b, h, s, d = 32, 16, 4096, 128
    q = torch.randn(b, h, 1, d, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    pairs = ((k, v), (k[:, :, :-1], v[:, :, :-1]))
    step = [0]

    def op_new_length():
        step[0] ^= 1
        ft.attention(q, *pairs[step[0]])

    for _ in range(5):
        op_new_length()
    torch.cuda.synchronize()
    plan = next(p for p in fastpath._kv_plans.values())
    print(f"backend {ft.backend_for(q, k, v)}; plan.kv {plan.kv is not None}; tma_fast {tma_fast.status()}")
    print(f"op, same KV each call      {median_us(lambda: ft.attention(q, k, v)):8.1f} us")
    torch.cuda.synchronize()
    print(f"op, new KV length per call {median_us(op_new_length):8.1f} us")
    torch.cuda.synchronize()
    states = [kv_length.kv_state(*pair) for pair in pairs]

    def apply():
        step[0] ^= 1
        assert plan.kv.apply(plan, *pairs[step[0]], states[step[0]])

    print(f"KvRefresh.apply            {median_us(apply):8.1f} us")
    view = to_bshd(pairs[1][0], "bhsd")
    print(f"tma_maps.encode (1 map)    {median_us(lambda: encode(view, plan.kv.box_rows)):8.1f} us")
    print(f"tma_fast.family_args       {median_us(lambda: tma_fast.family_args(view, plan.kv.box_rows)):8.1f} us")
    args = tma_fast.family_args(view, plan.kv.box_rows)
    encoder = tma_fast._encoder()
    out = TmaMap()
    print(f"driver encode alone        {median_us(lambda: encoder.encode(out, *args, 3, 2)):8.1f} us")
    print(f"to_bshd x2                 {median_us(lambda: [to_bshd(t, 'bhsd') for t in pairs[1]]):8.1f} us")
    print(f"kv_state                   {median_us(lambda: kv_length.kv_state(*pairs[1])):8.1f} us")


if __name__ == "__main__":
    main()
