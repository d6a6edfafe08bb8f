"""What the worker process does with one job: make inputs, launch, check or time.

Everything here runs inside the isolated worker (fmhactl.runtime.worker) or under a profiler;
the parent process never touches the GPU.
"""

from __future__ import annotations

from pathlib import Path

from fmhactl.config import AttnConfig
from fmhactl.runtime import driver
from fmhactl.runtime.device import sm_count, worker_device_info
from fmhactl.runtime.kernel_job import KernelJob
from fmhactl.plans.launch import SPLIT_PLANNERS, sm90_persistent
from fmhactl.runtime.nvtx_ranges import launch_range
from fmhactl.runtime.features import FeatureInputs, make_feature_inputs
from fmhactl.runtime.params import make_params

# Bit patterns written before a launch; a kernel never produces them (cvt yields canonical NaNs),
# so any survivor is an element the kernel did not write.
POISON_16 = -1  # 0xFFFF as int16
POISON_32 = -1  # 0xFFFFFFFF as int32


def _torch():
    import torch
    return torch


def torch_dtype(name: str):
    torch = _torch()
    return {"bf16": torch.bfloat16, "f16": torch.float16}[name]


def gpu_info() -> dict:
    """The worker's hello (kept for callers of the old name): see runtime.device."""
    return worker_device_info()


TRACE_CAPACITY_ENV = "FMHACTL_TRACE_CAPACITY"  # events; > 0 turns emulator tracing on for every launch


