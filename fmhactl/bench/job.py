"""The worker side of `bench`: CUDA-event timings of a kernel and of torch SDPA baselines.

Runs inside the kernel worker (fmhactl.runtime.worker loads it by name for op "bench"): inputs
rotated over more than twice the L2 size, warm-up, median/p10/p90, baselines in the same process.
"""

from __future__ import annotations

import math
import statistics

from fmhactl.bench.feature_baselines import FEATURE_BASELINES
from fmhactl.bench.peers import PEER_BASELINES
from fmhactl.config import AttnConfig
from fmhactl.runtime import stage
from fmhactl.runtime.kernel_job import KernelJob


def _torch():
    import torch
    return torch


def bench_job(executor, job: KernelJob) -> dict:
    cfg = job.config
    opts = job.options.get("bench", {})
    warmup, iters = int(opts.get("warmup", 10)), int(opts.get("iters", 50))
    sets = input_sets(executor, cfg, job.seed, opts)

    # only the enqueue is timed: parameters, tensor maps and the SMEM attribute are settled up front
    prepared = {id(s): executor.prepared_launch(job, cfg, *s) for s in sets}

    def ours(s):
        prepared[id(s)]()

    flops = _flops(cfg, job.seed)
    stage.report("the kernel")
    result = {"kernel": _timed(ours, sets, warmup, iters, flops)}
    executor.synchronize(job)
    baselines = {}
    result["baselines"] = baselines
    references: list[tuple] = []  # the peers' reference output, computed once for them all
    for name in opts.get("baselines", ["cudnn", "flash"]):
        # If the watchdog kills the worker in here, the row keeps the kernel and the baselines
        # done, and this one says it did not finish (a peer's first use may compile for minutes).
        baselines[name] = {"available": False, "reason": "did not finish before the watchdog"}
        stage.report(f"baseline {name}", result)
        if name in FEATURE_BASELINES:
            baselines[name] = _time_feature_baseline(name, cfg, sets, warmup, iters, job.seed, flops)
        elif name in PEER_BASELINES:
            baselines[name] = _time_peer(name, cfg, sets, warmup, iters, job.seed, flops, references)
        else:
            baselines[name] = _time_baseline(name, cfg, sets, warmup, iters)
        if baselines[name].get("available") and result["kernel"]["tflops"]:
            baselines[name]["ratio"] = result["kernel"]["tflops"] / baselines[name]["tflops"]
    result["input_sets"] = len(sets)
    return {"status": "OK", "metrics": result}


def input_sets(executor, cfg: AttnConfig, seed: int, opts: dict) -> list[tuple]:
    """Enough independent input sets that one pass over them exceeds twice the L2 size."""
    torch = _torch()
    l2 = torch.cuda.get_device_properties(0).L2_cache_size or 50 * 2**20
    elem = 2
    per_set = elem * cfg.head_dim * (2 * cfg.batch * cfg.seq_q * cfg.heads + 2 * cfg.batch * cfg.seq_k * cfg.heads_kv)
    count = max(2, min(int(opts.get("max_sets", 64)), math.ceil(2 * l2 / max(per_set, 1))))
    sets = []
    for i in range(count):
        q, k, v = executor.make_inputs(cfg, seed + i)
        o, lse = executor.poisoned_outputs(cfg)
        sets.append((q, k, v, o, lse))
    return sets


# A timed launch shorter than its own host enqueue (decode kernels: a few µs) would read as the
# enqueue time between its two events: the GPU idles until the launch arrives. The GPU is therefore
# first held busy (torch.cuda._sleep) for longer than the host takes to enqueue every timed launch;
# the launches then run back to back and each pair of events brackets its kernel only. Kernels and
# baselines are timed the same way.
HEAD_START_MARGIN = 3.0  # the timed loop also records two events per launch
HEAD_START_MAX_S = 2.0


_SLEEP_HZ: list[float] = []


def _sleep_cycles_per_s(torch) -> float:
    """torch.cuda._sleep's cycles per second, measured once (the device properties' clock rate is
    not reliable across CUDA versions; CUDA 13 dropped it from cudaDeviceProp)."""
    if not _SLEEP_HZ:
        cycles = 20_000_000
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles // 10)  # the first launch of the sleep kernel is not timed
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
        _SLEEP_HZ.append(cycles / max(start.elapsed_time(end) * 1e-3, 1e-6))
    return _SLEEP_HZ[0]


def _head_start(torch, host_s_per_call: float, iters: int) -> float:
    """Hold the stream busy for the host's enqueue time of `iters` calls (with a margin); seconds."""
    seconds = min(HEAD_START_MAX_S, 1e-3 + HEAD_START_MARGIN * host_s_per_call * iters)
    torch.cuda._sleep(max(1, int(seconds * _sleep_cycles_per_s(torch))))
    return seconds


