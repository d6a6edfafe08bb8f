"""What the random-configuration tests of the op and of its integrations share
(test_op_random_gpu.py, test_integrations_random_gpu.py): the replayable seed, the draws both make,
the NaN poison and the end-of-module summary. No CUDA needed to import it."""

from __future__ import annotations

import math
import os
import random
import secrets
from collections import Counter

import pytest
import torch

from fmhactl.verify.random_grid import log_uniform  # noqa: F401 - the fuzz modules draw lengths with it

SEED_ENV = "FMHACTL_FUZZ_SEED"  # set to a printed base seed to replay a run
CASES_ENV = "FMHACTL_FUZZ_CASES"


def base_seed() -> int:
    """FMHACTL_FUZZ_SEED, else a fresh one (printed by the module's summary fixture)."""
    text = os.environ.get(SEED_ENV, "").strip()
    return int(text) if text else secrets.randbits(31)


def draw_sinks(r: random.Random, heads: int, span: int) -> tuple[tuple[float, ...], str]:
    """Per-head sink logits around the scale of log(span) keys: finite, some or all -inf, or one
    dominant; and which kind."""
    hi = math.log(max(span, 1)) + 2.0
    values = [r.uniform(-2.0, hi) for _ in range(heads)]
    kind = r.choice(("finite", "finite", "some-neg-inf", "all-neg-inf", "dominant"))
    if kind == "some-neg-inf":
        values = [float("-inf") if r.random() < 0.3 else v for v in values]
        values[r.randrange(heads)] = float("-inf")
    elif kind == "all-neg-inf":
        values = [float("-inf")] * heads
    elif kind == "dominant":
        values[r.randrange(heads)] = 20.0
    return tuple(values), kind


def window_kwargs(case) -> dict:
    """A case's window as the call takes it: `window=(left, right)` or the two keywords."""
    if case.window is None:
        return {}
    if case.window_style == "tuple":
        return {"window": case.window}
    return {"window_left": case.window_left, "window_right": case.window_right}


def where(mask: torch.Tensor) -> str:
    bad = mask.nonzero()
    return f"{int(mask.sum())} at e.g. {tuple(int(i) for i in bad[0])}" if len(bad) else "none"


def poison(device: str = "cuda") -> None:
    """Fill freed allocator blocks with NaN so that an output element nobody writes shows up."""
    for numel in (1 << 12, 1 << 16, 1 << 20, 1 << 23):
        torch.full((numel,), float("nan"), device=device)


def say(request: pytest.FixtureRequest, line: str) -> None:
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
    else:
        print(line)


def summary(title: str, seed: int, outcomes: dict[int, str]) -> str:
    """One line of counts by outcome, then each case's outcome."""
    counts = Counter(outcome.split(":")[0] for outcome in outcomes.values())
    lines = [f"{title}: {SEED_ENV}={seed}, {len(outcomes)} cases: "
             + ", ".join(f"{n} {name}" for name, n in counts.most_common())]
    lines += [f"  case{index:03d} {outcome}" for index, outcome in sorted(outcomes.items())]
    return "\n".join(lines)
