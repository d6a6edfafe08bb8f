"""The job that crosses the process boundary to the kernel worker, typed on both sides.

The parent makes a KernelJob (fmhactl.runtime.jobs.make_job); `to_dict` is the one JSON line the
worker reads; `from_dict` gives the worker the same record back; the handlers (Executor.run/dump,
fmhactl.verify.job, fmhactl.bench.job) read its fields. Its tile plan and launch geometry are
computed once per job (`tile_plan`, `launch_shape`), however many launches it makes. Import-light:
the worker loads it before torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from fmhactl.config import AttnConfig

# The ops whose message is a KernelJob; the CPU worker's control messages (build, selftest,
# cubin_sha256) stay plain dicts.
KERNEL_OPS = ("run", "dump", "verify", "bench", "profile")


@dataclass(frozen=True)
class KernelJob:
    """One unit of work for the kernel worker. `options` holds what one op alone reads (verify:
    layout; bench: bench; dump: at, out; run: trace_out, trace_capacity); `id` is set by the pool."""

    op: str
    variant: str
    kernel: str
    cubin: str
    launcher: str
    switches: dict[str, Any]
    config: AttnConfig
    seed: int
    mode: str
    options: dict[str, Any] = field(default_factory=dict)
    id: int | None = None
    # A project variant's own geometry (formulas or hook) and params layout (fmhactl/project/abi.py);
    # writes_lse is False for a kernel without the "lse" feature: it gets a null LSE pointer.
    launch: dict[str, Any] | None = None
    params: list[dict[str, Any]] | None = None
    params_as: str | None = None
    writes_lse: bool = True
    # the sha256 the cubin's build recorded: the worker loads only those bytes (runtime/driver.py
    # read_cubin); "" leaves it to the cache entry's meta. A Ray actor's job carries the shipped
    # cubin's under the same key.
    cubin_sha256: str = ""

    FIELDS = ("op", "variant", "kernel", "cubin", "launcher", "switches", "config", "seed", "mode", "id",
              "launch", "params", "params_as", "writes_lse", "cubin_sha256")

    def to_dict(self) -> dict[str, Any]:
        """The wire form: one flat JSON object (the options beside the fields)."""
        out: dict[str, Any] = {"op": self.op, "variant": self.variant, "kernel": self.kernel, "cubin": self.cubin,
                               "launcher": self.launcher, "switches": dict(self.switches),
                               "config": self.config.to_dict(), "seed": self.seed, "mode": self.mode, **self.options}
        if self.id is not None:
            out["id"] = self.id
        if self.launch:
            out["launch"] = dict(self.launch)
        if self.params:
            out["params"] = [dict(f) for f in self.params]
            out["params_as"] = self.params_as
        if not self.writes_lse:
            out["writes_lse"] = False
        if self.cubin_sha256:
            out["cubin_sha256"] = self.cubin_sha256
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KernelJob:
        missing = [k for k in cls.FIELDS[:9] if k not in data]
        if missing:
            raise ValueError(f"kernel job lacks {', '.join(missing)}")
        return cls(op=str(data["op"]), variant=str(data["variant"]), kernel=str(data["kernel"]),
                   cubin=str(data["cubin"]), launcher=str(data["launcher"]), switches=dict(data["switches"]),
                   config=AttnConfig.from_dict(data["config"]), seed=int(data["seed"]), mode=str(data["mode"]),
                   options={k: v for k, v in data.items() if k not in cls.FIELDS},
                   id=None if data.get("id") is None else int(data["id"]),
                   launch=dict(data["launch"]) if data.get("launch") else None,
                   params=[dict(f) for f in data["params"]] if data.get("params") else None,
                   params_as=None if data.get("params_as") is None else str(data["params_as"]),
                   writes_lse=bool(data.get("writes_lse", True)), cubin_sha256=str(data.get("cubin_sha256") or ""))

    def with_id(self, job_id: int) -> KernelJob:
        return replace(self, id=job_id)

    @property
    def emulated(self) -> bool:
        return self.mode == "emulated"

    @cached_property
    def tile_plan(self) -> Any:
        """The launcher's tile plan (Sm100Plan, Sm90Plan; None for ref), once per job: the TMA boxes
        and the verify checks read it from here."""
        from fmhactl.plans.launch import sm90_plan, sm100_plan

        if self.launcher == "sm100":
            return sm100_plan(self.config, self.switches)
        if self.launcher == "sm90":
            return sm90_plan(self.config, self.switches)
        return None

    def launch_shape(self, sm_count: int | None) -> Any:
        """Grid, block, dynamic SMEM and CTAs/SM of this job's launches, once per job and SM count."""
        from fmhactl.plans.launch import launch_shape

        shapes = self.__dict__.setdefault("_launch_shapes", {})
        if sm_count not in shapes:
            if self.launch:
                from fmhactl.project.abi import project_launch_shape

                shapes[sm_count] = project_launch_shape(self.launch, self.config, self.switches, sm_count)
            else:
                shapes[sm_count] = launch_shape(self.launcher, self.config, self.switches, sm_count)
        return shapes[sm_count]
