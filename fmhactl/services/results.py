"""results: what build/run/verify/bench/profile/dump recorded, filtered."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from fmhactl.errors import BadInput
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.services.kernels import _store

KINDS = ("build", "run", "verify", "bench", "profile", "dump")
STATUSES = ("PASS", "FAIL", "CRASH", "HANG", "UNSUPPORTED", "OK", "ERROR", "SKIPPED")
MODES = ("native", "emulated", "compile-only")
MAX_LIMIT = 1_000_000


@dataclass(frozen=True)
class ResultsFilter:
    """Every field optional; given fields must all match. Dates are ISO (2026-11-23 or
    2026-11-23T14:00), local time; `since` is inclusive, `until` exclusive."""

    kind: str | None = None
    variant: str | None = None
    status: str | None = None
    mode: str | None = None
    grid: str | None = None  # only configs of this grid (scenarios/grids/<name>.toml)
    session: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int = 50  # newest N rows; 0 = all


def _date(text: str | None, option: str) -> float | None:
    if text is None:
        return None
    from fmhactl.schemas import shown

    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError, OSError):
        raise BadInput(f"{option} must be an ISO date such as 2026-11-23 or 2026-11-23T14:00, got {shown(text)}") from None


def query(flt: ResultsFilter, *, store: ResultStore | None = None) -> list[ResultRow]:
    """Stored rows matching flt, newest first."""
    from fmhactl.schemas import check_name, int_in_range, shown

    def choice(value: str | None, allowed: tuple[str, ...], option: str, upper: bool = False) -> str | None:
        if value is None:
            return None
        v = value.upper() if upper else value
        if v not in allowed:
            raise BadInput(f"{option} must be one of {', '.join(allowed)}, got {shown(value)}")
        return v

    kind = choice(flt.kind, KINDS, "--kind")
    status = choice(flt.status, STATUSES, "--status", upper=True)
    mode = choice(flt.mode, MODES, "--mode")
    if isinstance(flt.limit, int) and flt.limit < 0:
        raise BadInput("--limit must be >= 0")
    int_in_range(flt.limit, "--limit", 0, MAX_LIMIT)
    if flt.variant is not None:
        check_name(flt.variant, "--variant")
    if flt.session is not None and (len(flt.session) > 64 or not flt.session.isprintable()):
        raise BadInput(f"--session {shown(flt.session)} is not a session id")
    since, until = _date(flt.since, "--since"), _date(flt.until, "--until")
    if since is not None and until is not None and since >= until:
        raise BadInput("--since must be earlier than --until")
    keys = None
    if flt.grid is not None:
        from fmhactl.verify.grids import load_grid

        keys = [c.key for c in load_grid(flt.grid).configs]
    with _store(store) as s:
        return s.query(kind=kind, variant=flt.variant, status=status, mode=mode, session=flt.session,
                       config_keys=keys, since=since, until=until, limit=flt.limit or None)
