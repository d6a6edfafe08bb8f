"""In-process kernel launch for the torch op: build once, load once per device, launch on torch's stream.

This reuses the runtime the CLI uses (the NVRTC build cache of fmhactl.build.compiler, cubins
loaded with the driver API by fmhactl.runtime.execute.Executor, the same parameter block and
launch geometry) but runs inside the caller's process, not in the isolated worker: a model
calls the op thousands of times, and a kernel fault here is the caller's fault to see.
Nothing here synchronises the host with the GPU (except in the debug-only emulated mode, which
must read back its conformance records after every launch).
"""

from __future__ import annotations

import dataclasses
import functools
import threading

from fmhactl.config import AttnConfig
from fmhactl.runtime.kernel_job import KernelJob
from fmhactl.registry import Variant, load_registry
from fmhactl.torch.backends import Backend, kernel_head_dim

_lock = threading.Lock()
_executors: dict[int, object] = {}  # device index -> Executor (its loaded modules live in that device's context)
_builds: dict[tuple[str, str, bool], str] = {}  # (variant, arch, emulated) -> cubin path


@functools.cache
def registry() -> dict[str, Variant]:
    """kernels/family.toml, read once per process: the op runs fmhactl's own family whatever kernel
    project the working directory is in (docs/kernel-abi.md)."""
    from fmhactl import paths

    return load_registry(paths.kernels_dir() / "family.toml")


def executor(device_index: int):
    with _lock:
        if device_index not in _executors:
            from fmhactl.runtime.execute import Executor

            _executors[device_index] = Executor()
        return _executors[device_index]


def cubin_for(backend: Backend) -> str:
    """The cubin of a backend, compiled through the NVRTC build cache on first use in this process."""
    key = (backend.variant, backend.arch, backend.mode == "emulated")
    with _lock:
        if key not in _builds:
            from fmhactl.build.compiler import BuildTarget
            from fmhactl.build.entry import build

            result = build(registry()[backend.variant], BuildTarget(backend.arch, emulated=key[2]))
            _builds[key] = str(result.cubin_path)
        return _builds[key]


def kernel_config(backend: Backend, cfg: AttnConfig) -> AttnConfig:
    """cfg at the head dim of the kernel that runs it (backends.kernel_head_dim): the wider entry's
    under TMA zero fill, whose tensor maps still cover the caller's narrower tensors."""
    head_dim = kernel_head_dim(backend, cfg.head_dim)
    return cfg if head_dim == cfg.head_dim else dataclasses.replace(cfg, head_dim=head_dim)


def job_for(backend: Backend, cfg: AttnConfig) -> KernelJob:
    """The in-process launch's job (the same record the worker gets; no seed: the op's inputs are
    given). cfg: the call's; the job's config is the kernel's (kernel_config): its entry name, tile
    plan, launch geometry and parameter block are the wider head dim's under TMA zero fill."""
    variant = registry()[backend.variant]
    cfg = kernel_config(backend, cfg)
    return KernelJob(op="run", variant=variant.name, kernel=variant.entry(cfg.dtype, cfg.head_dim),
                     cubin=cubin_for(backend), launcher=variant.launcher, switches=dict(variant.switches), config=cfg,
                     seed=0, mode=backend.mode)


def launch(backend: Backend, cfg: AttnConfig, q, k, v, o, lse, scale: float, device_index: int,
           features=None) -> None:
    """One launch on the current stream of the tensors' device; q/k/v/o indexed (batch, seq, heads, dim)
    at the call's head dim (under TMA zero fill narrower than the kernel's: job_for); scale: the call's;
    features: the call's sinks and top-k lists (fmhactl.runtime.features.FeatureInputs) when cfg has them."""
    runner = executor(device_index)
    job = job_for(backend, cfg)
    runner.launch(job, job.config, q, k, v, o, lse, scale=scale, features=features)
    if backend.mode == "emulated":
        # The emulation reports broken tcgen05 rules only after the kernel finished.
        runner.synchronize(job)


def needs_copy(launcher: str, tensor) -> bool:
    """Whether a (batch, seq, heads, dim) view must be made contiguous before the kernel can read it.

    Every kernel needs a unit-stride head dim. `ref` reads elements one by one, so any other
    strides are fine (including 0, a broadcast KV head). Kernels that load tiles (TMA, 16-byte
    vectors) need a 16-byte aligned base and 16-byte multiples for the other strides.
    """
    if tensor.stride(-1) != 1:
        return True
    if launcher == "ref":
        return False
    elem = tensor.element_size()
    if tensor.data_ptr() % 16:
        return True
    return any(s == 0 or (s * elem) % 16 for s in tensor.stride()[:-1])


def readable(launcher: str, tensor):
    """The view itself, or a fresh contiguous copy where the kernel cannot read it (needs_copy).

    A copy, not .contiguous(): torch calls a view contiguous whatever its base address and the
    strides of its size-1 dims, so .contiguous() hands a single-token view 2 bytes off a 16-byte
    boundary back unchanged, and its TMA map is then refused (found by tests/torch/test_op_random_gpu.py)."""
    if not needs_copy(launcher, tensor):
        return tensor
    import torch

    return tensor.clone(memory_format=torch.contiguous_format)
