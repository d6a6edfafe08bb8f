"""The layout model's presentation (tables, SVG, verdict lines) and the few model names the shells
render with, re-exported so that cli/ and tui/ import nothing below the services
(tests/test_layering.py). Issue 25 moves this presentation out of layout/ into the shells' rendering;
until then this module is the one door to it."""

from __future__ import annotations

from fmhactl.layout import accum, report, report_tma, tmem  # noqa: F401
from fmhactl.layout.common import LayoutError, Problem, dtype_bytes, parse_int  # noqa: F401
from fmhactl.layout.render import colour, json_document, write_svg  # noqa: F401
from fmhactl.layout.report import banks_verdict, check_writable, map_plan_lines  # noqa: F401
from fmhactl.layout.report_tma import verdict_lines  # noqa: F401
from fmhactl.layout.smem import MMA_K_BYTES  # noqa: F401
from fmhactl.plans.sm100_drawing import plan_records, plan_svg  # noqa: F401

__all__ = ["accum", "report", "report_tma", "tmem", "LayoutError", "Problem", "dtype_bytes", "parse_int", "colour",
           "json_document", "write_svg", "banks_verdict", "check_writable", "map_plan_lines", "verdict_lines",
           "MMA_K_BYTES", "plan_records", "plan_svg"]
