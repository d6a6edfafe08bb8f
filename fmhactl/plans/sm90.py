"""The SM90 (Hopper) family's tile plan, declared once.

The kernel (kernels/sm90/fmha_sm90.cuh, `fmha_sm90::Plan<D>`) takes its head dims, default
switches and SMEM carving from the generated header kernels/sm90/fmha_sm90_plan.h; the launcher
(grid, dynamic SMEM) and the registry (why a config is UNSUPPORTED) read this module.

One CTA is 64 query rows per consumer warpgroup of one (batch, head): a producer warpgroup and 2
consumers (128 rows, 384 threads), or 3 at hd64 (FMHA_CONSUMERS=3: 192 rows, 512 threads, FA3's hd64
tile: each K/V tile loaded is multiplied against 1.5x the rows, and the third WG's GEMMs fill the
tensor core while another runs its softmax, without ping-pong's barriers). SMEM:
Q (x2 when a persistent CTA double-buffers it), the K and V rings, O's own staging tile where it
fits (persistent, D <= 128; else O reuses Q's), the mbarriers and the persistent tile slots, plus
1 KiB to re-align the window to the swizzle repeat.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM, REGISTERS_PER_SM, SWIZZLE_REPEAT, ceil_div

HEADER_PATH = "kernels/sm90/fmha_sm90_plan.h"

HEAD_DIMS = (64, 128, 256)
ROWS_PER_CONSUMER = 64  # one wgmma M tile per consumer warpgroup
DEFAULT_CONSUMERS = 2
# Consumer warpgroups (FMHA_CONSUMERS) -> the head dims that may use them. 3 only at hd64: a
# consumer then gets 160 registers (below), which holds hd64's O (32) + S (64) + P (32) with the
# overlap's state; hd128's O alone is 64 more.
CONSUMER_HEAD_DIMS = {2: (64, 128, 256), 3: (64,)}
BLOCK_M = ROWS_PER_CONSUMER * DEFAULT_CONSUMERS
THREADS = 128 * (1 + DEFAULT_CONSUMERS)  # producer warpgroup + 2 consumer warpgroups
# setmaxnreg split (producer, consumer) per (consumers, persistent): 128*producer +
# 128*consumers*consumer <= REGISTERS_PER_SM. The persistent producer claims and decodes tiles and
# spilled in 24, so it gets 32. With 3 consumers 32 + 3 x 160 fills the register file exactly
# (FA3's split for 3 MMA warpgroups).
REGISTER_SPLIT = {(2, False): (24, 240), (2, True): (32, 232), (3, False): (32, 160), (3, True): (32, 160)}
ELEM = 2  # bf16 / f16
# KV tile (the wgmma N of QK^T) per head dim unless a switch overrides it (FMHA_BN_D<d>).
DEFAULT_BLOCK_N = {64: 128, 128: 128, 256: 64}
BLOCK_N_CHOICES = tuple(range(64, 193, 16))  # a multiple of 16 in 64..192 (the SS wgmma N)
DEFAULT_STAGES = 2
STAGE_CHOICES = (2, 3, 4)


@dataclass(frozen=True)
class Sm90Plan:
    """One entry point's plan (fmha_sm90::Plan<D> in the kernel reads the generated numbers)."""

    head_dim: int
    stages: int
    block_n: int
    persistent: bool = False  # FMHA_PERSISTENT: one CTA per SM walks the tiles
    consumers: int = DEFAULT_CONSUMERS  # FMHA_CONSUMERS: consumer warpgroups, 64 query rows each

    @property
    def block_m(self) -> int:
        return ROWS_PER_CONSUMER * self.consumers

    @property
    def threads(self) -> int:
        return 128 * (1 + self.consumers)

    @property
    def registers(self) -> tuple[int, int]:
        """(producer, consumer) registers per thread after setmaxnreg."""
        return REGISTER_SPLIT[(self.consumers, self.persistent)]

    @property
    def separate_o(self) -> bool:
        """A persistent CTA stages O in its own tile where that fits (D <= 128); else in Q's."""
        return self.persistent and self.head_dim <= 128

    @property
    def q_stages(self) -> int:
        """With O apart, Q is double-buffered (the next tile's Q loads under this one)."""
        return 2 if self.separate_o else 1

    @property
    def q_bytes(self) -> int:
        return self.block_m * self.head_dim * ELEM

    @property
    def kv_bytes(self) -> int:
        return self.block_n * self.head_dim * ELEM

    @property
    def barrier_count(self) -> int:
        """q_full/q_empty per Q stage; k_full, v_full, k_empty, v_empty per ring stage."""
        return 2 * self.q_stages + 4 * self.stages

    @property
    def offsets(self) -> dict[str, int]:
        q = 0
        k = q + self.q_stages * self.q_bytes
        v = k + self.stages * self.kv_bytes
        ring_end = v + self.stages * self.kv_bytes
        o = ring_end if self.separate_o else q
        bar = ring_end + (self.q_bytes if self.separate_o else 0)
        tile_slot = bar + 8 * self.barrier_count
        return {"Q": q, "K": k, "V": v, "O": o, "barriers": bar, "tile_slot": tile_slot,
                "end": tile_slot + 8 * self.q_stages}

    @property
    def smem_bytes(self) -> int:
        return self.offsets["end"] + SWIZZLE_REPEAT

    def tiles(self, seq_q: int, heads: int, batch: int) -> int:
        return ceil_div(seq_q, self.block_m) * heads * batch

    def limit_reason(self) -> str | None:
        if self.head_dim not in HEAD_DIMS:
            return f"head_dim {self.head_dim} not supported (supports {', '.join(map(str, HEAD_DIMS))})"
        reason = consumers_reason(self.head_dim, self.consumers)
        if reason:
            return reason
        if self.smem_bytes > MAX_DYNAMIC_SMEM:
            return (f"SMEM needs {self.smem_bytes} B (Q + {self.stages} K/V stage(s) of {self.block_n} keys) "
                    f"> {MAX_DYNAMIC_SMEM} B")
        return None


