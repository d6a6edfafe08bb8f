"""Milestone states from the results store, per execution mode.

States: DONE (every required config's latest row passes at the current source hash), STALE
(all pass, but some passing rows were made from sources that have changed since), IN PROGRESS
(some configs fail or were never run in that mode), NOT RUN (no rows in that mode), BLOCKED
(explicit reason, variants missing from the registry, or a milestone that would be DONE or is
NOT RUN while a dependency is not DONE: a milestone is never DONE before what it builds on).
A regression is a config whose latest row fails although an earlier row (same variant, config,
mode) passed.

The rows come from a store that `status/service.py` builds from the local results store plus
the committed evidence (`results/evidence.py`); rows are named by their record id (a content
hash), never by a DB row id, so the computed files are the same in every checkout.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from fmhactl.build.hashing import source_hash
from fmhactl.errors import FmhactlError
from fmhactl.records import BenchMetrics, BuildMetrics, ProfileMetrics, VerifyMetrics, metrics_of
from fmhactl.registry import Variant, load_registry
from fmhactl.results.evidence import record_id
from fmhactl.results.store import ResultRow, ResultStore
from fmhactl.status.milestones import Milestone

DONE, STALE, IN_PROGRESS, NOT_RUN, BLOCKED = "DONE", "STALE", "IN PROGRESS", "NOT RUN", "BLOCKED"
_RANK = {DONE: 0, STALE: 1, IN_PROGRESS: 2, NOT_RUN: 3, BLOCKED: 4}


@dataclass(frozen=True)
class ModeSpec:
    label: str
    kind: str  # verify | build
    arch: str | None
    mode: str
    performance: bool  # timings in this mode are performance numbers
    emulation: str = ""  # rows must carry metrics.emulation == this ("strict": the fast emulator proves nothing)


MODES = (
    ModeSpec("sm100 native", "verify", "sm_100a", "native", True),
    ModeSpec("sm100 emulated", "verify", None, "emulated", False, "strict"),
    ModeSpec("sm90 native", "verify", "sm_90a", "native", True),
    ModeSpec("compile-only", "build", None, "compile-only", False),
)


@dataclass
class Failure:
    variant: str
    config_key: str
    status: str
    record: str  # evidence record id (results/evidence.record_id)
    max_abs_err: float | None = None
    cosine: float | None = None
    reasons: list[str] = field(default_factory=list)
    error_map: str = ""
    error: str = ""


@dataclass
class ModeStatus:
    mode: str
    state: str
    passed: int = 0
    required: int = 0
    unsupported: int = 0
    missing: int = 0
    max_abs_err: float | None = None
    min_cosine: float | None = None
    lse_max_err: float | None = None
    failures: list[Failure] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    bench: list[dict] = field(default_factory=list)
    profiles: list[dict] = field(default_factory=list)
    records: list[str] = field(default_factory=list)  # evidence record ids of the rows counted
    note: str = ""
    rows: list[ResultRow] = field(default_factory=list, repr=False)  # every row this mode consulted

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "rows"}


@dataclass
class MilestoneStatus:
    milestone: Milestone
    state: str
    reason: str = ""
    proved_in: list[str] = field(default_factory=list)
    modes: list[ModeStatus] = field(default_factory=list)
    hashes: dict[str, str] = field(default_factory=dict)
    own_state: str = ""  # the state its own proof gives, before the dependency rule

    @property
    def consulted(self) -> list[ResultRow]:
        """Every row the computation read (what `fmhactl results export` writes as evidence)."""
        return [r for m in self.modes for r in m.rows]

    @property
    def proof_rows(self) -> list[ResultRow]:
        """The rows counted in the modes the milestone is proved in (its evidence)."""
        return [r for m in self.modes if m.mode in self.proved_in for r in m.rows
                if r.kind not in ("bench", "profile")]

    @property
    def regressions(self) -> list[str]:
        return [r for m in self.modes for r in m.regressions]

    def mode(self, label: str) -> ModeStatus | None:
        return next((m for m in self.modes if m.mode == label), None)

    def to_dict(self) -> dict:
        m = self.milestone
        return {"id": m.id, "title": m.title, "state": self.state, "own_state": self.own_state or self.state,
                "reason": self.reason,
                "proved_in": self.proved_in, "variants": list(m.variants), "grids": list(m.grids),
                "scenario": m.scenario, "depends": list(m.depends), "hashes": self.hashes,
                "modes": {x.mode: x.to_dict() for x in self.modes}}


def _latest_by_config(rows: list[ResultRow]) -> tuple[dict[str, ResultRow], dict[str, ResultRow]]:
    """Rows newest first -> the latest row per config, and per config the newest earlier PASS."""
    latest: dict[str, ResultRow] = {}
    passed_before: dict[str, ResultRow] = {}
    for row in rows:
        if row.config_key not in latest:
            latest[row.config_key] = row
        elif row.status == "PASS":
            passed_before.setdefault(row.config_key, row)
    return latest, passed_before


def _matches(row: ResultRow, spec: ModeSpec) -> bool:
    return (row.mode == spec.mode and (spec.arch is None or row.arch == spec.arch)
            and (not spec.emulation or row.metrics.get("emulation") == spec.emulation))


def _verify_mode(spec: ModeSpec, variants: list[Variant], configs: list, store: ResultStore,
                 hashes: dict[str, str], milestone_id: str) -> ModeStatus:
    status = ModeStatus(spec.label, NOT_RUN)
    any_row = False
    for variant in variants:
        rows = [r for r in store.query(kind="verify", variant=variant.name, mode=spec.mode, arch=spec.arch)
                if _matches(r, spec)]
        latest, passed_before = _latest_by_config(rows)
        old_hashes: set[str] = set()
        for cfg in configs:
            if variant.unsupported_reason(cfg):
                status.unsupported += 1
                continue
            status.required += 1
            row = latest.get(cfg.key)
            if row is None:
                status.missing += 1
                continue
            any_row = True
            status.records.append(record_id(row))
            status.rows.append(row)
            m = VerifyMetrics.from_dict(row.metrics)
            if row.status == "PASS":
                status.passed += 1
                if m.max_abs_err is not None:
                    status.max_abs_err = max(status.max_abs_err or 0.0, m.max_abs_err)
                if m.cosine is not None:
                    status.min_cosine = min(status.min_cosine if status.min_cosine is not None else 1.0, m.cosine)
                if m.lse_max_err is not None:
                    status.lse_max_err = max(status.lse_max_err or 0.0, m.lse_max_err)
                if row.source_hash != hashes[variant.name]:
                    old_hashes.add(row.source_hash)
                continue
            status.failures.append(Failure(
                variant=variant.name, config_key=cfg.key, status=row.status, record=record_id(row),
                max_abs_err=m.max_abs_err, cosine=m.cosine, reasons=list(m.reasons),
                error_map=m.error_map, error=m.error or m.reason))
            if cfg.key in passed_before:
                status.rows.append(passed_before[cfg.key])
                status.regressions.append(f"{milestone_id} {spec.label}: {variant.name} {cfg.key} passed before"
                                          f" (record {record_id(passed_before[cfg.key])}), now {row.status}"
                                          f" (record {record_id(row)})")
        for old in sorted(old_hashes):
            status.stale.append(f"{variant.name}: passed with sources {old[:12] or '?'}, sources now "
                                f"{hashes[variant.name][:12]}")
        if spec.performance:
            status.bench += _bench_rows(store, variant, spec, status.rows)
        status.profiles += _profile_rows(store, variant, spec, status.rows)
    return _settle(status, any_row)


def _settle(status: ModeStatus, any_row: bool) -> ModeStatus:
    """The mode's state from what was found: nothing, failures or gaps, stale sources, or done."""
    status.records.sort()
    if not any_row:
        status.state = NOT_RUN
    elif status.failures or status.missing:
        status.state = IN_PROGRESS
    elif status.stale:
        status.state = STALE
    else:
        status.state = DONE
    return status


