"""Emulated tcgen05.mma throughput on the GPU present (an sm_90 part): MMAs per second per SM for
M=128 N=256 K=16 bf16 SS, one issuing warp per CTA (tests/tcgen05/kernels/rate.cu).

Run: PYTHONPATH=.:tests/tcgen05 python3 tests/tcgen05/tc5_rate.py [--iters N]
The last line printed is the rate. Emulated timings are never FMHA performance numbers.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from tc5_harness import EmulatedModule, RateParams


@dataclass
class Rate:
    ctas_per_sm: int
    sms: int
    iters: int
    seconds: float

    @property
    def mmas_per_second_per_sm(self) -> float:
        return self.iters * self.ctas_per_sm * self.sms / self.seconds / self.sms


def measure(iters: int = 1000, ctas_per_sm: int = 1, repeats: int = 3) -> Rate:
    import torch

    from fmhactl.runtime.driver import launch

    sms = torch.cuda.get_device_properties(0).multi_processor_count
    grid = sms * ctas_per_sm
    mod = EmulatedModule("rate.cu", ctas=grid)
    try:
        sink = torch.zeros(grid, dtype=torch.int32, device="cuda")
        stream = torch.cuda.current_stream()
        fn = mod.module.function("mma_rate")
        best = float("inf")
        for attempt in range(repeats + 1):  # the first launch is a warm-up
            n = 8 if attempt == 0 else iters
            mod.session.reset(stream.cuda_stream)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record(stream)
            launch(fn, (grid, 1, 1), (128, 1, 1), 0, stream.cuda_stream, RateParams(sink.data_ptr(), n, 0))
            end.record(stream)
            end.synchronize()
            violations = mod.session.collect()
            if violations:
                raise RuntimeError("rate kernel broke tcgen05 rules:\n" + "\n".join(map(str, violations)))
            if attempt:
                best = min(best, start.elapsed_time(end) / 1e3)
        return Rate(ctas_per_sm, sms, iters, best)
    finally:
        mod.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iters", type=int, default=1000, help="MMAs per CTA")
    args = parser.parse_args(argv)
    import torch

    print(f"device: {torch.cuda.get_device_name(0)}")
    results = {}
    for ctas in (1, 4):
        rate = measure(args.iters, ctas)
        results[ctas] = rate
        print(f"{ctas} CTA/SM x {rate.sms} SMs, {rate.iters} MMAs per CTA: {rate.seconds * 1e3:.2f} ms, "
              f"{rate.mmas_per_second_per_sm:,.0f} MMAs/s/SM")
    one, four = results[1], results[4]
    print(f"emulated MMA rate: {one.mmas_per_second_per_sm:,.0f} MMAs/s/SM "
          f"(M=128 N=256 K=16 bf16 SS, 1 CTA/SM; {four.mmas_per_second_per_sm:,.0f} with 4 CTAs/SM)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
