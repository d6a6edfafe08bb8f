"""`fmhactl trace`: the emulation trace service and the shape parser its options use, re-exported so
that cli/ imports nothing below the services (tests/test_layering.py)."""

from __future__ import annotations

from fmhactl.config import parse_shape  # noqa: F401
from fmhactl.trace import service as trace_service  # noqa: F401

__all__ = ["parse_shape", "trace_service"]
