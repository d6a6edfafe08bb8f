"""The SM100 family's tile / TMEM / SMEM plan, declared once.

Everything that depends on the plan reads it from here: the kernel (through the generated header
kernels/sm100/fmha_sm100_plan.h, which the kernel static_asserts its own byte carving against),
the launcher (grid, dynamic SMEM), the registry (why a config is UNSUPPORTED), `fmhactl build`
(TMEM columns and CTAs/SM per entry) and `fmhactl layout plan` (the drawing).

The plan of one entry point is chosen from (head dim D, K/V stages, where P lives):

* BlockM is 128 query rows (= MMA M = the 128 TMEM lanes). BlockN, the keys per K/V tile, is the
  largest of 128, 64, 32 whose SMEM fits: Q (128 x D) + stages x (K tile + V tile) [+ P tile].
* TMEM: S is BlockN fp32 columns at column 0. P (16-bit, two per 32-bit column) overwrites the S
  columns it came from: keys c..c+31 of a row go to columns c/2..c/2+15, which softmax has already
  read. O follows S: D/passes fp32 columns. So D=128 needs 128 + 128 = 256 columns.
* When S + O would exceed 512 columns (D=512: 32 + 512), O is split across two passes over D:
  two CTAs per query tile, each computes S in full (QK over all of D) and one half of O
  (PV with its half of V). Columns: BlockN + D/2 <= 512.
* Top-k (FMHA_TOPK, a launch with topk > 0) keeps every number above and changes only what the
  128 rows are: the query heads of ONE token that share a KV head (TOPK_HEADS_PER_CTA of them; a
  group of more takes several CTAs, fewer leaves padding rows), so all rows see the token's one
  key list, and a KV tile is BlockN list slots gathered by the load warp (`topk_grid`).
* CTAs per SM is decided, not left to chance: a CTA's TMEM allocation (a power of two >= the
  columns used) bounds how many co-reside (512 / alloc); if SMEM alone would let more CTAs onto
  an SM than TMEM holds, the dynamic SMEM is padded so that exactly that many fit. So no CTA ever
  blocks in tcgen05.alloc behind a co-resident one (the emulator is told this number).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import lru_cache

from fmhactl.plans.hardware import (
    MAX_DYNAMIC_SMEM, SMEM_PER_SM, SMEM_RESERVED_PER_BLOCK, SWIZZLE_REPEAT, TMEM_COLUMNS,
)
from fmhactl.plans.hardware import TMEM_ALLOC_UNIT as TMEM_MIN_ALLOC
from fmhactl.plans.hardware import ctas_by_registers as _ctas_by_registers

BLOCK_M = 128
THREADS = 192  # 6 warps: 4 softmax/epilogue, 1 MMA, 1 load
BLOCK_N_CHOICES = (128, 64, 32)
HEAD_DIMS = (64, 128, 256, 512)
STAGE_CHOICES = (1, 2, 3, 4)
SW128_ROW_ELEMENTS = 64  # 128 B of 16-bit elements: a SW128 atom column is 64 wide
BARRIERS_FIXED = 4  # q_full, s_full, p_full, o_ready; plus kv_full/kv_empty per stage
TOPK_HEADS_PER_CTA = BLOCK_M  # top-k launch: a CTA's rows are up to this many query heads of one token
GRID_YZ_MAX = 65535  # gridDim.y / gridDim.z
GRID_X_MAX = 2**31 - 1


def barrier_roles(stages: int) -> tuple[str, ...]:
    """The kernel's mbarriers in shared-memory order: one block of 8-byte words at kBarOff, laid out
    by kernels/sm100/fmha_sm100.cuh as `Barriers bar{bars, bars + 1, bars + 2, bars + 3, bars + 4,
    bars + 4 + FMHA_STAGES}`. `fmhactl trace` names each traced barrier address by its role here, so a
    recorded trace keeps its names when the kernel source's lines move."""
    return ("q_full", "s_full", "p_full", "o_ready", *(f"kv_full[{s}]" for s in range(stages)),
            *(f"kv_empty[{s}]" for s in range(stages)))
ALIGN_SLACK = SWIZZLE_REPEAT  # the kernel re-aligns the dynamic window to the 1024-B swizzle repeat
TMEM_SLOT_BYTES = 16
ELEM = 2  # bf16 / f16