def plan_from_switches(head_dim: int, switches: dict) -> Sm90Plan:
    """The plan the kernel builds for `head_dim` under these compile-time switches."""
    block_n = int(switches.get(f"FMHA_BN_D{head_dim}", DEFAULT_BLOCK_N.get(head_dim, 64)))
    stages = int(switches.get(f"FMHA_STAGES_D{head_dim}", switches.get("FMHA_STAGES", DEFAULT_STAGES)))
    return Sm90Plan(head_dim, stages, block_n, persistent=persistent(switches), consumers=consumers(switches))


def consumers(switches: dict) -> int:
    """FMHA_CONSUMERS: consumer warpgroups of 64 query rows each (2: 128-row tiles; 3: 192, hd64)."""
    return int(switches.get("FMHA_CONSUMERS", DEFAULT_CONSUMERS))


def consumers_reason(head_dim: int, n: int) -> str | None:
    """Why head_dim cannot run with n consumer warpgroups, or None."""
    if n not in CONSUMER_HEAD_DIMS:
        return f"FMHA_CONSUMERS={n} not supported (supports {', '.join(map(str, CONSUMER_HEAD_DIMS))})"
    if head_dim not in CONSUMER_HEAD_DIMS[n]:
        dims = ", ".join(map(str, CONSUMER_HEAD_DIMS[n]))
        return (f"head_dim {head_dim} not supported with {n} consumer warpgroups ({ROWS_PER_CONSUMER * n}-row "
                f"tiles: head dims {dims}; a consumer's {REGISTER_SPLIT[(n, True)][1]} registers cannot hold "
                f"hd{head_dim}'s O, S and P)")
    return None


def persistent(switches: dict) -> bool:
    """FMHA_PERSISTENT: one CTA per SM claims tiles from FmhaParams.tile_counter."""
    return bool(int(switches.get("FMHA_PERSISTENT", 0)))


