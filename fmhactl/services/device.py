"""device: is there a usable GPU, and why not (the TUI greys out GPU actions with this reason)."""

from __future__ import annotations

from fmhactl.runtime.device import DeviceStatus, no_gpu, probe


def gpu_status() -> DeviceStatus:
    return probe()


def gpu_missing_message(status: DeviceStatus) -> str:
    """The one GPU-missing text the CLI prints (runtime/device.no_gpu), for front ends that show it."""
    return str(no_gpu(status.reason))
