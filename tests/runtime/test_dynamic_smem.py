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


def test_max_active_clusters_asks_for_the_cluster_shape_and_returns_the_count(monkeypatch):
    """The decode plan's cap on cluster-kernel grids: the driver is asked with the cluster as the
    grid (compile-time cluster dims), the block and the dynamic SMEM, and its count comes back as
    an int; a failing query raises CudaError (checked like every other call)."""
    import pytest

    real = pytest.importorskip("cuda.bindings.driver")
    asked = []

    class _Driver:
        CUlaunchConfig = real.CUlaunchConfig
        CUresult = real.CUresult
        cuGetErrorName = staticmethod(lambda err: (real.CUresult.CUDA_SUCCESS, b"CUDA_ERROR_INVALID_VALUE"))
        cuGetErrorString = staticmethod(lambda err: (real.CUresult.CUDA_SUCCESS, b"invalid argument"))
        answer = (real.CUresult.CUDA_SUCCESS, 29)

        def cuOccupancyMaxActiveClusters(self, function, config):
            asked.append((function, (config.gridDimX, config.gridDimY, config.gridDimZ),
                          (config.blockDimX, config.blockDimY, config.blockDimZ), config.sharedMemBytes,
                          config.numAttrs))
            return self.answer

    fake = _Driver()
    monkeypatch.setattr(driver, "_driver", lambda: fake)
    count = driver.max_active_clusters(5, (1, 8, 1), (128, 1, 1), 98304)
    assert count == 29 and isinstance(count, int)
    assert asked == [(5, (1, 8, 1), (128, 1, 1), 98304, 0)]
    fake.answer = (real.CUresult.CUDA_ERROR_INVALID_VALUE, 0)
    with pytest.raises(driver.CudaError, match="cuOccupancyMaxActiveClusters"):
        driver.max_active_clusters(5, (1, 8, 1), (128, 1, 1), 98304)
