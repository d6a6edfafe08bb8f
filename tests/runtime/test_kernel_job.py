"""The verify/bench/run job crosses the process boundary as one typed record (KernelJob), and its
tile plan and launch geometry are computed once per job however many launches it makes."""

from __future__ import annotations

import io
import json

import pytest

from fmhactl.config import AttnConfig
from fmhactl.runtime.kernel_job import KernelJob

CFG = AttnConfig(batch=2, heads=8, seq_q=300, seq_k=517, head_dim=128, causal=True)


def job(**changes) -> KernelJob:
    fields = dict(op="verify", variant="sm90_pingpong", kernel="fmha_sm90_bf16_d128", cubin="/cache/x.cubin",
                  launcher="sm90", switches={"FMHA_STAGES": 2}, config=CFG, seed=41, mode="native",
                  options={"layout": "bhtd"})
    return KernelJob(**{**fields, **changes})


def test_the_wire_form_gives_the_same_record_back():
    sent = job()
    line = json.dumps(dict(sent.to_dict(), id=9))  # what KernelWorker.run writes
    back = KernelJob.from_dict(json.loads(line))
    assert back == sent.with_id(9)
    assert back.config == CFG and back.options == {"layout": "bhtd"} and back.seed == 41


def test_a_message_that_is_not_a_kernel_job_is_refused_by_name():
    with pytest.raises(ValueError, match="lacks .*cubin"):
        KernelJob.from_dict({"op": "verify", "variant": "x", "kernel": "k", "launcher": "sm90", "switches": {},
                             "config": CFG.to_dict(), "seed": 1, "mode": "native"})


def test_the_plan_and_the_launch_shape_are_computed_once_per_job_not_per_launch(monkeypatch):
    from fmhactl.plans import launch

    calls = {"plan": 0, "shape": 0}
    real_plan, real_shape = launch.sm90_plan, launch.launch_shape

    def counted_plan(*args, **kwargs):
        calls["plan"] += 1
        return real_plan(*args, **kwargs)

    def counted_shape(*args, **kwargs):
        calls["shape"] += 1
        return real_shape(*args, **kwargs)

    monkeypatch.setattr(launch, "sm90_plan", counted_plan)
    monkeypatch.setattr(launch, "launch_shape", counted_shape)
    j = job()
    j.tile_plan, j.launch_shape(132)
    first = dict(calls)
    plans = {id(j.tile_plan) for _ in range(5)}
    shapes = {id(j.launch_shape(132)) for _ in range(5)}
    # plans.launch_shape derives the plan itself (one more sm90_plan), once; no launch adds any
    assert first == {"plan": 2, "shape": 1} and calls == first and len(plans) == len(shapes) == 1
    assert j.tile_plan.block_n == 128 and j.launch_shape(132).block == (384, 1, 1)
    assert job(launcher="ref").tile_plan is None


def test_the_worker_hands_its_handlers_the_typed_record(monkeypatch):
    """worker._serve decodes each line into a KernelJob before any handler sees it."""
    from fmhactl.runtime import worker

    seen: list[KernelJob] = []

    class FakeExecutor:
        def run(self, j: KernelJob) -> dict:
            seen.append(j)
            return {"status": "OK", "metrics": {"launcher": j.launcher, "layout": j.options["layout"]}}

    replies: list[dict] = []
    sent = job(op="run")
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(dict(sent.to_dict(), id=3)) + "\n"))
    worker._serve(FakeExecutor(), replies.append)
    assert seen == [sent.with_id(3)]
    assert replies == [{"id": 3, "status": "OK", "metrics": {"launcher": "sm90", "layout": "bhtd"}}]
