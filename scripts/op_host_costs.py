"""Where the torch op's host time goes, on a CPU: each step of the general path (what every call
did before the cached path) and of the cached path, timed with the CUDA driver mocked.

    python scripts/op_host_costs.py [--iters N]

CPU tensors stand in for CUDA ones (addresses, shapes and strides are all the steps read); the
driver's launch and encode calls are replaced by no-ops, so the numbers are Python and torch
host costs only. Rough by nature (timings of microsecond steps on a shared CPU): they rank the
steps, the GPU machine's `fmhactl bench --overhead` gives the real per-call totals.
"""

from __future__ import annotations

import argparse
import ctypes
import time
from unittest import mock


def timed(name: str, fn, iters: int, rows: list) -> None:
    for _ in range(max(10, iters // 20)):
        fn()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    rows.append((name, (time.perf_counter() - start) / iters * 1e6))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=2000)
    args = parser.parse_args()
    import torch

    from fmhactl.runtime import execute
    from fmhactl.plans import launch as launchers
    from fmhactl.runtime.nvtx_ranges import launch_range
    from fmhactl.runtime.params import FmhaParams, make_params
    from fmhactl.runtime.tma_maps import TmaMap, map_params
    from fmhactl.layout.tensormap import validate
    from fmhactl.torch import backends, fastpath
    from fmhactl.torch.inputs import check_inputs, config_of
    from fmhactl.torch.launch import registry
    from fmhactl.torch.op import _dispatcher_needed, _outputs

    q = torch.zeros(1, 8, 32, 64, dtype=torch.bfloat16)  # the bench's tiny shape, bhsd
    meta = q.to("meta")
    variant = registry()["sm90_persistent"]
    p = check_inputs(meta, meta, meta, "bhsd", None)
    cfg = config_of(p, q.dtype, True)
    views = [t.transpose(1, 2) for t in (q, q, q)]
    out = q.new_empty((1, 32, 8, 64))
    rows: list[tuple[str, float]] = []
    n = args.iters
    print(f"general path (before the cached path), per call, {n} iterations:")
    timed("check_inputs", lambda: check_inputs(meta, meta, meta, "bhsd", None), n, rows)
    timed("outputs (out + empty lse)", lambda: _outputs(q, p, "bhsd", False), n, rows)
    timed("AttnConfig", lambda: config_of(p, q.dtype, True), n, rows)
    timed("backends.choose", lambda: backends.choose((9, 0), cfg, registry(), None), n, rows)
    timed("launch_shape", lambda: launchers.launch_shape("sm90", cfg, variant.switches, 132), n, rows)
    timed("make_params", lambda: make_params(cfg, *views, out, None), n, rows)
    key = lambda: (128, 128, str(q.dtype)) + tuple((t.data_ptr(), tuple(t.shape), tuple(t.stride()))  # noqa: E731
                                                   for t in (*views, out))
    timed("TMA map cache key (4 maps)", key, n, rows)
    timed("map_params (1 map; 4 on a cache miss)", lambda: map_params(views[0], 128), n, rows)
    params = map_params(views[0], 128)
    timed("validate (1 map; 4 on a cache miss)", lambda: validate(params), n, rows)

    def nvtx_range():
        with launch_range(variant.name, cfg.key):
            pass
    timed("launch_range (NVTX, when nvtx is installed)", nvtx_range, n, rows)
    timed("cfg.key", lambda: cfg.key, n, rows)
    for name, us in rows:
        print(f"  {name:46s} {us:8.2f} us")
    total = sum(us for name, us in rows if "1 map" not in name)
    print(f"  (sum, map encoding excluded: {total:.1f} us; plus cuda-python's launch, stream objects, "
          "torch.cuda.device, the dispatcher)")

    rows = []
    print("cached path, per call:")
    plan_params = FmhaParams()
    maps = (TmaMap * 4)()
    kernel_params = (ctypes.c_void_p * 2)(ctypes.addressof(plan_params), ctypes.addressof(maps))
    class NoDriver:
        """The driver's two calls as no-ops (a Mock would cost more than they do)."""

        def launch(self, *args) -> None:
            pass

        def replace_address(self, tensor_map: int, address: int) -> None:
            pass

    driver = NoDriver()
    plan = fastpath.LaunchPlan(
        variant="sm90_persistent", device_index=0, function=1, grid=(132, 1, 1), block=(384, 1, 1),
        dynamic_smem=200000, params=plan_params, maps=maps,
        map_slots=tuple((ctypes.addressof(maps) + i * ctypes.sizeof(TmaMap), i) for i in range(4)),
        map_addresses=[0] * 4, out_size=(1, 8, 32, 64), out_stride=(16384, 64, 512, 1), lse_size=None,
        dtype=q.dtype, device=torch.device("cpu"), align_mask=15, counter_for=None, stream=0,
        kernel_params=kernel_params)
    with mock.patch.object(fastpath, "_raw_stream", lambda index: 0):
        timed("dispatcher check (_dispatcher_needed)", lambda: _dispatcher_needed(q, q, q), n, rows)
        timed("call key", lambda: fastpath.call_key(q, q, q, True, None, False, "bhsd"), n, rows)
        timed("plan.run (no-op driver: out alloc, pointers, O map move)", lambda: plan.run(q, q, q, driver), n, rows)
    for name, us in rows:
        print(f"  {name:46s} {us:8.2f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
