"""The feature GPU tests may reuse a build cache that already holds the strict emulator build."""

from __future__ import annotations

import os

import pytest


@pytest.fixture
def prebuilt_home(monkeypatch):
    """FMHACTL_GPU_TEST_HOME (a device script's FMHACTL_HOME whose cache holds the strict sm_90a
    build): use it instead of the session's private home, so the strict build (minutes) is a cache
    hit; unset: the private home of tests/conftest.py."""
    home = os.environ.get("FMHACTL_GPU_TEST_HOME")
    if home:
        monkeypatch.setenv("FMHACTL_HOME", home)
    return home
