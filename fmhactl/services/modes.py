"""The emulation modes the shells offer (`--emulation`, `--emulate`): re-exported from the runtime and
the build so that cli/ and tui/ import nothing below the services (tests/test_layering.py)."""

from __future__ import annotations

from fmhactl.build.compiler import EMULATE_ENV, EMULATE_SOURCES  # noqa: F401
from fmhactl.runtime.modes import EMULATION_ENV, EMULATION_MODES, emulation_mode  # noqa: F401

__all__ = ["EMULATE_ENV", "EMULATE_SOURCES", "EMULATION_ENV", "EMULATION_MODES", "emulation_mode"]