def _pow2_at_least(n: int) -> int:
    cols = TMEM_MIN_ALLOC
    while cols < n:
        cols *= 2
    return cols


@dataclass(frozen=True)
class Sm100Plan:
    """One entry point's plan. Build with `plan_for`; the fields are what the kernel needs."""

    head_dim: int
    stages: int
    p_in_smem: bool
    block_n: int
    d_passes: int  # 1, or 2 when O is split across two passes (CTAs) over D
    block_m: int = BLOCK_M

    # ---- TMEM ----
    @property
    def d_part(self) -> int:
        """Head-dim columns of O (and of V) one CTA owns."""
        return self.head_dim // self.d_passes

    @property
    def col_s(self) -> int:
        return 0

    @property
    def col_p(self) -> int:
        """P in TMEM sits inside S (16-bit pairs); with P in SMEM there are no P columns."""
        return self.col_s

    @property
    def p_columns(self) -> int:
        return 0 if self.p_in_smem else self.block_n // 2

    @property
    def col_o(self) -> int:
        return self.col_s + self.block_n

    @property
    def tmem_columns(self) -> int:
        return self.block_n + self.d_part

    @property
    def tmem_alloc(self) -> int:
        return _pow2_at_least(self.tmem_columns)

    # ---- SMEM ----
    @property
    def q_bytes(self) -> int:
        return self.block_m * self.head_dim * ELEM

    @property
    def k_bytes(self) -> int:
        return self.block_n * self.head_dim * ELEM

    @property
    def v_bytes(self) -> int:
        return self.block_n * self.d_part * ELEM

    @property
    def p_bytes(self) -> int:
        # The SW128 K-major P tile is at least one 64-wide atom column.
        return self.block_m * max(self.block_n, SW128_ROW_ELEMENTS) * ELEM if self.p_in_smem else 0

    @property
    def barrier_count(self) -> int:
        return BARRIERS_FIXED + 2 * self.stages

    @property
    def offsets(self) -> dict[str, int]:
        q = 0
        k = q + self.q_bytes
        v = k + self.stages * self.k_bytes
        p = v + self.stages * self.v_bytes
        bar = p + self.p_bytes
        slot = bar + 8 * self.barrier_count
        return {"Q": q, "K": k, "V": v, "P": p, "barriers": bar, "tmem_slot": slot, "end": slot + TMEM_SLOT_BYTES}

    @property
    def smem_needed(self) -> int:
        return self.offsets["end"] + ALIGN_SLACK

    # ---- residency ----
    @property
    def ctas_per_sm_tmem(self) -> int:
        return TMEM_COLUMNS // self.tmem_alloc

    @staticmethod
    def _ctas_by_smem(dynamic: int) -> int:
        return SMEM_PER_SM // (dynamic + SMEM_RESERVED_PER_BLOCK)

    @property
    def ctas_per_sm(self) -> int:
        """CTAs that co-reside on one SM (registers permitting): min of the TMEM and SMEM bounds."""
        return max(1, min(self.ctas_per_sm_tmem, self._ctas_by_smem(self.smem_needed)))

    @property
    def smem_bytes(self) -> int:
        """Dynamic SMEM asked for at launch: what the carve-up needs, padded so that SMEM admits no
        more CTAs per SM than TMEM holds."""
        want = self.ctas_per_sm
        if self._ctas_by_smem(self.smem_needed) <= want:
            return self.smem_needed
        padded = SMEM_PER_SM // (want + 1) - SMEM_RESERVED_PER_BLOCK + 1
        while self._ctas_by_smem(padded) > want:
            padded += 1
        return max(padded, self.smem_needed)

    @property
    def smem_padding(self) -> int:
        return self.smem_bytes - self.smem_needed

    # ---- limits and words ----
    def limit_reason(self) -> str | None:
        if self.tmem_columns > TMEM_COLUMNS:
            return (f"TMEM needs S {self.block_n} + O {self.d_part} = {self.tmem_columns} columns "
                    f"> {TMEM_COLUMNS}")
        if self.smem_needed > MAX_DYNAMIC_SMEM:
            return (f"SMEM needs {self.smem_needed} B (Q {self.q_bytes} + {self.stages} x K/V "
                    f"{self.k_bytes + self.v_bytes}{f' + P {self.p_bytes}' if self.p_in_smem else ''}"
                    f", BlockN {self.block_n}{', O in 2 passes over D' if self.d_passes > 1 else ''})"
                    f" > {MAX_DYNAMIC_SMEM} B")
        return None

    @property
    def supported(self) -> bool:
        return self.limit_reason() is None

    def column_arithmetic(self) -> str:
        """The TMEM sum in one line, as `layout plan` and the variant descriptions state it."""
        p = (f"P {self.p_columns} (16-bit pairs) inside S" if not self.p_in_smem else "P in SMEM")
        split = (f"O {self.d_part} ({self.head_dim} / {self.d_passes} passes over D)" if self.d_passes > 1
                 else f"O {self.d_part}")
        return (f"S {self.block_n} + {split} = {self.tmem_columns} columns ({p}); "
                f"alloc {self.tmem_alloc} -> {self.ctas_per_sm_tmem} CTA(s)/SM by TMEM")

    def residency_note(self) -> str:
        by_smem = self._ctas_by_smem(self.smem_needed)
        if self.smem_padding:
            return (f"{self.ctas_per_sm} CTA(s)/SM: SMEM padded by {self.smem_padding} B (would admit {by_smem}) "
                    f"so co-resident CTAs never wait in tcgen05.alloc")
        return f"{self.ctas_per_sm} CTA(s)/SM (TMEM admits {self.ctas_per_sm_tmem}, SMEM {by_smem})"

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(d_part=self.d_part, col_s=self.col_s, col_p=self.col_p, p_columns=self.p_columns,
                 col_o=self.col_o, tmem_columns=self.tmem_columns, tmem_alloc=self.tmem_alloc,
                 smem_offsets=self.offsets, smem_needed=self.smem_needed, smem_bytes=self.smem_bytes,
                 ctas_per_sm=self.ctas_per_sm, ctas_per_sm_tmem=self.ctas_per_sm_tmem,
                 supported=self.supported, limit_reason=self.limit_reason(),
                 column_arithmetic=self.column_arithmetic())
        return d


