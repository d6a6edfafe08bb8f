"""The dynamic-SMEM attribute of a kernel function only grows (fmhactl.runtime.driver): a cached
launch plan sets it once and enqueues without it, so a smaller launch of the same function must
not lower it under a larger plan (the dsv4 model's window and top-k plans share one function)."""

from __future__ import annotations

from types import SimpleNamespace

from fmhactl.runtime import driver


class _FakeDriver:
    CUfunction_attribute = SimpleNamespace(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES="max-dyn-smem")

    def __init__(self):
        self.set: list[tuple[int, int]] = []

    def cuFuncSetAttribute(self, function, attribute, value):
        assert attribute == "max-dyn-smem"
        self.set.append((int(function), value))
        return (0,)


def test_the_attribute_only_grows_per_function(monkeypatch):
    fake = _FakeDriver()
    monkeypatch.setattr(driver, "_driver", lambda: fake)
    monkeypatch.setattr(driver, "check", lambda result, what: result)
    monkeypatch.setattr(driver, "_DYNAMIC_SMEM_SET", {})
    driver.allow_dynamic_smem(7, 200_000)  # a window plan
    driver.allow_dynamic_smem(7, 120_000)  # a top-k plan of the same function: no lowering
    driver.allow_dynamic_smem(7, 200_000)  # already allowed: no call
    driver.allow_dynamic_smem(9, 120_000)  # another function: its own
    driver.allow_dynamic_smem(9, 40_000)   # under the default 48 KiB: nothing to set
    driver.allow_dynamic_smem(7, 220_000)  # a larger one raises it
    assert fake.set == [(7, 200_000), (9, 120_000), (7, 220_000)]
