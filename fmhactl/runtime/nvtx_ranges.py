"""Named NVTX ranges around every launch fmhactl times or profiles; a no-op without `nvtx`.

Naming scheme (and why): the logical name of a launch is `fmhactl/<variant>/<config_key>`, but
ncu's `--nvtx-include` grammar treats `/` as the separator of *nested push/pop* ranges (a trailing
`/` selects push/pop ranges, `A/*/B` nests) and `@` as the domain separator. A range message with
`/` in it could not be matched literally. So each launch opens a **start/end range** (process
range, not a thread push/pop) in the NVTX **domain** `fmhactl` whose message is
`<variant>.<config_key>`; variant names and config keys hold only `[A-Za-z0-9_-]`, so the
message has none of ncu's special characters (`/`, `@`, and no `regex:` prefix). The filter
that matches exactly one (variant, config) is then `fmhactl@<variant>.<config_key>` (no trailing
slash: start/end range), see `ncu_include`. If the filter matches nothing on some ncu version,
`fmhactl profile` retries once filtering by kernel name and says so in the stored row.

Backends, in order:
1. the `nvtx` package (PyPI `nvtx`): domain `fmhactl`, start/end range;
2. only when FMHACTL_NVTX_FALLBACK=torch is set (the profile target sets it, because the lent
   GPU machine has no `nvtx` package): `torch.cuda.nvtx.range_start/range_end`, which has no
   domain, so the filter is the bare message `<variant>.<config_key>`;
3. otherwise nothing at all (timing runs stay untouched without `nvtx`).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator

DOMAIN = "fmhactl"
FALLBACK_ENV = "FMHACTL_NVTX_FALLBACK"


def range_name(variant: str, config_key: str) -> str:
    """The logical, human name of a launch range (what docs and summaries show)."""
    return f"fmhactl/{variant}/{config_key}"


def range_message(variant: str, config_key: str) -> str:
    """The NVTX message actually emitted (no '/' or '@', which ncu's filter grammar reserves)."""
    return f"{variant}.{config_key}"


@functools.cache
def _nvtx_domain():
    try:
        import nvtx
    except ImportError:
        return None
    return nvtx.get_domain(DOMAIN)


def backend() -> str:
    """'nvtx', 'torch' or 'none': what launch_range will emit in this process."""
    if _nvtx_domain() is not None:
        return "nvtx"
    if os.environ.get(FALLBACK_ENV) == "torch":
        try:
            import torch.cuda.nvtx  # noqa: F401
        except ImportError:
            return "none"
        return "torch"
    return "none"


def ncu_include(variant: str, config_key: str, which_backend: str) -> str:
    """The `--nvtx-include` expression that matches launch_range(variant, config_key)."""
    message = range_message(variant, config_key)
    if which_backend == "nvtx":
        return f"{DOMAIN}@{message}"
    return message  # torch: default domain, start/end range


@contextlib.contextmanager
def launch_range(variant: str, config_key: str) -> Iterator[None]:
    which = backend()
    if which == "none":
        yield
        return
    message = range_message(variant, config_key)
    if which == "nvtx":
        dom = _nvtx_domain()
        rid = dom.start_range(dom.get_event_attributes(message=message))
        try:
            yield
        finally:
            dom.end_range(rid)
        return
    import torch.cuda.nvtx as tnvtx

    rid = tnvtx.range_start(message)
    try:
        yield
    finally:
        tnvtx.range_end(rid)
