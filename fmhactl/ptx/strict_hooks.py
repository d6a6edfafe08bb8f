"""Strict PTX path: the calls the rewriter adds around the PTX's mbarrier, TMA and proxy-fence lines.

Strict semantics (docs/emulation-strict.md) complete an MMA only when a thread observes the
mbarrier its commit arrives on, and check the ld/st waits and tcgen05 fences at mbarrier arrives
and waits. In the tc5:: strict build `mbarrier.cuh` and `tma.cuh` call the strict emulator's hooks;
in a PTX module these instructions are written by hand (or by CuTeDSL, CUTLASS, ...), so the
rewriter keeps each one as written and adds the same hooks around it:

- `mbarrier.init`                       -> after:  tc5ptx_mbar_init(bar, count)
- `mbarrier.arrive[.expect_tx]`, `arrive_drop` -> before: tc5ptx_mbar_arrive(bar, tx bytes or 0)
- `mbarrier.try_wait` / `test_wait`     -> before: tc5ptx_mbar_poll(bar); after: tc5ptx_mbar_observed(bar, done)
- `cp.async.bulk[.tensor]` ... `mbarrier::complete_tx` -> before: tc5ptx_tma_load(dst, bar)
- `fence.proxy.async`                   -> after:  tc5ptx_fence_proxy_async()
- `cp.async.bulk.tensor` tile store (global <- shared) -> guard: tc5ptx_tma_store_check(c0..c4, ndims);
  a 0 result skips the store (a box starting at a negative coordinate: see `store_guard`)

Addresses are passed as shared-window (.shared::cta) addresses; a generic address (no `.shared`
in the opcode) is converted with cvta.to.shared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fmhactl.ptx.parser import split_operands

_LINE = re.compile(r"^(?P<indent>\s*)(?:(?P<label>[$\w]+):\s*)?(?:@(?P<pred>!?%?[\w$]+)\s+)?"
                   r"(?P<opcode>(?:mbarrier|cp\.async\.bulk|fence\.proxy\.async)[^\s;]*)\s*(?P<operands>[^;]*);"
                   r"\s*(?://.*)?$")
TMA_STORE_CHECK = "tc5ptx_tma_store_check"
HOOKS = ("tc5ptx_mbar_init", "tc5ptx_mbar_arrive", "tc5ptx_mbar_poll", "tc5ptx_mbar_observed", "tc5ptx_tma_load",
         "tc5ptx_fence_proxy_async", TMA_STORE_CHECK)
MAX_TMA_COORDS = 5
# dst.src of a bulk tensor copy into global memory: a TMA store (loads are .shared::cluster.global / .shared::cta.global)
_TMA_STORE = re.compile(r"^cp\.async\.bulk\.tensor\.[1-5]d\.global\.shared::(?:cta|cluster)(?:\.|$)")


@dataclass(frozen=True)
class HookCall:
    """One emulator call: its entry point and arguments (PTX operands, already-typed values)."""

    entry: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Hooked:
    """A PTX line that gets hook calls: the label and predicate it carries, what runs before and after."""

    label: str | None
    predicate: str | None
    before: tuple[HookCall, ...]
    after: tuple[HookCall, ...]
    generic: bool            # addresses are generic: convert to the shared window first
    guard: HookCall | None = None  # called first; its u32 result 0 skips the line (and its after hooks)


def hooks_of(line: str, site: int) -> Hooked | None:
    """The strict hooks a PTX line needs (None: the line is not an mbarrier/TMA/proxy-fence instruction)."""
    stripped = line.strip()
    if not stripped.startswith(("mbarrier", "cp.async.bulk", "fence.proxy.async", "@", "$")) or \
            not re.search(r"mbarrier\.|cp\.async\.bulk|fence\.proxy\.async", stripped):
        return None
    m = _LINE.match(line)
    if m is None:
        return None
    opcode, ops = m.group("opcode"), split_operands(m.group("operands"))
    s = str(site)
    generic = ".shared" not in opcode
    before: list[HookCall] = []
    after: list[HookCall] = []
    if opcode.startswith("mbarrier.init") and len(ops) == 2:
        after.append(HookCall("tc5ptx_mbar_init", (ops[0], ops[1], s)))
    elif opcode.startswith(("mbarrier.arrive", "mbarrier.arrive_drop")) and len(ops) >= 2:
        tx = ops[2] if ".expect_tx" in opcode and len(ops) >= 3 else "0"
        before.append(HookCall("tc5ptx_mbar_arrive", (ops[1], tx, s)))
    elif opcode.startswith(("mbarrier.try_wait", "mbarrier.test_wait")) and len(ops) >= 2:
        before.append(HookCall("tc5ptx_mbar_poll", (ops[1], s)))
        after.append(HookCall("tc5ptx_mbar_observed", (ops[1], "?" + ops[0], s)))
    elif opcode.startswith("cp.async.bulk") and "mbarrier::complete_tx" in opcode and ops:
        # tensor: [dst], [tensorMap, {coords}], [mbar]; plain bulk: [dst], [src], size, [mbar]
        bar_index = 2 if opcode.startswith("cp.async.bulk.tensor") else 3
        if len(ops) > bar_index and ops[0].startswith("[") and ops[bar_index].startswith("["):
            before.append(HookCall("tc5ptx_tma_load", (ops[0], ops[bar_index], s)))
        generic = False  # destination and mbarrier of a bulk copy are shared::cluster/cta addresses
    elif opcode.startswith("fence.proxy.async") and ("shared" in opcode or opcode == "fence.proxy.async"):
        after.append(HookCall("tc5ptx_fence_proxy_async", (s,)))
        generic = False
    guard = store_guard(opcode, ops, s)
    if not before and not after and guard is None:
        return None
    return Hooked(m.group("label"), m.group("pred"), tuple(before), tuple(after), generic, guard)


def store_guard(opcode: str, ops: tuple[str, ...], site: str) -> HookCall | None:
    """tc5ptx_tma_store_check(c0..c4, ndims, site) for a TMA tile store, None for any other line.

    A store box that starts at a negative coordinate is an illegal instruction on sm_90 that kills
    the CUDA context (scripts/device/tma_negative_probe.cu, H200); the PTX ISA documents
    out-of-bound elements of a box, not a negative start, so what sm_100 does is unknown. The
    strict build names it (tma-store-negative) and skips the store instead. im2col stores were not
    probed and are left alone.
    """
    if not _TMA_STORE.match(opcode) or ".im2col" in opcode or len(ops) < 2:
        return None
    coords = tensor_coordinates(ops[0])
    if not coords or len(coords) > MAX_TMA_COORDS:
        return None
    padded = coords + ("0",) * (MAX_TMA_COORDS - len(coords))
    return HookCall(TMA_STORE_CHECK, (*padded, str(len(coords)), site))


def tensor_coordinates(operand: str) -> tuple[str, ...]:
    """The coordinates of a `[tensorMap, {c0, c1, ...}]` operand (empty when it has another shape)."""
    inner = operand.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        return ()
    parts = split_operands(inner[1:-1])
    if len(parts) != 2 or not (parts[1].startswith("{") and parts[1].endswith("}")):
        return ()
    return split_operands(parts[1][1:-1])
