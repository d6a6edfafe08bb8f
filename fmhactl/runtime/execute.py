"""What the worker process does with one job: make inputs, launch, check or time.

Everything here runs inside the isolated worker (fmhactl.runtime.worker) or under a profiler;
the parent process never touches the GPU.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from fmhactl.config import AttnConfig
from fmhactl.runtime import driver
from fmhactl.runtime.launchers import launch_shape
from fmhactl.runtime.nvtx_ranges import launch_range
from fmhactl.runtime.params import make_params
from fmhactl.verify.compare import POISON_16, POISON_32, compare
from fmhactl.verify.reference import attention as reference_attention


def _torch():
    import torch
    return torch


def torch_dtype(name: str):
    torch = _torch()
    return {"bf16": torch.bfloat16, "f16": torch.float16}[name]


def gpu_info() -> dict:
    """What the worker reports on start: the GPU, or why there is none."""
    torch = _torch()
    if not torch.cuda.is_available():
        return {"gpu": None, "reason": "no CUDA GPU visible to torch"}
    props = torch.cuda.get_device_properties(0)
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # make torch's primary context current for the driver API
    return {"gpu": props.name, "cc": [props.major, props.minor], "sms": props.multi_processor_count,
            "l2_bytes": getattr(props, "L2_cache_size", 0), "driver": driver.driver_version(),
            "torch": torch.__version__}


class Executor:
    def __init__(self) -> None:
        from fmhactl.runtime.emulation import EmulationSessions

        self._modules: dict[str, driver.LoadedModule] = {}
        # TMEM backing and conformance records for emulated (sm_100a-on-sm_90) launches.
        self._emulation = EmulationSessions()

    def close(self) -> None:
        """Free emulation buffers; after a fault the context is gone and there is nothing to free."""
        try:
            self._emulation.close()
        except Exception:  # noqa: BLE001 - the worker is exiting either way
            pass

    def synchronize(self, job: dict) -> None:
        """Wait for the launch; for emulated launches, raise EmulationViolations on broken tcgen05 rules."""
        torch = _torch()
        stream = torch.cuda.current_stream().cuda_stream
        driver.synchronize(stream)
        if job.get("mode") == "emulated":
            self._emulation.finish(self._modules[job["cubin"]], stream)

    def _function(self, job: dict):
        cubin = job["cubin"]
        if cubin not in self._modules:
            self._modules[cubin] = driver.LoadedModule(Path(cubin))
        return self._modules[cubin].function(job["kernel"])

    @staticmethod
    def make_inputs(cfg: AttnConfig, seed: int, heads_first: bool = False):
        """Fresh normal random Q, K, V indexed (batch, seq, heads, dim) on the GPU.

        heads_first stores them (batch, heads, seq, dim) in memory, so the kernel's stride
        handling is exercised in both common layouts.
        """
        torch = _torch()
        gen = torch.Generator(device="cuda").manual_seed(seed)
        dtype = torch_dtype(cfg.dtype)

        def draw(seq: int, heads: int):
            if heads_first:
                return torch.randn(cfg.batch, heads, seq, cfg.head_dim, generator=gen, device="cuda",
                                   dtype=torch.float32).to(dtype).transpose(1, 2)
            return torch.randn(cfg.batch, seq, heads, cfg.head_dim, generator=gen, device="cuda",
                               dtype=torch.float32).to(dtype)

        return draw(cfg.seq_q, cfg.heads), draw(cfg.seq_k, cfg.heads_kv), draw(cfg.seq_k, cfg.heads_kv)

    @staticmethod
    def poisoned_outputs(cfg: AttnConfig):
        torch = _torch()
        o = torch.empty(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, device="cuda", dtype=torch_dtype(cfg.dtype))
        o.view(torch.int16).fill_(POISON_16)
        lse = torch.empty(cfg.batch, cfg.heads, cfg.seq_q, device="cuda", dtype=torch.float32)
        lse.view(torch.int32).fill_(POISON_32)
        return o, lse

    def launch(self, job: dict, cfg: AttnConfig, q, k, v, o, lse, checkpoints=None,
               scale: float | None = None) -> None:
        torch = _torch()
        fn = self._function(job)
        shape = launch_shape(job["launcher"], cfg, job["switches"])
        args = [make_params(cfg, q, k, v, o, lse, scale=scale, checkpoints=checkpoints)]
        if job["launcher"] == "sm100":
            args.append(self._tma_maps(job, cfg, q, k, v))
        stream = torch.cuda.current_stream().cuda_stream
        if job.get("mode") == "emulated":
            self._emulation.prepare(self._modules[job["cubin"]], shape.grid, stream, int(job.get("seed") or 0))
        with launch_range(job["variant"], cfg.key):
            driver.launch(fn, shape.grid, shape.block, shape.dynamic_smem, stream, *args)

    @staticmethod
    def _tma_maps(job: dict, cfg: AttnConfig, q, k, v):
        """The SM100 kernel's second parameter: real tensor maps for TMA variants, zeros otherwise.
        The boxes follow the entry's plan (BlockN keys per K/V tile)."""
        from fmhactl.runtime.launchers import sm100_plan
        from fmhactl.runtime.tma_maps import FmhaTmaMaps, fmha_maps

        if not int(job["switches"].get("FMHA_LOAD_TMA", 0)):
            return FmhaTmaMaps()
        plan = sm100_plan(cfg, job["switches"])
        return fmha_maps(q, k, v, plan.block_m, plan.block_n)

    def run(self, job: dict) -> dict:
        """One launch with no reference: did it finish, write every element, produce NaNs?"""
        torch = _torch()
        cfg = AttnConfig.from_dict(job["config"])
        q, k, v = self.make_inputs(cfg, job["seed"])
        o, lse = self.poisoned_outputs(cfg)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        self.launch(job, cfg, q, k, v, o, lse)
        end.record()
        self.synchronize(job)
        unwritten = int((o.view(torch.int16) == POISON_16).sum().item())
        lse_unwritten = int((lse.view(torch.int32) == POISON_32).sum().item())
        values = o.float()
        metrics = {"elapsed_ms": start.elapsed_time(end), "unwritten": unwritten, "lse_unwritten": lse_unwritten,
                   "nan": int(torch.isnan(values).sum().item()) - unwritten,
                   "out_abs_max": float(values.nan_to_num(0.0).abs().max().item())}
        return {"status": "OK" if unwritten == 0 and lse_unwritten == 0 else "FAIL", "metrics": metrics}

    def dump(self, job: dict) -> dict:
        """Run a checkpoint build once and compare one checkpoint with its expected value."""
        from fmhactl.runtime import checkpoints as ckpt
        from fmhactl.runtime.params import make_params as _params

        torch = _torch()
        cfg = AttnConfig.from_dict(job["config"])
        q, k, v = self.make_inputs(cfg, job["seed"])
        o, lse = self.poisoned_outputs(cfg)
        layout = ckpt.CheckpointLayout(cfg.head_dim)
        buffer = torch.full((layout.nbytes,), 0xFF, dtype=torch.uint8, device="cuda")
        self.launch(job, cfg, q, k, v, o, lse, checkpoints=buffer)
        self.synchronize(job)
        at = job["at"]
        names = list(ckpt.CHECKPOINTS) + ["end"]
        raw = buffer[layout.offsets[at]:layout.offsets[names[names.index(at) + 1]]]
        scale_log2 = _params(cfg, q, k, v, o, lse).scale_log2
        want = ckpt.expected(cfg, q, k, v, at, scale_log2).cpu()
        if at in ("Q", "K", "V"):
            got = raw.view(torch.int16).cpu()
        else:
            got = raw.view(torch.float32).reshape(ckpt.BLOCK_M, -1).cpu()
        report = ckpt.compare(at, got, want, cfg.head_dim)
        if "first_lane" in report:
            report["window"] = ckpt.window(got, want, report["first_lane"], report["first_column"])
        return {"status": "PASS" if report["mismatches"] == 0 else "FAIL", "metrics": report}

    def verify(self, job: dict) -> dict:
        torch = _torch()
        cfg = AttnConfig.from_dict(job["config"])
        layout = job.get("layout", "bthd")
        q, k, v = self.make_inputs(cfg, job["seed"], heads_first=layout == "bhtd")
        o, lse = self.poisoned_outputs(cfg)
        self.launch(job, cfg, q, k, v, o, lse)
        self.synchronize(job)
        ref32, lse32 = reference_attention(q, k, v, causal=cfg.causal, compute_dtype=torch.float32)
        ref_low, _ = reference_attention(q, k, v, causal=cfg.causal, compute_dtype=q.dtype)
        _, lse64 = reference_attention(q, k, v, causal=cfg.causal, compute_dtype=torch.float64)
        if job["launcher"] == "sm100":
            block_m, warp_rows, quarters = 128, 32, True
        else:
            block_m, quarters = int(job["switches"].get("FMHA_BLOCK_M", 0)), False
            warp_rows = block_m // 4
        result = compare(o, lse, ref32, ref_low, lse64, lse32, block_m=block_m, warp_rows=warp_rows,
                         lane_quarters=quarters)
        return {"status": "PASS" if result.passed else "FAIL",
                "metrics": {**result.to_dict(), "layout": layout, **self._tmem_sharing(job, cfg)}}

    def _tmem_sharing(self, job: dict, cfg: AttnConfig) -> dict:
        """Strict emulation: most CTAs that held TMEM on one SM at once, allocs that waited, and how
        many CTAs the emulated build's occupancy lets co-reside (the residency the emulator saw)."""
        if job.get("mode") != "emulated":
            return {}
        stats = self._emulation.stats(self._modules[job["cubin"]])
        if not stats:
            return {}
        from cuda.bindings import driver as cu

        shape = launch_shape(job["launcher"], cfg, job["switches"])
        threads = shape.block[0] * shape.block[1] * shape.block[2]
        err, per_sm = cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(self._function(job), threads, shape.dynamic_smem)
        if err == cu.CUresult.CUDA_SUCCESS:
            stats["ctas_per_sm_by_occupancy"] = int(per_sm)
        return {"tmem_sharing": stats}

    def bench(self, job: dict) -> dict:
        torch = _torch()
        cfg = AttnConfig.from_dict(job["config"])
        opts = job.get("bench", {})
        warmup, iters = int(opts.get("warmup", 10)), int(opts.get("iters", 50))
        sets = self._input_sets(cfg, job["seed"], opts)

        def ours(s):
            self.launch(job, cfg, *s)

        result = {"kernel": _timed(ours, sets, warmup, iters, cfg.flops)}
        self.synchronize(job)
        baselines = {}
        for name in opts.get("baselines", ["cudnn", "flash"]):
            baselines[name] = _time_baseline(name, cfg, sets, warmup, iters)
            if baselines[name].get("available") and result["kernel"]["tflops"]:
                baselines[name]["ratio"] = result["kernel"]["tflops"] / baselines[name]["tflops"]
        result["baselines"] = baselines
        result["input_sets"] = len(sets)
        return {"status": "OK", "metrics": result}

    def _input_sets(self, cfg: AttnConfig, seed: int, opts: dict) -> list[tuple]:
        """Enough independent input sets that one pass over them exceeds twice the L2 size."""
        torch = _torch()
        l2 = torch.cuda.get_device_properties(0).L2_cache_size or 50 * 2**20
        elem = 2
        per_set = elem * cfg.head_dim * (2 * cfg.batch * cfg.seq_q * cfg.heads + 2 * cfg.batch * cfg.seq_k * cfg.heads_kv)
        count = max(2, min(int(opts.get("max_sets", 64)), math.ceil(2 * l2 / max(per_set, 1))))
        sets = []
        for i in range(count):
            q, k, v = self.make_inputs(cfg, seed + i)
            o, lse = self.poisoned_outputs(cfg)
            sets.append((q, k, v, o, lse))
        return sets


def _timed(fn, sets, warmup: int, iters: int, flops: float) -> dict:
    """Median of per-launch CUDA-event timings, rotating over the input sets."""
    torch = _torch()
    for i in range(warmup):
        fn(sets[i % len(sets)])
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        starts[i].record()
        fn(sets[i % len(sets)])
        ends[i].record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) for s, e in zip(starts, ends))
    median = statistics.median(times)
    return {"median_ms": median, "p10_ms": times[len(times) // 10], "p90_ms": times[(9 * len(times)) // 10],
            "min_ms": times[0], "iters": iters, "tflops": flops / (median * 1e-3) / 1e12 if median > 0 else 0.0}


_SDPA_BACKENDS = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION", "efficient": "EFFICIENT_ATTENTION",
                  "math": "MATH"}


def _time_baseline(name: str, cfg: AttnConfig, sets, warmup: int, iters: int) -> dict:
    torch = _torch()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    if name not in _SDPA_BACKENDS:
        return {"available": False, "reason": f"unknown baseline {name!r}"}
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
