"""Host microseconds per attention call at a greedy decode step's shape (session 20: llama-small
greedy ran 0.99 of SDPA step for step), level by level down the op's decode path and beside
transformers' SDPA forward: what each layer of Python costs, so a saving is aimed, not guessed.
Each level is called `iters` times back to back (no synchronize inside: the decode kernel is
shorter than the host's call), the host's wall time divided by iters; the levels are interleaved
in `rounds` rounds, order reversed every other round; median over rounds. Timing lives here.

    python3 scripts/device/decode_host_probe.py [HEAD_DIM] [KV_LENGTH]
"""

from __future__ import annotations

import statistics
import sys
import time
from types import SimpleNamespace

import torch


def main(argv: list[str]) -> int:
    head_dim = int(argv[0]) if argv else 64
    length = int(argv[1]) if len(argv) > 1 else 2100
    iters, rounds = 2000, 9
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    import fmhactl.torch as ft
    from fmhactl.torch import decode, fastpath, op
    from fmhactl.torch.hf import fmhactl_attention_forward

    dev = torch.device("cuda")
    q = torch.randn(1, 16, 1, head_dim, device=dev, dtype=torch.bfloat16)
    k = torch.randn(1, 4, length, head_dim, device=dev, dtype=torch.bfloat16)
    v = torch.randn_like(k)
    module = SimpleNamespace(is_causal=True, training=False, num_key_value_groups=4)
    scale = head_dim ** -0.5
    driver = fastpath._driver()
    plan_key = decode.plan_key(q, k, True, scale, False, "bhsd")
    ft.attention(q, k, v, causal=True, scale=scale)  # builds the decode plan
    plan = decode._plans[plan_key]
    stream = fastpath._raw_stream(0)
    levels = {
        "sdpa_attention_forward (transformers)": lambda: sdpa_attention_forward(module, q, k, v, None, scaling=scale),
        "F.scaled_dot_product_attention": lambda: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, scale=scale, enable_gqa=True),
        "fmhactl_attention_forward (transformers)": lambda: fmhactl_attention_forward(module, q, k, v, None,
                                                                                      scaling=scale),
        "fmhactl.torch.attention": lambda: ft.attention(q, k, v, causal=True, scale=scale),
        "op.attention_bshd_out (transformers' entry)": lambda: op.attention_bshd_out(q, k, v, True, scale),
        "fastpath.attention": lambda: fastpath.attention(q, k, v, True, scale, False, "bhsd"),
        "decode.attention": lambda: decode.attention(q, k, v, True, scale, False, "bhsd", driver, 0,
                                                     fastpath._raw_stream),
        "DecodePlan.run": lambda: plan.run(q, k, v, driver, stream),
        "torch.empty (out)": lambda: torch.empty_strided(plan.out_size, plan.out_stride, dtype=plan.dtype,
                                                         device=plan.device),
        "choose_splits": lambda: decode.choose_splits(plan.base_ctas[0], 1, plan.base_ctas[1], length,
                                                      plan.sm_count, decode.RESIDENT_CTAS[plan.head_dim],
                                                      plan.group_rows),
        "plan_key": lambda: decode.plan_key(q, k, True, scale, False, "bhsd"),
    }
    with torch.inference_mode():
        for call in levels.values():
            for _ in range(50):
                call()
        torch.cuda.synchronize()
        times: dict[str, list[float]] = {name: [] for name in levels}
        names = list(levels)
        for r in range(rounds):
            for name in (names if r % 2 == 0 else names[::-1]):
                call = levels[name]
                torch.cuda.synchronize()
                begin = time.perf_counter()
                for _ in range(iters):
                    call()
                times[name].append((time.perf_counter() - begin) * 1e6 / iters)
                torch.cuda.synchronize()
    print(f"host us per call, b1 h16:4 T1 S{length} hd{head_dim} bf16, median of {rounds} rounds x {iters} calls "
          f"[min-max]; {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name, ts in times.items():
        print(f"  {name:42s} {statistics.median(ts):7.2f} [{min(ts):.2f}-{max(ts):.2f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
