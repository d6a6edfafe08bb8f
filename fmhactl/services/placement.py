"""Multi-GPU / Ray placement as the shells see it (`--gpus`, `--ray`, `--jobs`): re-exported from
fmhactl.sweep so that cli/ and tui/ import nothing below the services (tests/test_layering.py)."""

from __future__ import annotations

from fmhactl.sweep.scheduler import SweepRun  # noqa: F401
from fmhactl.sweep.service import current_placement, placement_from_options  # noqa: F401

__all__ = ["SweepRun", "current_placement", "placement_from_options"]
