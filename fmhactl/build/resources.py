"""Per-kernel resource usage, read from ptxas' verbose report in the compiler log."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[0\]")


@dataclass
class KernelResources:
    kernel: str
    registers: int = 0
    static_smem: int = 0
    stack_bytes: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    param_cmem: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def parse_ptxas_log(log: str) -> list[KernelResources]:
    kernels: list[KernelResources] = []
    current: KernelResources | None = None
    for line in log.splitlines():
        if m := _ENTRY.search(line):
            current = KernelResources(kernel=m.group(1))
            kernels.append(current)
            continue
        if current is None:
            continue
        if m := _FRAME.search(line):
            current.stack_bytes, current.spill_stores, current.spill_loads = map(int, m.groups())
        if m := _USED.search(line):
            current.registers = int(m.group(1))
            if s := _SMEM.search(line):
                current.static_smem = int(s.group(1))
            if c := _CMEM.search(line):
                current.param_cmem = int(c.group(1))
    return kernels
