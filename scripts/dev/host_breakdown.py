"""Where the op's host time per call goes on the cached path, piece by piece, beside SDPA's.

A device diagnostic, not a test: each line is the median over ROUNDS of N calls of one piece
(perf_counter, nothing synchronised inside a round), in microseconds per call.
    python3 scripts/dev/host_breakdown.py [N]
"""
from __future__ import annotations

import statistics
import sys
import time

import torch
import torch.nn.functional as F

import fmhactl.torch as ft
from fmhactl.torch import features as _features
from fmhactl.torch import fastpath, op

ROUNDS = 7


def per_call(fn, n: int) -> float:
    samples = []
    for _ in range(ROUNDS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) * 1e6 / n)
    torch.cuda.synchronize()
    return statistics.median(samples)


def shape(name: str, q, k, v, causal: bool, n: int) -> None:
    print(f"==== {name}: q {tuple(q.shape)} k {tuple(k.shape)} causal={causal}", flush=True)
    gqa = q.shape[1] != k.shape[1]
    for _ in range(20):
        ft.attention(q, k, v, causal=causal)
        F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa)
    key = fastpath.call_key(q, k, v, causal, None, False, "bhsd")
    plan = fastpath._plans.get(key)
    driver = fastpath._state["driver"]
    rows = {
        "sdpa": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=gqa),
        "ft.attention": lambda: ft.attention(q, k, v, causal=causal),
        "fastpath.attention": lambda: fastpath.attention(q, k, v, causal, None, False, "bhsd"),
        "dispatcher op": lambda: op.attention_op(q, k, v, causal=causal),
        "features.make": lambda: _features.make(k, v, -1, -1, None, None, False, None),
        "resolve_window": lambda: _features.resolve_window(None, -1, -1),
        "_dispatcher_needed": lambda: op._dispatcher_needed(q, k, v),
        "call_key": lambda: fastpath.call_key(q, k, v, causal, None, False, "bhsd"),
        "dict get": lambda: fastpath._plans.get(key, False),
        "is_compiling": torch.compiler.is_compiling,
        "3x data_ptr": lambda: (q.data_ptr(), k.data_ptr(), v.data_ptr()),
        "raw stream": lambda: fastpath._raw_stream(0),
        "current device": fastpath._current_device,
        "nothing (loop)": lambda: None,
    }
    if plan:
        rows["plan.run"] = lambda: plan.run(q, k, v, driver)
        rows["empty_strided out"] = lambda: torch.empty_strided(plan.out_size, plan.out_stride, dtype=plan.dtype,
                                                                device=plan.device)
        bshd = (plan.out_size[0], plan.out_size[2], plan.out_size[1], plan.out_size[3])
        rows["empty bshd + transpose"] = lambda: torch.empty(bshd, dtype=plan.dtype, device=plan.device).transpose(1, 2)
        rows["driver.launch"] = lambda: driver.launch(plan.function, plan.grid, plan.block, plan.dynamic_smem,
                                                      plan.stream, fastpath.ctypes.addressof(plan.kernel_params))
        rows["params 4 fields"] = lambda: (setattr(plan.params, "q", 0), setattr(plan.params, "k", 0),
                                           setattr(plan.params, "v", 0), setattr(plan.params, "o", 0))
    else:
        print("  (no cached plan: the decode path serves this shape)")
    for label, fn in rows.items():
        print(f"  {label:24s} {per_call(fn, n):8.2f} us", flush=True)
    if plan:  # the launch row above left the params pointing nowhere: restore a real call's
        ft.attention(q, k, v, causal=causal)
        torch.cuda.synchronize()


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    g = torch.Generator(device="cuda").manual_seed(0)

    def rnd(*s):
        return torch.randn(*s, device="cuda", generator=g).to(torch.bfloat16)

    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    with torch.no_grad():
        shape("tiny", rnd(1, 8, 32, 64), rnd(1, 8, 32, 64), rnd(1, 8, 32, 64), True, n)
        shape("decode", rnd(1, 32, 1, 128), rnd(1, 8, 2048, 128), rnd(1, 8, 2048, 128), False, n)
        shape("prefill-17", rnd(1, 32, 17, 128), rnd(1, 8, 17, 128), rnd(1, 8, 17, 128), True, n)
    print("fastpath", fastpath.status())


if __name__ == "__main__":
    main()
