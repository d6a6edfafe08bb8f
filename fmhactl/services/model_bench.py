"""`fmhactl model-bench`: the whole-model benchmark and the host-overhead measurement, re-exported
from fmhactl.bench so that cli/ imports nothing below the services (tests/test_layering.py).
Both import torch only when called."""

from __future__ import annotations

from fmhactl.bench.model import record, run_model_bench  # noqa: F401
from fmhactl.bench.decode import run_decode_bench  # noqa: F401
from fmhactl.bench.dsv4 import run_dsv4_bench  # noqa: F401
from fmhactl.bench.overhead import run_overhead  # noqa: F401

__all__ = ["record", "run_decode_bench", "run_dsv4_bench", "run_model_bench", "run_overhead"]
