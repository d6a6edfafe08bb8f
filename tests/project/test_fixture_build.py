"""The seeds-style fixture builds unedited: its template kernel is compiled by C++ name (NVRTC name
expressions) and the job a worker runs carries the lowered symbol, the formulas and the mapping."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fmhactl.build.compiler import BuildTarget
from fmhactl.build.entry import build
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput, MissingEnvironment
from fmhactl.registry import load_registry
from fmhactl.runtime.jobs import make_job
from fmhactl.runtime.kernel_job import KernelJob


@pytest.fixture
def built(seeds_copy, monkeypatch):
    """(variant, its sm_90a build) of the fixture project, found from its folder."""
    monkeypatch.chdir(seeds_copy)
    variant = load_registry()["heads_bf16"]
    try:
        return variant, build(variant, BuildTarget("sm_90a"))
    except MissingEnvironment as exc:
        pytest.skip(str(exc))


def test_fixture_variant_builds_and_its_job_names_the_lowered_entry(built):
    variant, result = built
    assert variant.entries() == ["fmha_heads_kernel<128>", "fmha_heads_kernel<256>", "fmha_heads_kernel<64>"]
    assert set(result.entry_names) == set(variant.entries())
    lowered = result.entry_names["fmha_heads_kernel<128>"]
    assert lowered.startswith("_Z") and lowered in {k.kernel for k in result.kernels}
    assert lowered.encode() in result.cubin_path.read_bytes()
    cfg = AttnConfig(batch=2, heads=4, heads_kv=1, seq_q=5, seq_k=9, head_dim=128)
    job = make_job("verify", variant, result, cfg, seed=1, mode="native")
    assert job.kernel == lowered and job.launch["grid"] == [1, "heads", "batch"]
    assert [f["name"] for f in job.params][:2] == ["q_ptr", "k_ptr"]
    wire = KernelJob.from_dict(job.to_dict())  # the project fields survive the worker boundary
    assert (wire.launch, wire.params, wire.params_as, wire.writes_lse) == (job.launch, job.params, job.params_as, job.writes_lse)
    again = build(variant, BuildTarget("sm_90a"))  # a cache hit keeps the lowered names
    assert again.cache_hit and again.entry_names == result.entry_names


def test_an_entry_missing_from_the_cubin_is_bad_input_before_a_worker(built):
    variant, result = built
    typo = replace(variant, kernel="fmha_head_kernel<{head_dim}>")
    with pytest.raises(BadInput, match="'fmha_head_kernel<64>' is not in its sm_90a cubin"):
        make_job("verify", typo, result, AttnConfig(head_dim=64), seed=1, mode="native")


def test_a_variant_without_the_lse_feature_gets_a_null_lse(built):
    variant, result = built
    cfg = AttnConfig(head_dim=64)
    assert make_job("verify", variant, result, cfg, seed=1, mode="native").writes_lse
    no_lse = replace(variant, features=("causal", "gqa"))
    job = make_job("verify", no_lse, result, cfg, seed=1, mode="native")
    assert job.writes_lse is False and KernelJob.from_dict(job.to_dict()).writes_lse is False
