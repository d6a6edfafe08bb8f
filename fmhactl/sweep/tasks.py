"""The sweep's units of work: one verify/bench config, one build, one CPU self-test config.

Seeds and input layouts follow the one-GPU path exactly (config i of the grid uses seed+i and
alternates bthd/bhtd by i), so a sweep spread over devices checks the very same inputs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from fmhactl.build.compiler import BuildResult, BuildTarget
from fmhactl.build.entry import build
from fmhactl.build.resources import KernelResources
from fmhactl.config import AttnConfig
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow
from fmhactl.runtime.jobs import make_job, row_from_reply
from fmhactl.runtime.modes import COMPILE_ONLY, EMULATED, plan
from fmhactl.sweep.scheduler import SweepTask

SELFTEST_FAULT_AT_SEQ_Q = 3  # the same planted-fault config as the GPU self-test kernels
SELFTEST_VARIANTS = {"cpu_selftest": None, "cpu_selftest_fault": "crash", "cpu_selftest_hang": "hang"}


class BuildMemo:
    """Each (variant, target) compiled once per sweep, in the parent, whichever slot asks first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: dict[tuple[str, BuildTarget], BuildResult] = {}

    def get(self, variant: Variant, target: BuildTarget) -> BuildResult:
        with self._lock:  # one NVRTC compile at a time in this process
            key = (variant.name, target)
            if key not in self._done:
                self._done[key] = build(variant, target)
            return self._done[key]


def _lost_row(kind: str, variant: str, cfg: AttnConfig | None, seed: int | None, session: str,
              reason: str) -> ResultRow:
    return ResultRow(kind=kind, variant=variant, arch="", mode="", status="ERROR",
                     config_key=cfg.key if cfg else "", config=cfg.to_dict() if cfg else {},
                     metrics={"error": reason, "lost": True}, seed=seed, session=session)


@dataclass
class KernelTask(SweepTask):
    """verify or bench of one (variant, config) on whichever GPU slot takes it."""

    op: str
    index: int
    variant: Variant
    config_index: int
    cfg: AttnConfig
    seed: int
    session: str
    builds: BuildMemo
    extra: dict = field(default_factory=dict)
    _planned: tuple | None = None

    def prepare(self, hello: dict) -> dict | ResultRow:
        planned = plan(self.variant, hello["cc"])
        reason = planned if isinstance(planned, str) else self.variant.unsupported_reason(self.cfg)
        if reason:
            return ResultRow(kind=self.op, variant=self.variant.name, arch="", mode="", status="UNSUPPORTED",
                             config_key=self.cfg.key, config=self.cfg.to_dict(), metrics={"reason": reason},
                             gpu=hello.get("gpu") or "", driver=hello.get("driver", ""),
                             seed=self.seed, session=self.session)
        target, mode = planned
        built = self.builds.get(self.variant, target)
        self._planned = (target, mode, built)
        extra = dict(self.extra)
        if self.op == "verify":
            # Alternate the input memory layout so strides are exercised, not assumed.
            extra["layout"] = "bhtd" if self.config_index % 2 else "bthd"
        return make_job(self.op, self.variant, built, self.cfg, self.seed, mode, **extra)

    def finish(self, reply: dict, hello: dict) -> ResultRow:
        assert self._planned is not None
        target, mode, built = self._planned
        row = row_from_reply(self.op, self.variant, built, target.arch, mode, self.cfg, self.seed, reply,
                             hello, self.session)
        if self.op == "bench" and mode == EMULATED:
            row.metrics["note"] = "emulated execution: timings say nothing about SM100 performance"
        return row

    def lost(self, reason: str) -> ResultRow:
        return _lost_row(self.op, self.variant.name, self.cfg, self.seed, self.session, reason)


@dataclass
class BuildTask(SweepTask):
    """One (variant, target) compiled in a CPU slot's worker, into the shared cache."""

    index: int
    variant: Variant
    target: BuildTarget
    session: str
    force: bool = False
    result: BuildResult | None = None

    def prepare(self, hello: dict) -> dict:
        return {"op": "build", "variant": self.variant.name, "arch": self.target.arch,
                "emulated": self.target.emulated, "strict": self.target.strict, "force": self.force}

    def finish(self, reply: dict, hello: dict) -> ResultRow:
        if reply.get("status") == "OK":
            self.result = build_result_from_dict(reply["build"])
            self.result.target = self.target  # the full target (to_dict leaves out the emulator flavour)
            return ResultRow(kind="build", variant=self.variant.name, arch=self.target.arch, mode=COMPILE_ONLY,
                             status="OK", metrics=self.result.to_dict(), source_hash=self.result.source_hash,
                             toolchain=self.result.toolchain, session=self.session)
        return ResultRow(kind="build", variant=self.variant.name, arch=self.target.arch, mode=COMPILE_ONLY,
                         status="ERROR", session=self.session,
                         metrics={"error": reply.get("error", reply.get("status", "?")),
                                  "emulated": self.target.emulated})

    def lost(self, reason: str) -> ResultRow:
        return ResultRow(kind="build", variant=self.variant.name, arch=self.target.arch, mode=COMPILE_ONLY,
                         status="ERROR", metrics={"error": reason, "lost": True, "emulated": self.target.emulated},
                         session=self.session)


def build_result_from_dict(d: dict) -> BuildResult:
    from pathlib import Path

    return BuildResult(d["variant"], BuildTarget(d["arch"], emulated=bool(d["emulated"]), strict=bool(d.get("strict"))), Path(d["cubin"]),
                       [KernelResources(**k) for k in d["kernels"]], float(d["compile_seconds"]),
                       bool(d["cache_hit"]), d["source_hash"], d["cache_key"], d["toolchain"],
                       list(d.get("warnings", [])))


@dataclass
class SelftestTask(SweepTask):
    """One config of the CPU self-test (see fmhactl.sweep.cpu_worker)."""

    index: int
    name: str
    cfg: AttnConfig
    seed: int
    session: str
    delay_s: float = 0.0

    def prepare(self, hello: dict) -> dict | ResultRow:
        from fmhactl.sweep.cpu_worker import SELFTEST_MAX_ELEMENTS

        c = self.cfg
        if c.batch * c.heads * c.seq_q * c.seq_k > SELFTEST_MAX_ELEMENTS:
            return ResultRow(kind="selftest", variant=self.name, arch="cpu", mode="cpu", status="UNSUPPORTED",
                             config_key=c.key, config=c.to_dict(), seed=self.seed, session=self.session,
                             metrics={"reason": f"b*h*t*s > {SELFTEST_MAX_ELEMENTS} is too large for the CPU self-test"})
        fault = SELFTEST_VARIANTS[self.name] if c.seq_q == SELFTEST_FAULT_AT_SEQ_Q else None
        return {"op": "selftest", "config": c.to_dict(), "seed": self.seed, "fault": fault,
                "delay_s": self.delay_s}

    def finish(self, reply: dict, hello: dict) -> ResultRow:
        metrics = dict(reply.get("metrics", {}))
        if "error" in reply:
            metrics["error"] = reply["error"]
        return ResultRow(kind="selftest", variant=self.name, arch="cpu", mode="cpu", status=reply["status"],
                         config_key=self.cfg.key, config=self.cfg.to_dict(), metrics=metrics, seed=self.seed,
                         session=self.session)

    def lost(self, reason: str) -> ResultRow:
        return _lost_row("selftest", self.name, self.cfg, self.seed, self.session, reason)