def _timed(fn, sets, warmup: int, iters: int, flops: float) -> dict:
    """Median of per-launch CUDA-event timings, rotating over the input sets, with the host's
    enqueue hidden behind a GPU head start (above)."""
    import time

    torch = _torch()
    warmup = max(1, warmup)
    torch.cuda.synchronize()
    begin = time.perf_counter()
    for i in range(warmup):
        fn(sets[i % len(sets)])
    host_s = (time.perf_counter() - begin) / warmup  # an upper bound while the GPU keeps up
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    head_start_s = _head_start(torch, host_s, iters)
    slept = torch.cuda.Event()
    slept.record()
    for i in range(iters):
        starts[i].record()
        fn(sets[i % len(sets)])
        ends[i].record()
    covered = not slept.query()  # still sleeping once every launch was enqueued: no host gap was timed
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    median = statistics.median(times)
    return {"median_ms": median, "p10_ms": times[len(times) // 10], "p90_ms": times[(9 * len(times)) // 10],
            "min_ms": times[0], "iters": iters, "tflops": flops / (median * 1e-3) / 1e12 if median > 0 else 0.0,
            "host_us_per_call": host_s * 1e6, "head_start_ms": head_start_s * 1e3,
            "head_start_covered": covered}


_SDPA_BACKENDS = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION",
                  "math": "MATH"}


def _time_baseline(name: str, cfg: AttnConfig, sets, warmup: int, iters: int) -> dict:
    torch = _torch()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    if name not in _SDPA_BACKENDS:
        return {"available": False, "reason": f"unknown baseline {name!r}"}
    if cfg.features:  # a plain SDPA call would do other work than the kernel: no ratio is better than a false one
        return {"available": False, "reason": f"SDPA {name} computes plain attention, not {', '.join(cfg.features)} "
                                              f"(use --baseline {' / '.join(FEATURE_BASELINES)})"}
    backend = getattr(SDPBackend, _SDPA_BACKENDS[name])
    mask = None
    if cfg.causal and cfg.seq_q != cfg.seq_k:
        from torch.nn.attention.bias import causal_lower_right
        mask = causal_lower_right(cfg.seq_q, cfg.seq_k)
    group = cfg.heads // cfg.heads_kv
    # Heads-first views; K/V expanded for GQA up front so every backend sees plain MHA.
    prepared = []
    for q, k, v, _, _ in sets:
        kh, vh = k.permute(0, 2, 1, 3), v.permute(0, 2, 1, 3)
        if group > 1:
            kh, vh = kh.repeat_interleave(group, dim=1), vh.repeat_interleave(group, dim=1)
        prepared.append((q.permute(0, 2, 1, 3), kh, vh))

    def run(s):
        q, k, v = s
        if mask is not None:
            return sdpa(q, k, v, attn_mask=mask)
        return sdpa(q, k, v, is_causal=cfg.causal)

    try:
        with sdpa_kernel([backend]):
            run(prepared[0])
            torch.cuda.synchronize()
            timing = _timed(run, prepared, warmup, iters, cfg.flops)
    except RuntimeError as exc:
        return {"available": False, "reason": str(exc).splitlines()[0][:200]}
    timing["available"] = True
    return timing


def _flops(cfg: AttnConfig, seed: int) -> float:
    """The work the kernel does: cfg.flops, with a kvr config's keys cut to the ranges this seed
    draws (the kernel and the feature baselines get the same ones)."""
    if not cfg.key_ranges or cfg.topk:
        return cfg.flops
    from fmhactl.runtime.features import make_feature_inputs

    return cfg.flops_in_ranges(make_feature_inputs(cfg, seed, device="cpu").key_ranges.tolist())


def _time_feature_baseline(name: str, cfg: AttnConfig, sets, warmup: int, iters: int, seed: int,
                           flops: float) -> dict:
    """sdpa-mask or flex (fmhactl/bench/feature_baselines.py) on the kernel's inputs and feature
    inputs (the same seed draws the same sinks and lists); masks are built before the timing."""
    torch = _torch()
    from fmhactl.bench.feature_baselines import prepare
    from fmhactl.runtime.features import make_feature_inputs

    try:
        run = prepare(name, cfg, make_feature_inputs(cfg, seed), "cuda", sets[0][0].dtype)

        def call(s):
            return run(s[0], s[1], s[2])

        call(sets[0])  # compiles (flex) outside the timing
        torch.cuda.synchronize()
        timing = _timed(call, sets, warmup, iters, flops)
    except (RuntimeError, torch.cuda.OutOfMemoryError) as exc:
        return {"available": False, "reason": str(exc).splitlines()[0][:200]}
    timing["available"] = True
    return timing


def _time_peer(name: str, cfg: AttnConfig, sets, warmup: int, iters: int, seed: int, flops: float,
               references: list) -> dict:
    """A peer library (fmhactl/bench/peers.py) on the kernel's inputs and feature inputs: set up
    and checked once against the reference on the first set (untimed; a wrong output is not
    quoted), every set laid out for it up front, then timed like the kernel."""
    from fmhactl.bench.peers import PeerUnavailable, checked, one_line, reference
    from fmhactl.runtime.features import make_feature_inputs

    try:
        features = make_feature_inputs(cfg, seed)
        q, k, v = sets[0][:3]

        def ref():
            if not references:
                references.append(reference(cfg, q, k, v, features))
            return references[0]

        peer = checked(name, cfg, q, k, v, features, ref)
        laid_out = [peer.inputs(*s[:3]) for s in sets]
        timing = _timed(lambda s: peer(*s), laid_out, warmup, iters, flops)
    except PeerUnavailable as exc:
        return {"available": False, "reason": str(exc)}
    except Exception as exc:  # never the bench's end: the peer is reported unavailable with why
        return {"available": False, "reason": one_line(exc)}
    timing["available"] = True
    return timing
