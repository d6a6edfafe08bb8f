"""Decoding the strict emulator's raw trace (Tc5TraceEvent, kernels/common/tcgen05_errors.h).

The input is the raw event array exactly as the device wrote it (buffer order = the order of the
atomicAdd that reserved each slot, which respects happens-before; %globaltimer is too coarse to
order events, so it is kept only for reference). Decoding splits it per CTA and per warp, names
barriers from the kernel source line of their mbarrier.init, and groups each barrier's arrives
into phases using the expected-arrival count recorded at init.
"""

from __future__ import annotations

import re
import struct
from collections import defaultdict
from dataclasses import dataclass, field

from fmhactl.errors import BadInput
from fmhactl.runtime.emulation import TRACE_EVENTS
from fmhactl.runtime.trace_raw import RAW_FORMAT, RAW_SIZE
from fmhactl.runtime.trace_raw import to_bytes as to_bytes  # the writer side, re-exported for readers

KIND_NAMES: dict[int, str] = {code: name for name, code in TRACE_EVENTS.items()}
# Work the emulator does on a polling warp's behalf: not part of that warp's program.
EMULATOR_SIDE = frozenset({"mma_complete", "commit_arrive"})
WARP_SIZE = 32
# Warp roles of kernels/sm100/fmha_sm100.cuh, read from its kMmaWarp / kLoadWarp constants.
ROLE_NAMES = {"softmax": "softmax/correction/epilogue", "mma": "MMA issue", "load": "load (TMA)"}


@dataclass(frozen=True)
class Event:
    index: int      # position in the device buffer
    time_ns: int
    kind: str
    block: int
    warp: int
    site: int
    a: int
    b: int


def events_from_records(records) -> list[Event]:
    """From ctypes TraceEvent objects (EmulationSession.trace_events) or (time, kind, block, warp, site, a, b)."""
    out: list[Event] = []
    for i, r in enumerate(records):
        t, kind, block, warp, site, a, b = (r if isinstance(r, tuple) else
                                            (r.time_ns, r.kind, r.block, r.warp, r.site, r.a, r.b))
        if kind not in KIND_NAMES:
            raise BadInput(f"trace event {i}: unknown kind {kind} (known: 1..{max(KIND_NAMES)})")
        out.append(Event(i, int(t), KIND_NAMES[kind], int(block), int(warp), int(site), int(a), int(b)))
    return out


def events_from_bytes(data: bytes) -> list[Event]:
    if len(data) % RAW_SIZE:
        raise BadInput(f"raw trace of {len(data)} bytes is not a whole number of {RAW_SIZE}-byte events")
    return events_from_records(list(struct.iter_unpack(RAW_FORMAT, data)))


@dataclass
class Barrier:
    address: int
    name: str
    expected: int          # arrivals per phase (mbarrier.init count); 0: init not traced
    events_per_phase: int  # traced arrive events per phase


@dataclass
class CtaTrace:
    """One CTA's events: the program of each warp, and what the emulator did on their behalf."""

    block: int
    events: list[Event]
    programs: dict[int, list[Event]] = field(default_factory=dict)
    barriers: dict[int, Barrier] = field(default_factory=dict)
    alloc_base: int = 0


_BAR_RE = re.compile(r"bar\s*\.\s*(\w+)(\s*\[)?")


def site_barrier_name(source_lines: list[str], site: int) -> str | None:
    """'kv_full' from `mbar::init(&bar.kv_full[s], 1);` at source line `site` (1-based)."""
    if not 1 <= site <= len(source_lines):
        return None
    m = _BAR_RE.search(source_lines[site - 1])
    return m.group(1) if m else None


