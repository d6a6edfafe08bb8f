"""The reference family's launch plan (kernels/ref/fmha_ref.cuh), declared once.

The reference kernel takes the head dim at run time, so its SMEM carving is computed in the
kernel (top of `fmha_ref::attention`) from the same terms as `RefPlan.smem_bytes`: Q in fp32,
K with rows padded by one 32-bit word (bank-conflict-free key reads), V, and P in fp32.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.plans.hardware import ceil_div

THREADS = 128  # FMHA_REF_THREADS: 4 warps
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


def plan_from_switches(head_dim: int, switches: dict) -> RefPlan:
    return RefPlan(head_dim, int(switches.get("FMHA_BLOCK_M", DEFAULT_BLOCK_M)),
                   int(switches.get("FMHA_BLOCK_N", DEFAULT_BLOCK_N)))
