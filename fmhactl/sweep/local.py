"""The local backend: one isolated worker process per device, pinned through its environment."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence

from fmhactl.errors import FmhactlError, MissingEnvironment
from fmhactl.runtime.pool import KernelWorker
from fmhactl.sweep.devices import Device
from fmhactl.sweep.scheduler import Backend, Slot, SlotLost

GPU_WORKER = [sys.executable, "-m", "fmhactl.runtime.worker"]
CPU_WORKER = [sys.executable, "-m", "fmhactl.sweep.cpu_worker"]


def default_command(device: Device) -> list[str]:
    return list(GPU_WORKER if device.kind == "gpu" else CPU_WORKER)


class LocalSlot(Slot):
    """A KernelWorker confined to one device; it replaces itself after a CRASH or HANG."""

    def __init__(self, device: Device, timeout_s: float, command: list[str]) -> None:
        self.device = device
        self.label = device.label
        self.worker = KernelWorker(timeout_s, command=command, env=device.pin_env())
        self.hello: dict = {}
        self._closing = threading.Lock()

    def start(self) -> dict:
        hello = self.worker.start()
        self.hello = {**hello, "placement": {**self.device.to_dict(), "backend": "local"}}
        return self.hello

    def run(self, job: dict) -> dict:
        try:
            return self.worker.run(job)
        except MissingEnvironment as exc:  # a fresh worker would not start: the device is gone
            raise SlotLost(f"{self.label}: {exc}") from None

    def close(self) -> None:
        # The serving thread and the backend's final clean-up may both close a slot.
        with self._closing:
            self.worker.close()


class LocalBackend(Backend):
    name = "local"

    def __init__(self, devices: Sequence[Device], *, timeout_s: float,
                 command: Callable[[Device], list[str]] = default_command) -> None:
        self.devices = list(devices)
        self.timeout_s = timeout_s
        self._command = command
        self._open: list[LocalSlot] = []
        self._lock = threading.Lock()

    def _slot(self, device: Device) -> LocalSlot:
        slot = LocalSlot(device, self.timeout_s, self._command(device))
        with self._lock:
            self._open.append(slot)
        return slot

    def open_slots(self) -> list[Slot]:
        return [self._slot(d) for d in self.devices]

    def replace(self, lost: Slot) -> Slot | None:
        assert isinstance(lost, LocalSlot)
        slot = self._slot(lost.device)
        try:
            slot.start()
        except FmhactlError:
            slot.close()
            return None
        return slot

    def close(self) -> None:
        with self._lock:
            slots, self._open = self._open, []
        for slot in slots:
            slot.close()
