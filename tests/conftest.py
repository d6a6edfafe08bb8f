"""Shared fixtures: every test writes to a private FMHACTL_HOME; GPU tests skip without a GPU."""

from __future__ import annotations

import functools

import pytest


@functools.cache
def _gpu_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


_RUN_ORDER = pytest.StashKey[list]()


def pytest_runtest_setup(item):
    item.config.stash.setdefault(_RUN_ORDER, []).append(item.nodeid)


@pytest.fixture
def tests_run_before(request) -> list[str]:
    """The tests this process (an xdist worker: its share, in its order) started before this one,
    for an intermittent failure's report: which earlier tests shared the process is otherwise lost."""
    return request.config.stash.get(_RUN_ORDER, [])[:-1]


HEAVY_ENV = "FMHACTL_HEAVY_TESTS"


def pytest_collection_modifyitems(config, items):
    import os

    skip = pytest.mark.skip(reason="needs a CUDA GPU")
    skip_heavy = pytest.mark.skip(reason=f"heavy (minutes of compiling): {HEAVY_ENV}=1 runs it")
    heavy = os.environ.get(HEAVY_ENV) == "1"
    for item in items:
        if "gpu" in item.keywords and not _gpu_available():
            item.add_marker(skip)
        if "heavy" in item.keywords and not heavy:
            item.add_marker(skip_heavy)


@pytest.fixture(scope="session")
def _session_home(tmp_path_factory):
    """A fresh folder, or FMHACTL_TEST_HOME when set: a device run points it at the FMHACTL_HOME
    its `fmhactl build` steps filled, so GPU tests reuse those builds instead of compiling again."""
    import os
    from pathlib import Path

    given = os.environ.get("FMHACTL_TEST_HOME")
    if given:
        return Path(given)
    home = tmp_path_factory.mktemp("fmhactl-home")
    _share_emulator_cache(home, tmp_path_factory)
    return home


def _share_emulator_cache(home, tmp_path_factory) -> None:
    """The PTX emulator's cache (cache/ptx-emulator: its NVRTC compiles take 9-18 s each) is one
    folder for the whole run, shared by the xdist workers, so each distinct emulator compiles once
    in the run, not once per worker. Safe to share: its entries are keyed by content, written
    atomically under a per-key lock, checked against their sha256 when read, and no test damages
    this folder (tests/ptx/test_emulator_cache.py uses a home of its own). The rest of the cache
    stays the worker's own: some tests damage or rebuild entries of it on purpose."""
    import os

    from fmhactl.ptx.emulator import EMU_CACHE

    base = tmp_path_factory.getbasetemp()
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # xdist: <run>/popen-gwN
    shared = run / "fmhactl-ptx-emulator"
    shared.mkdir(exist_ok=True)
    (home / "cache").mkdir()
    (home / "cache" / EMU_CACHE).symlink_to(shared, target_is_directory=True)


@pytest.fixture(autouse=True)
def fmhactl_home(_session_home, monkeypatch):
    """A results DB and build cache of the test session's own, shared across tests for cache reuse."""
    monkeypatch.setenv("FMHACTL_HOME", str(_session_home))
    return _session_home


@pytest.fixture
def empty_evidence(tmp_path, monkeypatch):
    """An empty evidence/ folder in place of the checkout's (results/evidence.evidence_dir), so a
    test computes status from the rows it seeds, not from the committed evidence."""
    import fmhactl.results.evidence as evidence

    folder = tmp_path / "evidence"
    folder.mkdir(exist_ok=True)
    monkeypatch.setattr(evidence, "evidence_dir", lambda: folder)
    return folder


@pytest.fixture(autouse=True)
def _project_env(monkeypatch):
    """FMHACTL_PROJECT unset in every test and restored after it: the CLI's --project (and a
    project found from the working directory) exports it into the process, and a leftover moves
    every later test of that worker into another project. Only tests/project restored it before;
    an in-process --project elsewhere (tests/cli) left it set ("unknown variant 'ref' (known:
    sm100_raw_ptx, sm100_tc5, sm90_start)" in 103 tests of one worker, CI at 36873ae)."""
    from fmhactl import paths

    monkeypatch.setenv(paths.PROJECT_ENV, "unset")
    monkeypatch.delenv(paths.PROJECT_ENV)
