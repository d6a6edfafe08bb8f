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


@pytest.fixture
def tma_copy(tmp_path):
    """tests/fixtures/tma_project copied: a kernel taking TMA maps in its own params (by pointer and by value)."""
    import shutil
    from pathlib import Path

    target = tmp_path / "tma_project"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "tma_project", target,
                    ignore=shutil.ignore_patterns(".fmhactl"))
    return target


@pytest.mark.gpu
def test_tma_fixture_verifies_natively(tma_copy, monkeypatch):
    """Hopper's own TMA loads Q and stores O through the maps fmhactl encodes from the declaration,
    for both memory layouts verify alternates, odd lengths, GQA, MQA and causal (awkward, hd 64/128):
    maps in a by-value struct, and as parameters of their own (pass_as = "arguments")."""
    from fmhactl.verify.grids import load_grid

    monkeypatch.chdir(tma_copy)
    outcome = services.verify(["tma_sm90", "tma_args_sm90"], grid="awkward", seed=24, timeout_s=60)
    taken = [c for c in load_grid("awkward").configs if c.head_dim in (64, 128) and c.dtype == "bf16"]
    assert outcome.ok and outcome.counts.get("PASS", 0) == 2 * len(taken), (outcome.closing_line(), outcome.counts)


@pytest.mark.gpu
def test_tma_fixture_verifies_under_strict_emulation(tma_copy, monkeypatch):
    """The same source's sm_100a PTX through the PTX path, strict: the maps work there too and the
    store (declared with its box) is waited for before the CTA exits."""
    monkeypatch.chdir(tma_copy)
    monkeypatch.setenv("FMHACTL_EMULATION", "strict")
    from fmhactl.verify.grids import load_grid

    outcome = services.verify(["tma_sm100"], grid="smoke", seed=24, timeout_s=180)
    assert outcome.ok and outcome.counts.get("PASS", 0) == len(load_grid("smoke").configs), (outcome.closing_line(),
                                                                                            outcome.counts)


@pytest.mark.gpu
def test_a_store_race_through_a_declared_map_is_named(tma_copy, monkeypatch):
    """The staged O overwritten at row 5 after the store's commit and before its wait: only a map
    declared with its box (fmhactl declares the params' maps) covers that byte, so the race is named."""
    monkeypatch.chdir(tma_copy)
    monkeypatch.setenv("FMHACTL_EMULATION", "strict")
    toml = tma_copy / "fmhactl.toml"
    text = toml.read_text()
    start = text.index('[[variant]]\nname = "tma_sm100"')
    race = text[start:text.index("\n[params.", start)].split("\n#")[0]  # its table and its launch table
    race = race.replace('name = "tma_sm100"', 'name = "tma_sm100_race"').replace(
        "switches = { TMA_ROWS = 64 }", "switches = { TMA_ROWS = 64, FMHA_TMA_RACE = 1 }")
    toml.write_text(text + "\n" + race)
    outcome = services.verify(["tma_sm100_race"], shapes=["b=1,h=2,t=40,s=128,d=64"], seed=24, timeout_s=180)
    (row,) = outcome.rows
    assert row.status == "FAIL", (row.status, row.metrics)
    violations = row.metrics.get("violations", [])
    assert len(violations) == 2, row.metrics  # one per CTA (h = 2)
    # the whole 64 x 64 bf16 box, 8192 bytes; an undeclared map would be watched on 16
    assert all(v.startswith("tcgen05 tma-store-source-overwritten: tma_store") and "(8192 bytes checked)" in v
               for v in violations), violations
