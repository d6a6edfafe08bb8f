"""Host microseconds per call down the op's decode path, on a CPU: the levels of
scripts/device/decode_host_probe.py (transformers' forward, fmhactl.torch.attention,
fastpath.attention, decode.attention, DecodePlan.run, choose_splits, plan_key) with the CUDA
driver mocked, at its shape (b1 h16:4 T1 hd64, KV length 2100).

    python scripts/decode_host_costs.py [--iters N] [--rounds R]

CPU tensors stand in for CUDA ones (the path reads addresses, shapes, strides, dtypes and device
indices): `Tensor.is_cuda` is patched to True for this process, the current device and stream
are stubs, the driver is a RawDriver bound to a compiled no-op cuLaunchKernel (ctypes'
conversions and call kept, the launch gone) and the plan is made by hand (no kernel build).
Rough by nature (microsecond steps on a shared CPU): they rank the steps and show a change's
direction; the GPU machine's decode_host_probe.py gives the real per-call numbers. Each level runs
`iters` calls back to back, the levels interleaved over `rounds` rounds (order reversed every
other round); the median round is printed. "+1 key a call" levels grow the KV length by one
each call, as greedy decoding does (views of one static cache, made before the clock starts).
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import time
from types import SimpleNamespace


STUB_LIBCUDA = """
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned smem, void *stream, void **params, void **extra) { return 0; }
int cuTensorMapReplaceAddress(void *map, void *address) { return 0; }
"""


class NoDriver:
    """RawDriver's launch calls as no-ops (where no C compiler makes the stub library)."""

    def launch(self, *args) -> None:
        pass

    def enqueue(self, *args) -> None:
        pass


def stub_driver(folder: str):
    """A RawDriver bound to a compiled no-op cuLaunchKernel: the ctypes argument conversion and the
    call (GIL released) cost what they cost with libcuda, the launch itself nothing."""
    import shutil
    import subprocess
    from pathlib import Path

    from fmhactl.runtime.driver import RawDriver

    if shutil.which("gcc") is None:
        return NoDriver()
    source, library = Path(folder) / "stub.c", Path(folder) / "libcudastub.so"
    source.write_text(STUB_LIBCUDA)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    return RawDriver(str(library))


