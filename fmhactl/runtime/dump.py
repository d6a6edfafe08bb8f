"""`fmhactl dump`: build a variant with FMHA_CHECKPOINTS=1, run it once, compare one checkpoint."""

from __future__ import annotations

import dataclasses

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.runtime.checkpoints import CHECKPOINTS
from fmhactl.runtime.single import run_single


def checkpoint_variant(variant: Variant) -> Variant:
    if variant.launcher != "sm100":
        raise BadInput(f"variant {variant.name} has no checkpoints (only the SM100 family does)")
    return dataclasses.replace(variant, name=f"{variant.name}+ckpt",
                               switches={**variant.switches, "FMHA_CHECKPOINTS": 1})


def run_dump(variant: Variant, cfg: AttnConfig, at: str, *, store: ResultStore, timeout_s: float = 60.0,
             seed: int | None = None, out: str | None = None) -> ResultRow:
    """`out`: also write the whole checkpoint there (fmhactl/runtime/dumpfile.py format)."""
    at = at.upper()
    if at not in CHECKPOINTS:
        raise BadInput(f"unknown checkpoint {at!r} (choose from {', '.join(CHECKPOINTS)})")
    from fmhactl.plans.launch import sm100_plan

    plan = sm100_plan(cfg, variant.switches)
    if plan.block_n != 128 or plan.d_passes != 1 or plan.head_dim != cfg.head_dim:
        raise BadInput(f"checkpoints mirror a 128-key tile of the whole head dim; {variant.name} at d={cfg.head_dim} "
                       f"runs the d{plan.head_dim} entry with BlockN {plan.block_n}, {plan.d_passes} pass(es) over D (fmhactl layout plan "
                       f"{variant.name} --head-dim {cfg.head_dim})")
    return run_single("dump", variant, cfg, store=store, timeout_s=timeout_s, seed=seed,
                      built_variant=checkpoint_variant(variant), at=at,
                      **({"out": out} if out else {}))