def _bench_rows(store: ResultStore, variant: Variant, spec: ModeSpec, consulted: list[ResultRow]) -> list[dict]:
    seen: dict[str, dict] = {}
    for row in store.query(kind="bench", variant=variant.name, mode=spec.mode, arch=spec.arch, status="OK"):
        if row.config_key in seen or not _matches(row, spec):
            continue
        consulted.append(row)
        m = BenchMetrics.from_dict(row.metrics)
        ratios = {b.name: b.ratio for b in sorted(m.baselines, key=lambda b: b.name) if b.ratio is not None}
        seen[row.config_key] = {"variant": variant.name, "config": row.config_key, "record": record_id(row),
                                "tflops": m.kernel.tflops if m.kernel else None,
                                "median_ms": m.kernel.median_ms if m.kernel else None, "ratios": ratios}
    return [seen[k] for k in sorted(seen)]


def _profile_rows(store: ResultStore, variant: Variant, spec: ModeSpec, consulted: list[ResultRow]) -> list[dict]:
    seen: dict[str, dict] = {}
    for row in store.query(kind="profile", variant=variant.name, mode=spec.mode, arch=spec.arch, status="OK"):
        if row.config_key in seen or not _matches(row, spec):
            continue
        consulted.append(row)
        p = ProfileMetrics.from_dict(row.metrics)
        s = p.summary
        seen[row.config_key] = {"variant": variant.name, "config": row.config_key, "record": record_id(row),
                                "recipe": p.recipe, "report": p.report_path, "duration_us": s.duration_us,
                                "tflops": s.tflops, "pct_of_tensor_peak": s.pct_of_tensor_peak, "dram_pct": s.dram_pct,
                                "registers_per_thread": s.registers_per_thread,
                                "occupancy_achieved_pct": s.occupancy_achieved_pct,
                                "smem_bank_conflicts_ld": s.smem_bank_conflicts_ld,
                                "top_stalls": [list(t) for t in s.top_stalls]}
    return [seen[k] for k in sorted(seen)]


