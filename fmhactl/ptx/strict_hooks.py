"""Strict PTX path: the calls the rewriter adds around the PTX's mbarrier, TMA, bulk-group and proxy-fence lines.

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
- `cp{.reduce}.async.bulk.tensor` store, `.bulk_group` -> before: tc5ptx_bulk_store_tensor(map, src)
- `cp{.reduce}.async.bulk` (non-tensor) store, `.bulk_group` -> before: tc5ptx_bulk_store(src, size)
- `cp.async.bulk.commit_group`          -> after:  tc5ptx_bulk_commit()
- `cp.async.bulk.wait_group{.read} N`   -> after:  tc5ptx_bulk_wait(N)
  (the store's source is fingerprinted at issue and again when a wait_group retires its group:
  tma-store-source-overwritten; a store still pending when the CTA exits: tma-store-pending-at-exit)
- `cp.async.ca` / `cp.async.cg` (non-bulk, global -> shared) -> before: tc5ptx_cp_async(dst, cp-size)
- `cp.async.commit_group`               -> after:  tc5ptx_cp_async_commit()
- `cp.async.wait_group N` / `wait_all`  -> after:  tc5ptx_cp_async_wait(N, 0) / (0, 1)
- `cp.async.mbarrier.arrive{.noinc}`    -> after:  tc5ptx_cp_async_arrive(): the thread's copies count
  as complete (the mbarrier tracks them; a reader that never observes its phase is not caught)
  (an MMA that reads bytes of a copy no wait retired: cp-async-not-waited)

Addresses are passed as shared-window (.shared::cta) addresses; a generic address (no `.shared`
in the opcode) is converted with cvta.to.shared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fmhactl.ptx.parser import split_operands

_LINE = re.compile(r"^(?P<indent>\s*)(?:(?P<label>[$\w]+):\s*)?(?:@(?P<pred>!?%?[\w$]+)\s+)?"
                   r"(?P<opcode>(?:mbarrier|cp\.async|cp\.reduce\.async\.bulk|fence\.proxy\.async)[^\s;]*)\s*"
                   r"(?P<operands>[^;]*);\s*(?://.*)?$")
_HOOKED = re.compile(r"mbarrier\.|cp\.async|cp\.reduce\.async\.bulk|fence\.proxy\.async")
TMA_STORE_CHECK = "tc5ptx_tma_store_check"
BULK_STORE_TENSOR = "tc5ptx_bulk_store_tensor"
BULK_STORE = "tc5ptx_bulk_store"
BULK_COMMIT = "tc5ptx_bulk_commit"
BULK_WAIT = "tc5ptx_bulk_wait"
CP_ASYNC = "tc5ptx_cp_async"
CP_ASYNC_COMMIT = "tc5ptx_cp_async_commit"
CP_ASYNC_WAIT = "tc5ptx_cp_async_wait"
CP_ASYNC_ARRIVE = "tc5ptx_cp_async_arrive"
HOOKS = ("tc5ptx_mbar_init", "tc5ptx_mbar_arrive", "tc5ptx_mbar_poll", "tc5ptx_mbar_observed", "tc5ptx_tma_load",
         "tc5ptx_fence_proxy_async", TMA_STORE_CHECK, BULK_STORE_TENSOR, BULK_STORE, BULK_COMMIT, BULK_WAIT,
         CP_ASYNC, CP_ASYNC_COMMIT, CP_ASYNC_WAIT, CP_ASYNC_ARRIVE)
MAX_TMA_COORDS = 5
# dst.src of a bulk tensor copy into global memory: a TMA store (loads are .shared::cluster.global / .shared::cta.global)
_TMA_STORE = re.compile(r"^cp\.async\.bulk\.tensor\.[1-5]d\.global\.shared::(?:cta|cluster)(?:\.|$)")
# The copies that read shared memory into global memory, with or without a reduction: the ones a
# bulk async-group tracks when their completion mechanism is .bulk_group (PTX ISA, commit_group).
_BULK_TENSOR_STORE = re.compile(r"^cp\.(?:reduce\.)?async\.bulk\.tensor\.[1-5]d\.global\.shared::(?:cta|cluster)\.")
_BULK_STORE = re.compile(r"^cp\.(?:reduce\.)?async\.bulk\.global\.shared::(?:cta|cluster)\.")
# Load modes whose shared-memory footprint is not the map's tile box (im2col, scatter4).
_NOT_TILE = (".im2col", ".tile::scatter4")


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
    """The strict hooks a PTX line needs (None: the line is not an mbarrier, TMA, bulk-group or proxy-fence
    instruction)."""
    stripped = line.strip()
    if not stripped.startswith(("mbarrier", "cp.async", "cp.reduce.async.bulk", "fence.proxy.async", "@", "$")) \
            or not _HOOKED.search(stripped):
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
    elif opcode == "cp.async.bulk.commit_group" and not ops:
        after.append(HookCall(BULK_COMMIT, (s,)))
    elif opcode in ("cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read") and len(ops) == 1:
        after.append(HookCall(BULK_WAIT, (ops[0], s)))  # N as written: an integer constant (ptxas checks it)
    else:
        copy_hooks(opcode, ops, s, before, after)
    store = bulk_store_hook(opcode, ops, s)
    if store is not None:
        before.append(store)
    guard = store_guard(opcode, ops, s)
    if not before and not after and guard is None:
        return None
    return Hooked(m.group("label"), m.group("pred"), tuple(before), tuple(after), generic, guard)


def copy_hooks(opcode: str, ops: tuple[str, ...], site: str, before: list[HookCall], after: list[HookCall]) -> None:
    """The tracking calls of a non-bulk cp.async line (global -> shared, sm_80+) and of its group and
    mbarrier lines; nothing for any other line. `cp.async.ca/cg.shared{::cta}.global [dst], [src],
    cp-size{, src-size | ignore-src}{, cache-policy}` writes cp-size bytes at dst (zeros past
    src-size: still a write the wait must retire)."""
    if opcode.startswith(("cp.async.ca.", "cp.async.cg.")) and len(ops) >= 3 and ops[0].startswith("["):
        before.append(HookCall(CP_ASYNC, (ops[0], ops[2], site)))
    elif opcode == "cp.async.commit_group" and not ops:
        after.append(HookCall(CP_ASYNC_COMMIT, (site,)))
    elif opcode == "cp.async.wait_group" and len(ops) == 1:
        after.append(HookCall(CP_ASYNC_WAIT, (ops[0], "0", site)))
    elif opcode == "cp.async.wait_all" and not ops:
        after.append(HookCall(CP_ASYNC_WAIT, ("0", "1", site)))
    elif opcode.startswith("cp.async.mbarrier.arrive") and len(ops) == 1:
        after.append(HookCall(CP_ASYNC_ARRIVE, (site,)))


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


def bulk_store_hook(opcode: str, ops: tuple[str, ...], site: str) -> HookCall | None:
    """The tracking call of a store a bulk async-group covers (None for any other line).

    Only `.bulk_group` copies join a group (PTX ISA, cp.async.bulk.commit_group). A tensor store
    passes its map so that the emulator can look up the box size the host declared; a load mode
    other than tile (im2col, scatter4) or a map operand that is not a register passes 0: only the
    first 16 bytes of the source, which every box starts with, are then watched. `.cp_mask` copies
    (sm_100 only: they do not link for sm_90a) are left alone.
    """
    if "bulk_group" not in opcode.split("."):
        return None
    if _BULK_TENSOR_STORE.match(opcode) and len(ops) >= 2:
        tile = not any(mode in opcode for mode in _NOT_TILE)
        return HookCall(BULK_STORE_TENSOR, (tensor_map(ops[0]) if tile else "0", ops[1], site))
    if _BULK_STORE.match(opcode) and ".cp_mask" not in opcode and len(ops) >= 3:
        return HookCall(BULK_STORE, (ops[1], ops[2], site))
    return None


def tensor_map(operand: str) -> str:
    """The tensor-map register of a `[tensorMap, {c0, ...}]` operand, "0" when it is not a register
    (a symbol's generic address is not at hand in the hook)."""
    inner = operand.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        return "0"
    parts = split_operands(inner[1:-1])
    return parts[0] if parts and parts[0].startswith("%") else "0"


def tensor_coordinates(operand: str) -> tuple[str, ...]:
    """The coordinates of a `[tensorMap, {c0, c1, ...}]` operand (empty when it has another shape)."""
    inner = operand.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        return ()
    parts = split_operands(inner[1:-1])
    if len(parts) != 2 or not (parts[1].startswith("{") and parts[1].endswith("}")):
        return ()
    return split_operands(parts[1][1:-1])
