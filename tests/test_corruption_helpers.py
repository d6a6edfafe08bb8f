"""The shared harness of the corruption fuzz tests (tests/corruption.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("hypothesis")
from tests.corruption import example_folder  # noqa: E402


def test_each_example_gets_a_fresh_folder_removed_after_it_even_when_it_fails():
    with example_folder("status") as first:
        assert first.is_dir() and list(first.iterdir()) == [] and first.name.startswith("fmhactl-fuzz-status-")
        (first / "damaged.json").write_text("{")
        with example_folder("status") as second:
            assert second != first and list(second.iterdir()) == []
    assert not first.exists() and not second.exists()
    with pytest.raises(AssertionError), example_folder("evidence") as third:
        (third / "x").write_text("x")
        raise AssertionError("an example that failed")
    assert not third.exists()