@lru_cache(maxsize=None)
def plan_for(head_dim: int, stages: int, p_in_smem: bool) -> Sm100Plan:
    """The first (largest BlockN, fewest passes over D) plan that fits TMEM and SMEM; if none fits,
    the single-pass BlockN-128 plan, whose limit_reason says why."""
    for d_passes in (1, 2):
        if head_dim % (d_passes * SW128_ROW_ELEMENTS):
            continue
        for block_n in BLOCK_N_CHOICES:
            plan = Sm100Plan(head_dim, stages, p_in_smem, block_n, d_passes)
            if plan.supported:
                return plan
    # Nothing fits: report the plan that fails least surprisingly (O in one pass if TMEM allows,
    # else the smallest two-pass plan, whose SMEM is the binding limit).
    one_pass = Sm100Plan(head_dim, stages, p_in_smem, BLOCK_N_CHOICES[0], 1)
    if one_pass.tmem_columns <= TMEM_COLUMNS or head_dim % (2 * SW128_ROW_ELEMENTS):
        return one_pass
    return Sm100Plan(head_dim, stages, p_in_smem, BLOCK_N_CHOICES[-1], 2)


def topk_head_chunks(heads: int, heads_kv: int) -> int:
    """CTAs that share one token's query heads of one KV head in a top-k launch."""
    group = heads // heads_kv
    return -(-group // TOPK_HEADS_PER_CTA)


def topk_grid(plan: Sm100Plan, seq_q: int, heads: int, heads_kv: int, batch: int) -> tuple[int, int, int]:
    """The top-k launch (kernels/sm100/fmha_sm100.cuh locate_topk): x = (token x head chunk) x passes over
    D, y = KV head, z = batch; each CTA runs ceil(topk / BlockN) tiles of list slots."""
    return (seq_q * topk_head_chunks(heads, heads_kv) * plan.d_passes, heads_kv, batch)


def topk_limit_reason(plan: Sm100Plan, seq_q: int, heads: int, heads_kv: int, batch: int) -> str | None:
    x, y, z = topk_grid(plan, seq_q, heads, heads_kv, batch)
    if x > GRID_X_MAX:
        return f"top-k grid x = seq_q x head chunks x passes = {x} > {GRID_X_MAX}"
    if y > GRID_YZ_MAX or z > GRID_YZ_MAX:
        return f"top-k grid: heads_kv {y} and batch {z} must be at most {GRID_YZ_MAX}"
    return None


def ctas_by_registers(registers_per_thread: int, threads: int = THREADS) -> int:
    """CTAs of an SM100 entry point (`threads` threads) the register file holds."""
    return _ctas_by_registers(registers_per_thread, threads)


def entry_head_dim(head_dim: int) -> int:
    """The head dim of the entry point that runs `head_dim`: the next of 64/128/256/512; the kernel
    zero-fills the extra columns of Q, K and V (QK unchanged) and writes only the real O columns."""
    for d in HEAD_DIMS:
        if head_dim <= d:
            return d
    return head_dim


def plan_from_switches(head_dim: int, switches: dict) -> Sm100Plan:
    return plan_for(entry_head_dim(head_dim), int(switches.get("FMHA_STAGES", 1)),
                    bool(int(switches.get("FMHA_P_SMEM", 0))))


# ---- the CUDA side: a generated header ------------------------------------------------------

HEADER_PATH = "kernels/sm100/fmha_sm100_plan.h"


def render_header() -> list[str]:
    """The body of kernels/sm100/fmha_sm100_plan.h: one specialisation per (D, stages, P place) that fits."""
    lines = [
        "// The kernel's Plan<D> recomputes its byte carving and static_asserts it against these numbers.",
        "#pragma once",
        "",
        "namespace fmha_sm100_plan {",
        "",
        f"constexpr int kBlockM = {BLOCK_M};  // query rows per CTA = MMA M = TMEM lanes",
        f"constexpr int kThreads = {THREADS};",
        f"constexpr int kTmemColumns = {TMEM_COLUMNS};",
        f"constexpr unsigned kMaxDynamicSmem = {MAX_DYNAMIC_SMEM};",
        f"constexpr int kTopkHeadsPerCta = {TOPK_HEADS_PER_CTA};  // top-k launch: query heads of one token per CTA",
        "",
        "template <int D, int Stages, int PSmem>",
        "struct Entry {",
        "    static constexpr bool kSupported = false;",
        "};",
        "",
    ]
    for stages in STAGE_CHOICES:
        for p_smem in (0, 1):
            for d in HEAD_DIMS:
                plan = plan_for(d, stages, bool(p_smem))
                if not plan.supported:
                    lines.append(f"// D={d} stages={stages} P_SMEM={p_smem}: {plan.limit_reason()}")
                    continue
                o = plan.offsets
                lines += [
                    f"template <> struct Entry<{d}, {stages}, {p_smem}> {{",
                    "    static constexpr bool kSupported = true;",
                    f"    static constexpr int kBlockN = {plan.block_n}, kDPasses = {plan.d_passes}, "
                    f"kDPart = {plan.d_part};",
                    f"    static constexpr int kColS = {plan.col_s}, kColP = {plan.col_p}, kColO = {plan.col_o}, "
                    f"kColsUsed = {plan.tmem_columns}, kColsAlloc = {plan.tmem_alloc};",
                    f"    static constexpr unsigned kQOff = {o['Q']}, kKOff = {o['K']}, kVOff = {o['V']}, "
                    f"kPOff = {o['P']}, kBarOff = {o['barriers']}, kTmemSlotOff = {o['tmem_slot']};",
                    f"    static constexpr unsigned kSmemNeeded = {plan.smem_needed}, kSmemBytes = {plan.smem_bytes};",
                    f"    static constexpr int kCtasPerSm = {plan.ctas_per_sm};",
                    "};",
                ]
        lines.append("")
    lines += [
        "}  // namespace fmha_sm100_plan",
        "",
        "// Which head-dim entry points this build's switches can compile (fmha_sm100.cu).",
    ]
    for d in HEAD_DIMS:
        conds = [f"(FMHA_STAGES == {s} && FMHA_P_SMEM == {p})" for s in STAGE_CHOICES for p in (0, 1)
                 if plan_for(d, s, bool(p)).supported]
        lines.append(f"#define FMHA_PLAN_HAS_D{d} ({' || '.join(conds) if conds else '0'})")
    return lines
