"""The one GPU probe: is there a usable GPU here, which arch, and why not.

Two questions, asked in one place:
- `probe()` (parent process, no CUDA context, cached): the CUDA driver's device 0, its compute
  capability and build arch. `FMHACTL_ASSUME_NO_GPU=1` makes it answer "no GPU" (tests, CI).
- `worker_device_info()` (inside the kernel worker, which owns torch's context): what the
  worker reports in its hello line.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass

from fmhactl.errors import MissingEnvironment

_ARCH_OF_MAJOR = {8: "sm_80", 9: "sm_90a", 10: "sm_100a"}


def gpu_arch(cc: list[int] | tuple[int, int]) -> str | None:
    """The build arch for a compute capability (sm_90a for 9.x, ...), None when fmhactl has none."""
    return _ARCH_OF_MAJOR.get(int(cc[0]))


@dataclass(frozen=True)
class DeviceStatus:
    available: bool
    arch: str | None = None
    name: str = ""
    cc: tuple[int, int] | None = None
    reason: str = ""  # why not available


@functools.cache
def _probe_driver() -> DeviceStatus:
    try:
        from cuda.bindings import driver
    except ImportError as exc:
        return DeviceStatus(False, reason=f"cuda-bindings not importable: {exc}")
    try:
        (err,) = driver.cuInit(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return DeviceStatus(False, reason=f"cuInit failed: {err.name if hasattr(err, 'name') else err}")
        err, device = driver.cuDeviceGet(0)
        if err != driver.CUresult.CUDA_SUCCESS:
            return DeviceStatus(False, reason=f"no CUDA device: {err}")
        attr = driver.CUdevice_attribute
        _, major = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
        _, minor = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
        _, raw = driver.cuDeviceGetName(256, device)
        name = raw.split(b"\0", 1)[0].decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    except Exception as exc:  # noqa: BLE001 - any driver failure means "no usable GPU"
        if type(exc).__name__ == "DynamicLibNotFoundError":
            return DeviceStatus(False, reason="the NVIDIA driver library (libcuda) is not installed")
        return DeviceStatus(False, reason=f"CUDA driver unusable: {type(exc).__name__}: {exc}")
    arch = gpu_arch((major, minor))
    if arch is None:
        return DeviceStatus(False, name=name, cc=(major, minor),
                            reason=f"no build target for compute capability {major}.{minor}")
    return DeviceStatus(True, arch=arch, name=name, cc=(major, minor))


def probe() -> DeviceStatus:
    """The GPU this process would use (device 0), asked of the driver without creating a context."""
    if os.environ.get("FMHACTL_ASSUME_NO_GPU"):
        return DeviceStatus(False, reason="FMHACTL_ASSUME_NO_GPU is set")
    return _probe_driver()


NO_GPU = "no GPU usable here"


def no_gpu(reason: str) -> MissingEnvironment:
    """The one GPU-missing error of every command (exit 3): the same words, then why."""
    return MissingEnvironment(f"{NO_GPU} ({reason or 'unknown reason'})")


def require_gpu() -> DeviceStatus:
    """The usable GPU here, or the GPU-missing error; called after every input is validated."""
    status = probe()
    if not status.available or status.arch is None:
        raise no_gpu(status.reason)
    return status


def native_arch() -> str:
    """The build arch of the GPU here; MissingEnvironment (exit 3) when there is none."""
    return str(require_gpu().arch)


def worker_device_info() -> dict:
    """The kernel worker's hello: the GPU (making torch's primary context current), or why none."""
    import torch

    from fmhactl.runtime import driver

    if not torch.cuda.is_available():
        return {"gpu": None, "reason": "no CUDA GPU visible to torch"}
    props = torch.cuda.get_device_properties(0)
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # make torch's primary context current for the driver API
    return {"gpu": props.name, "cc": [props.major, props.minor], "sms": props.multi_processor_count,
            "l2_bytes": getattr(props, "L2_cache_size", 0), "driver": driver.driver_version(),
            "torch": torch.__version__}


@functools.cache
def sm_count(index: int) -> int:
    """Multiprocessors of CUDA device `index` (the grid of a persistent kernel: one CTA per SM)."""
    import torch

    return int(torch.cuda.get_device_properties(index).multi_processor_count)


@functools.cache
def torch_device_capability(index: int) -> tuple[int, int]:
    """Compute capability of CUDA device `index` as torch sees it (in-process callers: fmhactl.torch)."""
    import torch

    major, minor = torch.cuda.get_device_capability(index)
    return int(major), int(minor)