def _build_mode(spec: ModeSpec, variants: list[Variant], store: ResultStore, hashes: dict[str, str]) -> ModeStatus:
    status = ModeStatus(spec.label, NOT_RUN)
    any_row = False
    for variant in variants:
        arches = list(dict.fromkeys(list(variant.archs) + list(variant.emulated_on)))
        for arch in arches:
            status.required += 1
            rows = store.query(kind="build", variant=variant.name, arch=arch, limit=1)
            if not rows:
                status.missing += 1
                continue
            any_row = True
            row = rows[0]
            status.records.append(record_id(row))
            status.rows.append(row)
            if row.status != "OK":
                error = BuildMetrics.from_dict(row.metrics).error.strip().splitlines()
                status.failures.append(Failure(variant.name, arch, row.status, record_id(row),
                                               error=error[0][:300] if error else ""))
            elif row.source_hash != hashes[variant.name]:
                status.passed += 1
                status.stale.append(f"{variant.name} {arch}: built from sources {row.source_hash[:12]}, "
                                    f"sources now {hashes[variant.name][:12]}")
            else:
                status.passed += 1
    return _settle(status, any_row)


def compute_status(milestones: list[Milestone], store: ResultStore,
                   registry: dict[str, Variant] | None = None) -> list[MilestoneStatus]:
    from fmhactl.verify.grids import load_grid

    registry = registry if registry is not None else load_registry()
    results: list[MilestoneStatus] = []
    for milestone in milestones:
        missing = [v for v in milestone.variants if v not in registry]
        if milestone.blocked:
            results.append(MilestoneStatus(milestone, BLOCKED, milestone.blocked))
            continue
        if milestone.checks:
            results.append(_checks_status(milestone, store, registry))
            continue
        if missing:
            results.append(MilestoneStatus(milestone, BLOCKED,
                                           f"variants not in kernels/family.toml: {', '.join(missing)}"))
            continue
        configs = []
        try:
            for grid in milestone.grids:
                configs += [c for c in load_grid(grid).configs if c not in configs]
        except FmhactlError as exc:
            results.append(MilestoneStatus(milestone, BLOCKED, f"grid: {exc}"))
            continue
        variants = [registry[v] for v in milestone.variants]
        hashes = {v.name: source_hash(v.source_path, v.include_dirs) for v in variants}
        modes = [(_build_mode(spec, variants, store, hashes) if spec.kind == "build"
                  else _verify_mode(spec, variants, configs, store, hashes, milestone.id)) for spec in MODES]
        verify_modes = [m for m, spec in zip(modes, MODES) if spec.kind == "verify"]
        best = min((m.state for m in verify_modes), key=lambda s: _RANK[s])
        proved = [m.mode for m in verify_modes if m.state == best] if best in (DONE, STALE, IN_PROGRESS) else []
        results.append(MilestoneStatus(milestone, best, "", proved, modes, hashes))
    _apply_dependencies(results)
    return results