def render_plan_header() -> list[str]:
    """The body of kernels/sm90/fmha_sm90_plan.h: switch defaults, the geometry per consumer count,
    and one Entry per (D, BlockN, stages, persistent, consumers) the kernel may be built with."""
    out = ["// The SM90 kernel's plan: fmha_sm90::Plan<D> (kernels/sm90/fmha_sm90.cuh) derives from Entry.",
           "#pragma once", ""]
    for d in HEAD_DIMS:
        out += [f"#ifndef FMHA_BN_D{d}", f"#define FMHA_BN_D{d} {DEFAULT_BLOCK_N[d]}", "#endif"]
    out += ["#ifndef FMHA_STAGES", f"#define FMHA_STAGES {DEFAULT_STAGES}", "#endif"]
    out += ["#ifndef FMHA_CONSUMERS", f"#define FMHA_CONSUMERS {DEFAULT_CONSUMERS}", "#endif"]
    for d in HEAD_DIMS:
        out += [f"#ifndef FMHA_STAGES_D{d}", f"#define FMHA_STAGES_D{d} FMHA_STAGES", "#endif"]
    out += ["", "namespace fmha_sm90_plan {", "",
            f"constexpr int kRegistersPerSm = {REGISTERS_PER_SM};", "",
            "// Per consumer-warpgroup count (FMHA_CONSUMERS): query rows, threads, and the setmaxnreg",
            "// split (producer, consumer) without and with FMHA_PERSISTENT.",
            "template <int Consumers>", "struct Geometry {", "    static constexpr bool kDeclared = false;", "};"]
    for n in CONSUMER_HEAD_DIMS:
        split = [REGISTER_SPLIT[(n, pers)] for pers in (False, True)]
        out.append(f"template <> struct Geometry<{n}> {{ static constexpr bool kDeclared = true; "
                   f"static constexpr int kBlockM = {ROWS_PER_CONSUMER * n}, kThreads = {128 * (1 + n)}, "
                   f"kProducerRegs[2] = {{{split[0][0]}, {split[1][0]}}}, "
                   f"kConsumerRegs[2] = {{{split[0][1]}, {split[1][1]}}}; }};")
    out += ["static_assert(Geometry<FMHA_CONSUMERS>::kDeclared, \"FMHA_CONSUMERS outside the plan of fmhactl/plans/sm90.py\");",
            "constexpr int kConsumers = FMHA_CONSUMERS;",
            "constexpr int kBlockM = Geometry<FMHA_CONSUMERS>::kBlockM;",
            "constexpr int kThreads = Geometry<FMHA_CONSUMERS>::kThreads;", "",
            "// The switches that pick a head dim's KV tile and ring depth.",
            "template <int D>", "struct Switches {", "    static constexpr bool kHeadDim = false;", "};"]
    for d in HEAD_DIMS:
        out.append(f"template <> struct Switches<{d}> {{ static constexpr bool kHeadDim = true; "
                   f"static constexpr int kBlockN = FMHA_BN_D{d}, kStages = FMHA_STAGES_D{d}; }};")
    out += ["", f"// Declared: head dims {', '.join(map(str, HEAD_DIMS))}; KV tile a multiple of 16 in "
            f"{BLOCK_N_CHOICES[0]}..{BLOCK_N_CHOICES[-1]}; {STAGE_CHOICES[0]} to {STAGE_CHOICES[-1]} stages.",
            f"// Consumers: {', '.join(f'{n} at hd {dims}' for n, dims in CONSUMER_HEAD_DIMS.items())}.",
            "template <int D, int BlockN, int Stages, int Persistent, int Consumers>",
            "struct Entry {", "    static constexpr bool kDeclared = false;", "};"]
    for n, d in ((n, d) for n, dims in CONSUMER_HEAD_DIMS.items() for d in dims):
        for block_n in BLOCK_N_CHOICES:
            for stages in STAGE_CHOICES:
                for pers in (0, 1):
                    plan = Sm90Plan(d, stages, block_n, persistent=bool(pers), consumers=n)
                    o = plan.offsets
                    over = "" if plan.smem_bytes <= MAX_DYNAMIC_SMEM else "  // over the SMEM limit"
                    out += [
                        f"template <> struct Entry<{d}, {block_n}, {stages}, {pers}, {n}> {{ "
                        f"static constexpr bool kDeclared = true, kSeparateO = {str(plan.separate_o).lower()}; "
                        f"static constexpr int kQStages = {plan.q_stages};{over}",
                        f"    static constexpr unsigned kQBytes = {plan.q_bytes}, kKVBytes = {plan.kv_bytes}, "
                        f"kQOff = {o['Q']}, kKOff = {o['K']}, kVOff = {o['V']}, kOOff = {o['O']}, "
                        f"kBarOff = {o['barriers']}, kBarCount = {plan.barrier_count}, "
                        f"kTileSlotOff = {o['tile_slot']}, kSmemBytes = {plan.smem_bytes}; }};",
                    ]
    out += ["", "}  // namespace fmha_sm90_plan"]
    return out