def trace_capacity(job: KernelJob) -> int:
    """Trace buffer size for an emulated launch: the job's (fmhactl trace) or the environment's
    (tracing on under verify, to show it changes no result); 0 (the default) keeps tracing off."""
    import os

    value = job.options.get("trace_capacity") or os.environ.get(TRACE_CAPACITY_ENV) or 0
    return max(0, int(value))


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

    def synchronize(self, job: KernelJob) -> None:
        """Wait for the launch; for emulated launches, raise EmulationViolations on broken tcgen05 rules."""
        torch = _torch()
        stream = torch.cuda.current_stream().cuda_stream
        driver.synchronize(stream)
        if job.emulated:
            self._emulation.finish(self._modules[job.cubin], stream)

    @staticmethod
    def _sm_count() -> int:
        return sm_count(_torch().cuda.current_device())

    def _function(self, job: KernelJob):
        cubin = job.cubin
        if cubin not in self._modules:
            self._modules[cubin] = driver.LoadedModule(Path(cubin), job.cubin_sha256)
        return self._modules[cubin].function(job.kernel)

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

        q, k = draw(cfg.seq_q, cfg.heads), draw(cfg.seq_k, cfg.heads_kv)
        return q, k, (k if cfg.kv_shared else draw(cfg.seq_k, cfg.heads_kv))  # kv_shared: V is K's buffer

    @staticmethod
    def poisoned_outputs(cfg: AttnConfig):
        torch = _torch()
        o = torch.empty(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, device="cuda", dtype=torch_dtype(cfg.dtype))
        o.view(torch.int16).fill_(POISON_16)
        lse = torch.empty(cfg.batch, cfg.heads, cfg.seq_q, device="cuda", dtype=torch.float32)
        lse.view(torch.int32).fill_(POISON_32)
        return o, lse

    def launch_args(self, job: KernelJob, cfg: AttnConfig, q, k, v, o, lse, checkpoints=None,
                    scale: float | None = None, features: FeatureInputs | None = None):
        """(function, launch shape, by-value arguments) of one launch on the current stream:
        the parameter block, then the tensor maps for the launchers that take them. A config with
        sinks or top-k and no `features` gets those drawn from the job's seed."""
        torch = _torch()
        if features is None and (cfg.sink or cfg.topk or cfg.key_ranges):
            features = make_feature_inputs(cfg, job.seed)
        features = features or FeatureInputs()
        fn = self._function(job)
        shape = job.launch_shape(self._sm_count())
        stream = torch.cuda.current_stream().cuda_stream
        args = [make_params(cfg, q, k, v, o, lse, scale=scale, checkpoints=checkpoints,
                            tile_counter=self.tile_counter(job, stream), sinks=features.sinks,
                            topk_idx=features.topk_idx, key_ranges=features.key_ranges)]
        if job.params:  # a kernel with its own params struct: the declared field mapping
            from fmhactl.project.abi import adapt_arguments, adapt_params
            from fmhactl.project.tensor_maps import map_fields
            from fmhactl.runtime.project_maps import encode_fields

            maps = encode_fields(job.params, args[0], cfg.dtype, job.switches) if map_fields(job.params) else None
            block = adapt_params(job.params, args[0], maps)
            args = adapt_arguments(job.params, block) if job.params_as == "arguments" else [block]
        if job.launcher == "sm100":
            args.append(self._tma_maps(job, cfg, q, k, v))
        elif job.launcher == "sm90":
            args.append(self._sm90_maps(job, cfg, q, k, v, o))
        elif job.launcher in SPLIT_PLANNERS:
            args.append(self.gather_split(job, cfg, stream))
        return fn, shape, args

    def launch(self, job: KernelJob, cfg: AttnConfig, q, k, v, o, lse, checkpoints=None,
               scale: float | None = None, features: FeatureInputs | None = None) -> None:
        torch = _torch()
        fn, shape, args = self.launch_args(job, cfg, q, k, v, o, lse, checkpoints=checkpoints, scale=scale,
                                           features=features)
        stream = torch.cuda.current_stream().cuda_stream
        if job.emulated:
            # ctas_per_sm: the co-residency the launcher's plan decided (SM100: fmhactl/plans/sm100.py).
            session = self._emulation.prepare(self._modules[job.cubin], shape.grid, stream, job.seed,
                                              shape.ctas_per_sm, trace_capacity(job))
            from fmhactl.runtime.project_maps import declared_boxes

            # a project kernel's own tensor maps ([] for others): a TMA store is watched on its whole box
            session.declare_tensor_maps(declared_boxes(args))
        with launch_range(job.variant, cfg.key):
            driver.launch(fn, shape.grid, shape.block, shape.dynamic_smem, stream, *args)

    def prepared_launch(self, job: KernelJob, cfg: AttnConfig, q, k, v, o, lse):
        """A zero-argument callable that only enqueues the kernel: parameters, tensor maps and the
        SMEM attribute are settled once, so a timed launch carries no host-side preparation (for
        short kernels that preparation is longer than the kernel and would be timed as idle GPU)."""
        from cuda.bindings import driver as cu

        torch = _torch()
        if job.emulated:
            return lambda: self.launch(job, cfg, q, k, v, o, lse)
        features = make_feature_inputs(cfg, job.seed) if cfg.sink or cfg.topk or cfg.key_ranges else None
        fn, shape, args = self.launch_args(job, cfg, q, k, v, o, lse, features=features)
        driver.allow_dynamic_smem(fn, shape.dynamic_smem)
        import ctypes

        arg_ptrs = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])
        stream = cu.CUstream(torch.cuda.current_stream().cuda_stream)
        keep = (args, arg_ptrs, features)  # the argument buffers (and feature tensors) outlive every launch

        def go() -> None:
            driver.check(cu.cuLaunchKernel(fn, *shape.grid, *shape.block, shape.dynamic_smem, stream,
                                           ctypes.addressof(keep[1]), 0), "cuLaunchKernel")

        return go

    def tile_counter(self, job: KernelJob, stream: int):
        """The persistent SM90 kernel's work counter (FmhaParams.tile_counter), one per stream.

        It starts at zero and every launch leaves it at zero (the last CTA resets it), so launches
        ordered on one stream share it without a memset in between; two streams sharing one would
        race, hence one per stream. None for kernels that do not claim tiles."""
        if job.launcher != "sm90" or not sm90_persistent(job.switches):
            return None
        torch = _torch()
        counters = self.__dict__.setdefault("_tile_counters", {})
        key = (torch.cuda.current_device(), stream)
        if key not in counters:
            counters[key] = torch.zeros(2, dtype=torch.int32, device="cuda")
        return counters[key]

    def gather_split(self, job: KernelJob, cfg: AttnConfig, stream: int):
        """sm90_mqa_gather's second argument (GatherSplit, fmhactl/plans/sm90_gather.py): the split
        count of the launch's plan and, when it splits, the partial-O/LSE workspace and the merge
        counters, one set per (device, stream) like tile_counter (the counters start at zero and
        every launch leaves them at zero), grown to the largest launch seen."""
        from fmhactl.runtime.params import GatherSplit

        torch = _torch()
        plan = SPLIT_PLANNERS[job.launcher](cfg, job.switches, self._sm_count())
        split = GatherSplit()
        split.splits = plan.splits
        if plan.splits == 1:
            return split
        floats = plan.workspace_floats(cfg.seq_q, cfg.heads, cfg.batch)
        counters = plan.counters(cfg.seq_q, cfg.heads_kv, cfg.batch)
        spaces = self.__dict__.setdefault("_gather_workspaces", {})
        key = (torch.cuda.current_device(), stream)
        space = spaces.get(key)
        if space is None or space[0].numel() < floats or space[1].numel() < counters:
            old = (0, 0) if space is None else (space[0].numel(), space[1].numel())
            space = (torch.empty(max(floats, old[0]), dtype=torch.float32, device="cuda"),
                     torch.zeros(max(counters, old[1]), dtype=torch.int32, device="cuda"))
            if key in spaces:  # a prepared launch may still hold the old pointers: keep them alive
                self.__dict__.setdefault("_gather_retired", []).append(spaces[key])
            spaces[key] = space
        rows = cfg.batch * cfg.seq_q * cfg.heads
        split.o_partial = space[0].data_ptr()
        split.lse_partial = space[0].data_ptr() + 4 * plan.splits * rows * cfg.head_dim
        split.counters = space[1].data_ptr()
        return split

    @staticmethod
    def _tma_maps(job: KernelJob, cfg: AttnConfig, q, k, v):
        """The SM100 kernel's second parameter: real tensor maps for TMA variants, zeros otherwise.
        The boxes follow the entry's plan (BlockN keys per K/V tile)."""
        from fmhactl.runtime.tma_maps import FmhaTmaMaps, fmha_maps

        if not int(job.switches.get("FMHA_LOAD_TMA", 0)):
            return FmhaTmaMaps()
        plan = job.tile_plan
        return fmha_maps(q, k, v, plan.block_m, plan.block_n)

    def _sm90_maps(self, job: KernelJob, cfg: AttnConfig, q, k, v, o):
        """The SM90 kernel's second parameter: TMA maps for the Q/K/V loads and the O store.

        Encoding four maps costs far more host time than a small launch takes on the GPU, so
        maps are cached by everything they encode (addresses, shapes, strides, dtype, boxes);
        bench rotates over a fixed set of input buffers and hits the cache after one pass.
        """
        from fmhactl.runtime.tma_maps import sm90_maps

        plan = job.tile_plan
        key = (plan.block_m, plan.block_n, str(q.dtype)) + tuple(
            (t.data_ptr(), tuple(t.shape), tuple(t.stride())) for t in (q, k, v, o))
        cache = self.__dict__.setdefault("_sm90_map_cache", {})
        if key not in cache:
            if len(cache) > 256:
                cache.clear()
            cache[key] = sm90_maps(q, k, v, o, plan.block_m, plan.block_n)
        return cache[key]

    def run(self, job: KernelJob) -> dict:
        """One launch with no reference: did it finish, write every element, produce NaNs?"""
        torch = _torch()
        cfg = job.config
        q, k, v = self.make_inputs(cfg, job.seed)
        o, lse = self.poisoned_outputs(cfg)
        if not job.writes_lse:  # a project kernel without the "lse" feature gets a null LSE
            lse = None
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        self.launch(job, cfg, q, k, v, o, lse)
        end.record()
        self.synchronize(job)
        unwritten = int((o.view(torch.int16) == POISON_16).sum().item())
        lse_unwritten = int((lse.view(torch.int32) == POISON_32).sum().item()) if lse is not None else 0
        values = o.float()
        metrics = {"elapsed_ms": start.elapsed_time(end), "unwritten": unwritten, "lse_unwritten": lse_unwritten,
                   "nan": int(torch.isnan(values).sum().item()) - unwritten,
                   "out_abs_max": float(values.nan_to_num(0.0).abs().max().item())}
        if job.options.get("trace_out") and job.emulated:
            from fmhactl.runtime.trace_raw import write_raw

            events, dropped = self._emulation.trace_events(self._modules[job.cubin])
            write_raw(Path(job.options["trace_out"]), events)
            metrics.update(trace_events=len(events), trace_dropped=dropped)
        return {"status": "OK" if unwritten == 0 and lse_unwritten == 0 else "FAIL", "metrics": metrics}

    def dump(self, job: KernelJob) -> dict:
        """Run a checkpoint build once and compare one checkpoint with its expected value."""
        from fmhactl.runtime import checkpoints as ckpt
        from fmhactl.runtime.params import make_params as _params

        torch = _torch()
        cfg = job.config
        q, k, v = self.make_inputs(cfg, job.seed)
        o, lse = self.poisoned_outputs(cfg)
        layout = ckpt.CheckpointLayout(cfg.head_dim)
        buffer = torch.full((layout.nbytes,), 0xFF, dtype=torch.uint8, device="cuda")
        self.launch(job, cfg, q, k, v, o, lse, checkpoints=buffer)
        self.synchronize(job)
        at = job.options["at"]
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
        if job.options.get("out"):  # `fmhactl dump --out FILE`: the whole checkpoint, for `fmhactl tui`
            from fmhactl.runtime.dumpfile import write_from_worker

            write_from_worker(job.options["out"], {**job.to_dict(), "config_key": cfg.key}, at, got, want, report, cfg.head_dim,
                              cfg.dtype)
            report["out"] = job.options["out"]
        return {"status": "PASS" if report["mismatches"] == 0 else "FAIL", "metrics": report}

    def tmem_sharing(self, job: KernelJob) -> dict:
        """Strict emulation: the residency the launch planned beside what the emulator's per-SM TMEM
        pools saw (most CTAs that held TMEM on one SM at once, allocs that waited)."""
        if not job.emulated:
            return {}
        cfg = job.config
        stats = self._emulation.stats(self._modules[job.cubin])
        return {"tmem_pools": {"planned_ctas_per_sm": job.launch_shape(self._sm_count()).ctas_per_sm,
                               **stats}}
