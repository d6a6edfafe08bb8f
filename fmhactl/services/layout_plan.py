"""The SM100 family's plan as one service result: what `fmhactl layout plan` prints and what the
TUI's plan mode draws, computed once (fmhactl.plans.sm100, the plan the kernel static_asserts).

Both front ends render `Sm100PlanReport.lines` as they are, so they cannot disagree on whether a
variant fits at a head dim, nor on where S, P and O sit.
"""

from __future__ import annotations

from dataclasses import dataclass

from fmhactl.plans.sm100 import Sm100Plan
from fmhactl.plans.sm100_drawing import Region


@dataclass(frozen=True)
class Sm100PlanReport:
    variant: str
    head_dim: int  # as asked; plan.head_dim is the entry point that runs it
    plan: Sm100Plan
    lines: tuple[str, ...]  # the text of `fmhactl layout plan VARIANT --head-dim D`
    tmem_regions: tuple[Region, ...]  # S, P (only when P lives in TMEM), O, the unused rest
    ruler: str  # one SM's 512 columns, 8 per character ("" when the plan does not fit)

    @property
    def supported(self) -> bool:
        return self.plan.supported

    @property
    def verdict(self) -> str:
        """One line: UNSUPPORTED and why (the CLI exits 1), or the TMEM sum and the residency."""
        reason = self.plan.limit_reason()
        if reason:
            return f"UNSUPPORTED: {reason}"
        return f"supported: {self.plan.column_arithmetic()}; {self.plan.residency_note()}"


def plan_for_variant(variant_name: str, head_dim: int) -> Sm100Plan:
    """The plan of a registered SM100 variant at a head dim (BadInput for other variants)."""
    from fmhactl.errors import BadInput
    from fmhactl.plans.sm100 import HEAD_DIMS, plan_from_switches
    from fmhactl.registry import get_variant

    variant = get_variant(variant_name)
    if variant.launcher != "sm100":
        raise BadInput(f"variant {variant_name} is not an SM100 variant (launcher {variant.launcher!r}); "
                       "plans exist for launcher 'sm100'")
    if head_dim <= 0 or head_dim % 8:
        raise BadInput(f"--head-dim {head_dim}: must be a positive multiple of 8")
    if head_dim > max(HEAD_DIMS):
        raise BadInput(f"--head-dim {head_dim}: at most {max(HEAD_DIMS)}")
    return plan_from_switches(head_dim, variant.switches)


def sm100_plan(variant: str, head_dim: int) -> Sm100PlanReport:
    """The plan of an SM100 variant at a head dim (BadInput for other variants or impossible dims)."""
    from fmhactl.plans.sm100_drawing import feature_lines, plan_lines, ruler, tmem_regions
    from fmhactl.registry import get_variant

    plan = plan_for_variant(variant, head_dim)
    lines = plan_lines(variant, plan, head_dim) + feature_lines(plan, get_variant(variant).features)
    return Sm100PlanReport(variant, head_dim, plan, tuple(lines),
                           tuple(tmem_regions(plan)), ruler(plan) if plan.supported else "")


def sm100_plan_variants() -> list[str]:
    """The variants that have a plan (launcher sm100), in registry order."""
    from fmhactl.registry import load_registry

    return [name for name, v in load_registry().items() if v.launcher == "sm100"]


def declared_head_dims(variant: str) -> list[int]:
    """Every head dim the family declares for `variant` (kernels/family.toml)."""
    from fmhactl.registry import get_variant

    v = get_variant(variant)
    if v.head_dims:
        return list(v.head_dims)
    return list(range(v.head_dim_multiple, v.max_head_dim + 1, v.head_dim_multiple))
