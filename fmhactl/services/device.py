"""device: is there a usable GPU, and why not (the TUI greys out GPU actions with this reason)."""

from __future__ import annotations

from fmhactl.runtime.device import DeviceStatus, probe


def gpu_status() -> DeviceStatus:
    return probe()
