"""Per-kernel resource usage, read from ptxas' verbose report in the compiler log."""

from __future__ import annotations

import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from fmhactl.plans.hardware import SMEM_RESERVED_PER_BLOCK

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


_RESERVED_SMEM_SYMBOL = ".nv.reservedSmem"  # the ELF symbol of the driver's per-block reserve (sm_90+)
_RESOURCE_FN = re.compile(r"^\s*Function (\S+):\s*$")
_RESOURCE_VALUES = re.compile(r"REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)")
_SASS_FN = re.compile(r"^\s+Function : (\S+)\s*$")
_LOCAL_ACCESS = re.compile(r"\b(STL|LDL)(?:\.(64|128|U8|S8|U16|S16))?\b")
_ACCESS_BYTES = {None: 4, "64": 8, "128": 16, "U8": 1, "S8": 1, "U16": 2, "S16": 2}


def resources_from_cubin(cubin: Path) -> list[KernelResources]:
    """Per-entry resources read back from the cubin, for a compile whose log has no ptxas report.

    NVRTC can hand back a program without running ptxas again (seen on the lent H100 and H200: a
    0.1 s compile whose log held only front-end warnings), which leaves nothing to parse.
    Registers, stack and static SMEM come from `cuobjdump --dump-resource-usage`; spill bytes from
    the SASS (STL/LDL widths per entry), an upper bound: a local array the code indexes counts too.

    On sm_90 and later an entry's shared section also holds the 1 KiB the driver reserves per
    block (`.nv.reservedSmem`), which cuobjdump's SHARED counts and ptxas' "bytes smem" does not:
    it is taken off, so static SMEM means the kernel's own `__shared__` bytes on either path (the
    H200 read 1024 for sm90_mqa_decode, which has none)."""
    from fmhactl.build.sass import cuobjdump, sass

    tool = str(cuobjdump())
    proc = subprocess.run([tool, "--dump-resource-usage", str(cubin)], capture_output=True, text=True)
    elf = subprocess.run([tool, "-elf", str(cubin)], capture_output=True, text=True)
    reserved = SMEM_RESERVED_PER_BLOCK if _RESERVED_SMEM_SYMBOL in elf.stdout else 0
    kernels: dict[str, KernelResources] = {}
    name = None
    for line in proc.stdout.splitlines():
        if m := _RESOURCE_FN.match(line):
            name = m.group(1)
        elif name and (m := _RESOURCE_VALUES.search(line)):
            kernels[name] = KernelResources(kernel=name, registers=int(m.group(1)), stack_bytes=int(m.group(2)),
                                            static_smem=max(0, int(m.group(3)) - reserved))
            name = None
    current = None
    for line in sass(cubin).splitlines():
        if m := _SASS_FN.match(line):
            current = kernels.get(m.group(1))
        elif current is not None:
            for op, width in _LOCAL_ACCESS.findall(line):
                size = _ACCESS_BYTES.get(width or None, 4)
                if op == "STL":
                    current.spill_stores += size
                else:
                    current.spill_loads += size
    # "__" names are the compiler's own helpers (__internal_..., __cuda_...); "_Z..." is a C++ entry (a template instance)
    return [k for k in kernels.values() if not k.kernel.startswith("__")]