def _apply_dependencies(results: list[MilestoneStatus]) -> None:
    """A milestone is not DONE while one it depends on is not DONE. A milestone that would be DONE
    or is NOT RUN shows BLOCKED ("by M1 (NOT RUN); own proof DONE"); IN PROGRESS and STALE stay
    (they are not DONE) and name what they wait for. Dependencies are resolved first, so a chain
    M1 -> M2 -> M3 blocks all the way down."""
    by_id = {r.milestone.id: r for r in results}
    settled: set[str] = set()

    def settle(r: MilestoneStatus) -> None:
        if r.milestone.id in settled:
            return
        settled.add(r.milestone.id)
        r.own_state = r.state
        for dep in r.milestone.depends:
            settle(by_id[dep])
        waiting = [d for d in r.milestone.depends if by_id[d].state != DONE]
        if not waiting or r.state == BLOCKED:
            return
        why = ", ".join(f"{d} ({by_id[d].state})" for d in waiting)
        if r.state in (DONE, NOT_RUN):
            r.state = BLOCKED
            r.reason = f"by {why}; own proof {r.own_state}"
        else:
            r.reason = f"waits for {why}"

    for r in results:
        settle(r)


def _checks_status(milestone: Milestone, store: ResultStore, registry: dict[str, Variant]) -> MilestoneStatus:
    """A milestone proved by named result rows ("kind:config_key"), e.g. M6's torch integration checks.

    Per verify mode: the latest row of each check in that mode must pass (PASS, or OK for a
    benchmark that ran); a row made from since-changed sources of the variant it ran is stale.
    """
    hashes: dict[str, str] = {}
    modes: list[ModeStatus] = []
    for spec in MODES:
        if spec.kind != "verify":
            continue
        status = ModeStatus(spec.label, NOT_RUN)
        any_row = False
        backends: set[str] = set()
        for check in milestone.checks:
            kind, key = check.split(":", 1)
            status.required += 1
            row = next((r for r in store.query(kind=kind, config_key=key) if _matches(r, spec)), None)
            if row is None:
                status.missing += 1
                continue
            any_row = True
            backends.add(row.variant)
            status.records.append(record_id(row))
            status.rows.append(row)
            if row.status not in ("PASS", "OK"):
                error = getattr(metrics_of(row.kind, row.metrics), "error", "")
                status.failures.append(Failure(row.variant, check, row.status, record_id(row), error=error[:300]))
                continue
            status.passed += 1
            variant = registry.get(row.variant)
            if variant is not None:
                hashes.setdefault(variant.name, source_hash(variant.source_path, variant.include_dirs))
                if row.source_hash and row.source_hash != hashes[variant.name]:
                    status.stale.append(f"{check}: ran {variant.name} from sources {row.source_hash[:12]}, "
                                        f"sources now {hashes[variant.name][:12]}")
        if backends:
            status.note = "backend: " + ", ".join(sorted(backends))
        modes.append(_settle(status, any_row))
    best = min((m.state for m in modes), key=lambda s: _RANK[s])
    proved = [m.mode for m in modes if m.state == best] if best in (DONE, STALE, IN_PROGRESS) else []
    return MilestoneStatus(milestone, best, "", proved, modes, hashes)


def state_map(statuses: list[MilestoneStatus]) -> dict:
    """{id: {"state": ..., "modes": {mode: state}}}: what --check compares with the previous run."""
    return {s.milestone.id: {"state": s.state, "modes": {m.mode: m.state for m in s.modes}} for s in statuses}


def state_regressions(previous: dict, current: dict) -> list[str]:
    """DONE before, IN PROGRESS now (STALE and NOT RUN are not regressions: re-run, nothing broke)."""
    out = []
    for mid, now in sorted(current.items()):
        before = previous.get(mid)
        if not isinstance(before, dict):
            continue
        for mode, state in sorted(now.get("modes", {}).items()):
            if before.get("modes", {}).get(mode) == DONE and state == IN_PROGRESS:
                out.append(f"{mid} {mode}: DONE before, IN PROGRESS now")
    return out
