"""A cubin is loaded only as its build made it: the build cache records its sha256 (and the meta's
own), and the runtime re-read the cubin at launch unchecked, so a cubin damaged after the build
(a cache hit already vouched for) reached cuModuleLoadData. Now the bytes read for loading are
checked against the job's record (runtime/driver.py read_cubin), else the cache entry's meta: a
damaged cubin is refused (MissingEnvironment, exit 3) before CUDA sees it, and the next build
rebuilds the entry. A launch needs a GPU; the read behind it runs here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.config import AttnConfig
from fmhactl.errors import MissingEnvironment
from fmhactl.registry import get_variant
from fmhactl.runtime.driver import read_cubin
from fmhactl.runtime.jobs import make_job
from fmhactl.runtime.kernel_job import KernelJob

ARCH = "sm_80"
CFG = AttnConfig(batch=1, heads=1, seq_q=64, seq_k=64, head_dim=64)


@pytest.fixture()
def built(tmp_path, monkeypatch):
    """A real cache entry of ref sm_80 (NVRTC, about a second) in a fresh home."""
    monkeypatch.setenv("FMHACTL_HOME", str(tmp_path / "home"))
    return build(get_variant("ref"), BuildTarget(ARCH), force=True)


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x40
    path.write_bytes(bytes(data))


def test_a_cubin_damaged_after_its_build_is_refused_not_loaded(built):
    original = built.cubin_path.read_bytes()
    assert built.cubin_sha256 == hashlib.sha256(original).hexdigest()
    job = make_job("run", get_variant("ref"), built, CFG, seed=1, mode="native")
    assert job.cubin_sha256 == built.cubin_sha256
    assert KernelJob.from_dict(json.loads(json.dumps(job.to_dict()))) == job  # the record crosses to the worker
    assert read_cubin(Path(job.cubin), job.cubin_sha256) == original

    _flip_a_byte(built.cubin_path)
    for sha in (job.cubin_sha256, ""):  # the job's record, and the cache entry's meta where a job has none
        with pytest.raises(MissingEnvironment) as caught:
            read_cubin(built.cubin_path, sha)
        assert caught.value.code == 3
        assert str(built.cubin_path) in str(caught.value) and "does not match the sha256" in str(caught.value)


def test_the_next_build_rebuilds_the_entry_the_runtime_refused(built):
    """What the refusal tells the user to do works: the cache finds the entry damaged and rebuilds it."""
    original = built.cubin_path.read_bytes()
    _flip_a_byte(built.cubin_path)
    with pytest.raises(MissingEnvironment):
        read_cubin(built.cubin_path, built.cubin_sha256)
    again = build(get_variant("ref"), BuildTarget(ARCH))
    assert not again.cache_hit and again.cubin_path.read_bytes() == original
    assert read_cubin(again.cubin_path, again.cubin_sha256) == original


def test_a_meta_file_edited_after_the_build_refuses_the_load(built):
    meta_path = built.cubin_path.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    meta["cubin_sha256"] = hashlib.sha256(b"other bytes").hexdigest()  # not resealed: its own sha256 disagrees
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(MissingEnvironment, match="meta file does not match its own sha256"):
        read_cubin(built.cubin_path)
    meta_path.write_text("{")
    with pytest.raises(MissingEnvironment, match="meta file unreadable"):
        read_cubin(built.cubin_path)


@pytest.mark.parametrize("change, problem", [
    ({"cache_schema": 2}, "not a cache record of this fmhactl"),  # an older fmhactl's entry, resealed
    ({"cubin_sha256": None}, "records no cubin sha256"),
])
def test_the_load_and_the_cache_hit_refuse_the_same_sealed_metas(built, change, problem, capsys):
    """A meta sealed by its own sha256 but not one this fmhactl vouches by: the runtime's load
    refuses it (exit 3) and the build's cache hit does not serve it (one check, _seal_problem)."""
    from fmhactl.build.compiler import write_meta

    meta_path = built.cubin_path.with_suffix(".json")
    meta = {k: v for k, v in json.loads(meta_path.read_text()).items() if k != "meta_sha256"}
    write_meta(meta_path, {**meta, **change})
    with pytest.raises(MissingEnvironment, match=problem) as caught:
        read_cubin(built.cubin_path)
    assert caught.value.code == 3
    capsys.readouterr()
    again = build(get_variant("ref"), BuildTarget(ARCH))
    assert not again.cache_hit and problem + ");" in capsys.readouterr().err


def test_the_executor_refuses_a_damaged_cubin_before_cuda_loads_it(built, monkeypatch):
    """The one place a worker loads a job's cubin (Executor._function): the check runs before
    cuModuleLoadData, which would fail the test if it were reached."""
    pytest.importorskip("cuda.bindings.driver")
    from fmhactl.runtime import driver
    from fmhactl.runtime.execute import Executor

    def loaded(data):
        raise AssertionError("cuModuleLoadData was reached with a damaged cubin")

    monkeypatch.setattr(driver._driver(), "cuModuleLoadData", loaded)
    job = make_job("run", get_variant("ref"), built, CFG, seed=1, mode="native")
    _flip_a_byte(built.cubin_path)
    with pytest.raises(MissingEnvironment, match="damaged after the build"):
        Executor()._function(job)


def test_a_cubin_outside_the_build_cache_is_read_as_it_is(tmp_path):
    """A test's own cubin (no meta beside it, no record in a job) has nothing to be checked against."""
    loose = tmp_path / "raw.cubin"
    loose.write_bytes(b"\x7fELF loose")
    assert read_cubin(loose) == b"\x7fELF loose"


def test_a_ray_sweep_does_not_ship_a_cubin_its_build_did_not_make(built):
    pytest.importorskip("ray")
    from fmhactl.sweep.ray_backend import RaySlot

    class Backend:
        timeout_s = 1.0

        def ship(self, cubin: Path) -> tuple[str, object]:
            return hashlib.sha256(cubin.read_bytes()).hexdigest(), object()

    job = make_job("run", get_variant("ref"), built, CFG, seed=1, mode="native")
    _flip_a_byte(built.cubin_path)
    reply = RaySlot(Backend(), "slot 0").run(job)  # type: ignore[arg-type]
    assert reply["status"] == "ERROR" and "damaged after the build" in reply["error"], reply
