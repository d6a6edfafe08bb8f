"""On a GPU: the seeds-style fixture and a freshly scaffolded project verify on `smoke` (poisoned
outputs, the FA rule, LSE), through the same service the CLI calls."""

from __future__ import annotations

import pytest

from fmhactl import services


@pytest.mark.gpu
def test_fixture_project_verifies(seeds_copy, monkeypatch):
    monkeypatch.chdir(seeds_copy)
    outcome = services.verify(["heads_bf16"], grid="smoke", seed=26, timeout_s=60)
    assert outcome.ok and outcome.counts.get("PASS", 0) >= 4, outcome.closing_line()


@pytest.mark.gpu
def test_scaffolded_kernels_verify(tmp_path, monkeypatch):
    services.project.init_project(tmp_path / "attn")
    monkeypatch.chdir(tmp_path / "attn")
    monkeypatch.setenv("FMHACTL_EMULATION", "fast")
    outcome = services.verify(["sm90_start", "sm100_tc5", "sm100_raw_ptx"], grid="smoke", seed=26, timeout_s=120)
    assert outcome.ok and outcome.counts.get("PASS", 0) >= 12, outcome.closing_line()
