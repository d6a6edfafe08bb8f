"""The reference family's launch plan (kernels/ref/fmha_ref.cuh), declared once.

The kernel gets its defaults, thread count, head-dim bound and K row padding from the generated
kernels/ref/fmha_ref_plan.h. It takes the head dim at run time, so it carves its SMEM (top of
`fmha_ref::attention`) from the same terms as `RefPlan.smem_bytes`: Q in fp32, K with rows padded
by one 32-bit word (bank-conflict-free key reads), V, and P in fp32.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.plans.hardware import MAX_DYNAMIC_SMEM, ceil_div

HEADER_PATH = "kernels/ref/fmha_ref_plan.h"

THREADS = 128  # FMHA_REF_THREADS: 4 warps
MAX_HEAD_DIM = 512  # each lane owns head_dim / 32 accumulator columns, sized for this bound
DEFAULT_BLOCK_M = 16
DEFAULT_BLOCK_N = 32  # the scoring phase gives each lane exactly one key
K_ROW_PAD = 2  # 16-bit elements added to each K row in SMEM
ELEM = 2  # bf16 / f16
F32 = 4


@dataclass(frozen=True)
class RefPlan:
    head_dim: int
    block_m: int = DEFAULT_BLOCK_M
    block_n: int = DEFAULT_BLOCK_N
    threads: int = THREADS

    @property
    def smem_bytes(self) -> int:
        d = self.head_dim
        q = F32 * self.block_m * d
        k = ELEM * self.block_n * (d + K_ROW_PAD)
        v = ELEM * self.block_n * d
        p = F32 * self.block_m * self.block_n
        return q + k + v + p

    def grid(self, seq_q: int, heads: int, batch: int) -> tuple[int, int, int]:
        return (ceil_div(seq_q, self.block_m), heads, batch)

    def limit_reason(self) -> str | None:
        if self.smem_bytes > MAX_DYNAMIC_SMEM:
            return f"SMEM needs {self.smem_bytes} B > {MAX_DYNAMIC_SMEM} B"
        return None


def plan_from_switches(head_dim: int, switches: dict) -> RefPlan:
    return RefPlan(head_dim, int(switches.get("FMHA_BLOCK_M", DEFAULT_BLOCK_M)),
                   int(switches.get("FMHA_BLOCK_N", DEFAULT_BLOCK_N)))


def render_plan_header() -> list[str]:
    """The body of kernels/ref/fmha_ref_plan.h."""
    return [
        "// The reference kernel's plan (kernels/ref/fmha_ref.cuh): switch defaults and fixed sizes.",
        "#pragma once", "",
        "#ifndef FMHA_BLOCK_M", f"#define FMHA_BLOCK_M {DEFAULT_BLOCK_M}", "#endif",
        "#ifndef FMHA_BLOCK_N", f"#define FMHA_BLOCK_N {DEFAULT_BLOCK_N}", "#endif", "",
        f"#define FMHA_REF_THREADS {THREADS}",
        f"#define FMHA_REF_MAX_HEAD_DIM {MAX_HEAD_DIM}",
        f"#define FMHA_REF_K_ROW_PAD {K_ROW_PAD}  // 16-bit elements: one 32-bit word per K row",
    ]