def warp_roles(source_text: str, warps: int = 6) -> dict[int, str]:
    """Warp -> role, from the kernel's `constexpr int kMmaWarp = N;` / `kLoadWarp = N;`."""
    def const(name: str) -> int:
        m = re.search(rf"constexpr\s+int\s+{name}\s*=\s*(\d+)\s*;", source_text)
        if not m:
            raise BadInput(f"kernel source declares no `constexpr int {name}`: cannot name warp roles")
        return int(m.group(1))

    mma, load = const("kMmaWarp"), const("kLoadWarp")
    return {w: "mma" if w == mma else "load" if w == load else "softmax" for w in range(max(warps, mma + 1, load + 1))}


def decode(events: list[Event], source_lines: list[str] | None = None,
           roles: tuple[str, ...] = ()) -> list[CtaTrace]:
    """Split per CTA and warp; name barriers (by role from the plan when `roles` covers every
    initialised barrier, else from the kernel source line of their init); group arrives into phases."""
    source_lines = source_lines or []
    by_block: dict[int, list[Event]] = defaultdict(list)
    for e in events:
        by_block[e.block].append(e)
    ctas: list[CtaTrace] = []
    for block in sorted(by_block):
        evs = by_block[block]
        cta = CtaTrace(block, evs)
        for e in evs:
            if e.kind not in EMULATOR_SIDE:
                cta.programs.setdefault(e.warp, []).append(e)
            if e.kind == "alloc":
                cta.alloc_base = e.a
        _name_barriers(cta, source_lines, roles)
        ctas.append(cta)
    return ctas


def roles_by_address(init_addresses: list[int], roles: tuple[str, ...]) -> dict[int, str]:
    """Barrier address -> role, when the initialised barriers are exactly the plan's block of 8-byte
    words (lowest address = roles[0]); empty when they are not (another kernel, a partial trace)."""
    addresses = sorted(set(init_addresses))
    if not roles or len(addresses) != len(roles):
        return {}
    base = addresses[0]
    if any(a != base + 8 * i for i, a in enumerate(addresses)):
        return {}
    return {a: roles[i] for i, a in enumerate(addresses)}


def _name_barriers(cta: CtaTrace, source_lines: list[str], roles: tuple[str, ...] = ()) -> None:
    by_role = roles_by_address([e.a for e in cta.events if e.kind == "mbar_init"], roles)
    per_site: dict[int, int] = defaultdict(int)
    arrivers: dict[int, set[int]] = defaultdict(set)
    for e in cta.events:
        if e.kind == "arrive":
            arrivers[e.a].add(e.warp)
    for e in cta.events:
        if e.kind != "mbar_init" or e.a in cta.barriers:
            continue
        base = site_barrier_name(source_lines, e.site)
        index = per_site[e.site]
        per_site[e.site] += 1
        array = base is not None and 1 <= e.site <= len(source_lines) and "[" in source_lines[e.site - 1]
        name = by_role.get(e.a) or ((f"{base}[{index}]" if array else base) if base else f"mbar@0x{e.a:x}")
        cta.barriers[e.a] = Barrier(e.a, name, e.b, _events_per_phase(e.b, len(arrivers[e.a])))
    # Barriers used without a traced init (an older emulator): named from a use site, one event a phase.
    for e in cta.events:
        addr = e.a if e.kind in ("arrive", "wait_end", "wait_begin", "commit", "commit_arrive") else (
            e.b if e.kind == "tma_issue" else None)
        if addr is not None and addr not in cta.barriers:
            base = site_barrier_name(source_lines, e.site)
            cta.barriers[addr] = Barrier(addr, f"{base or 'mbar'}@0x{addr:x}", 0, 1)


def _events_per_phase(expected: int, arriving_warps: int) -> int:
    """Traced arrive events that complete one phase.

    The emulator records one event per warp-level arrive (the leader of the active lanes). A
    barrier expecting a multiple of 32 arrivals from several warps (p_full: 4 x 32) gets one event
    per warp; any other count is taken as one arrival per event (commits, single-thread arrives).
    """
    if expected >= WARP_SIZE and expected % WARP_SIZE == 0 and arriving_warps > 1:
        return expected // WARP_SIZE
    return max(1, expected)
