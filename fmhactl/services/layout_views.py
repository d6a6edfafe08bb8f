"""The few layout-model names the shells speak when they parse and render: the error and problem
types, the integer and "A,B" list parsers (hex allowed), element sizes, and the SM100 plan drawing (kept beside the
plan in fmhactl/plans/). Re-exported so that cli/ and tui/ import nothing below the services
(tests/test_layering.py). The pictures themselves live in fmhactl/present/, the shells' rendering."""

from __future__ import annotations

from fmhactl.layout import accum, tmem  # noqa: F401
from fmhactl.layout.common import LayoutError, Problem, dtype_bytes, parse_int, parse_int_list  # noqa: F401
from fmhactl.layout.smem import MMA_K_BYTES  # noqa: F401
from fmhactl.plans.sm100_drawing import plan_records, plan_svg  # noqa: F401

__all__ = ["accum", "tmem", "LayoutError", "Problem", "dtype_bytes", "parse_int", "parse_int_list", "MMA_K_BYTES", "plan_records",
           "plan_svg"]
