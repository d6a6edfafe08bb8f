"""Named NVTX ranges around every launch fmhactl times or profiles; a no-op without `nvtx`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


def range_name(variant: str, config_key: str) -> str:
    return f"fmhactl/{variant}/{config_key}"


@contextlib.contextmanager
def launch_range(variant: str, config_key: str) -> Iterator[None]:
    try:
        import nvtx
    except ImportError:
        yield
        return
    with nvtx.annotate(range_name(variant, config_key), domain="fmhactl"):
        yield
