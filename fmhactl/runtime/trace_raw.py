"""The raw trace file the emulated launch writes (runtime side); fmhactl.trace.events reads it back.

One record per event, RAW_FORMAT: time_ns, kind (runtime/emulation.TRACE_EVENTS), block, warp, site, a, b.
"""

from __future__ import annotations

import struct
from pathlib import Path

RAW_FORMAT = "<QIIIIII"  # time_ns, kind, block, warp, site, a, b (32 bytes, no padding)
RAW_SIZE = struct.calcsize(RAW_FORMAT)


def to_bytes(records) -> bytes:
    """From ctypes TraceEvent objects (EmulationSession.trace_events) or (time, kind, block, warp, site, a, b)."""
    return b"".join(struct.pack(RAW_FORMAT, *((r if isinstance(r, tuple) else
                                                (r.time_ns, r.kind, r.block, r.warp, r.site, r.a, r.b))))
                    for r in records)


def write_raw(path: Path, records) -> None:
    path.write_bytes(to_bytes(records))