def make_plan(decode, torch, q, k, sm_count: int = 132):
    """A DecodePlan for a bhsd call of q (b, h, T, d) against k (b, h_kv, S, d) on the CPU (device
    index -1, as get_device() reports for a CPU tensor), made as decode._build makes one."""
    from fmhactl.runtime.params import FmhaParams

    b, h, t, d = q.shape
    h_kv = k.shape[1]
    params, split = FmhaParams(), decode.DecodeSplit()
    params.batch, params.heads, params.heads_kv, params.seq_q, params.head_dim = b, h, h_kv, t, d
    kernel_params = (ctypes.c_void_p * 2)(ctypes.addressof(params), ctypes.addressof(split))
    return decode.DecodePlan(
        device_index=-1, device=torch.device("cpu"), dtype=q.dtype, split_fn=11, combine_fn=22, params=params,
        split=split, kernel_params=kernel_params, out_size=(b, h, t, d), out_stride=(t * h * d, d, h * d, 1),
        lse_size=None, rows_total=b * h * t, base_ctas=(b * h_kv, decode.row_groups(t, h, h_kv)), head_dim=d,
        seq_q=t, seq_dim=2, sm_count=sm_count)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--length", type=int, default=2100)
    args = parser.parse_args()
    import tempfile

    import torch

    torch.Tensor.is_cuda = property(lambda self: True)  # this process only: CPU tensors take the CUDA path
    import fmhactl.torch as ft
    from fmhactl.torch import decode, fastpath
    from fmhactl.torch.hf import fmhactl_attention_forward

    head_dim, length, iters = 64, args.length, args.iters
    q = torch.zeros(1, 16, 1, head_dim, dtype=torch.bfloat16)
    cache = torch.zeros(1, 4, length + args.rounds * iters + 64, head_dim, dtype=torch.bfloat16)
    k = cache[:, :, :length]
    v = cache[:, :, :length]
    scale = head_dim ** -0.5
    driver = stub_driver(tempfile.mkdtemp(prefix="fmhactl-stub-"))
    plan = make_plan(decode, torch, q, k)
    decode._plans[decode.plan_key(q, k, True, scale, False, "bhsd")] = plan
    fastpath._state["driver"] = driver
    fastpath._current_device = lambda: -1
    fastpath._raw_stream = lambda index: 0
    module = SimpleNamespace(is_causal=True, training=False, num_key_value_groups=4)
    llama_kwargs = {"position_ids": torch.zeros(1, 1, dtype=torch.long), "use_cache": True}
    growing = [cache[:, :, :n] for n in range(length, length + iters)]
    resident = decode.RESIDENT_CTAS[head_dim]

    def run_growing() -> None:
        for kn in growing:
            plan.run(q, kn, kn, driver, 0)

    levels = {
        "fmhactl_attention_forward (transformers)": lambda: fmhactl_attention_forward(module, q, k, v, None,
                                                                                      scaling=scale),
        "  ... with llama's kwargs": lambda: fmhactl_attention_forward(module, q, k, v, None, dropout=0.0,
                                                                       scaling=scale, **llama_kwargs),
        "fmhactl.torch.attention": lambda: ft.attention(q, k, v, causal=True, scale=scale),
        "op.attention_bshd_out (transformers' entry)": None,  # where this tree has it: below
        "fastpath.attention": lambda: fastpath.attention(q, k, v, True, scale, False, "bhsd"),
        "decode.attention": lambda: decode.attention(q, k, v, True, scale, False, "bhsd", driver, -1,
                                                     fastpath._raw_stream),
        "DecodePlan.run": lambda: plan.run(q, k, v, driver, 0),
        "DecodePlan.run, +1 key a call": None,  # run_growing: iters calls in one go (set below)
        "torch.empty (out)": lambda: torch.empty_strided(plan.out_size, plan.out_stride, dtype=plan.dtype,
                                                         device=plan.device),
        "choose_splits": lambda: decode.choose_splits(plan.base_ctas[0], 1, plan.base_ctas[1], length,
                                                      plan.sm_count, resident, plan.group_rows),
        "plan_key": lambda: decode.plan_key(q, k, True, scale, False, "bhsd"),
    }
    from fmhactl.torch import op

    if hasattr(op, "attention_bshd_out"):  # the op's entry for transformers' plain calls (no transpose view)
        levels["op.attention_bshd_out (transformers' entry)"] = lambda: op.attention_bshd_out(q, k, v, True, scale)
    else:
        del levels["op.attention_bshd_out (transformers' entry)"]
    levels["DecodePlan.run, +1 key a call"] = run_growing
    times: dict[str, list[float]] = {name: [] for name in levels}
    names = list(levels)
    with torch.inference_mode():
        for name, call in levels.items():
            for _ in range(1 if call is run_growing else 50):
                call()
        for r in range(args.rounds):
            for name in (names if r % 2 == 0 else names[::-1]):
                call = levels[name]
                begin = time.perf_counter()
                if call is run_growing:
                    run_growing()
                else:
                    for _ in range(iters):
                        call()
                times[name].append((time.perf_counter() - begin) * 1e6 / iters)
    print(f"host us per call on a CPU (driver mocked), b1 h16:4 T1 S{length} hd{head_dim} bf16, "
          f"median of {args.rounds} rounds x {iters} calls [min-max]; torch {torch.__version__}")
    for name, ts in times.items():
        print(f"  {name:42s} {statistics.median(ts):7.2f} [{min(ts):.2f}-{max(ts):.2f}]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
