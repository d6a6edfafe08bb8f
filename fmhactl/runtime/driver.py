"""Thin, checked wrappers over the CUDA driver API (cuda-python) for loading and launching cubins."""

from __future__ import annotations

import ctypes
from pathlib import Path

from fmhactl.errors import ExitCode, FmhactlError


class CudaError(FmhactlError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.VERIFY_FAILED)


def _driver():
    from cuda.bindings import driver
    return driver


def check(result, what: str):
    """Raise CudaError with the driver's name and text unless the call succeeded; return the payload."""
    driver = _driver()
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        _, text = driver.cuGetErrorString(err)
        name = name.decode() if isinstance(name, bytes) else str(name)
        text = text.decode() if isinstance(text, bytes) else str(text)
        raise CudaError(f"{what}: {name}: {text}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


class LoadedModule:
    """A cubin loaded into the current (torch's primary) context."""

    def __init__(self, cubin: Path) -> None:
        driver = _driver()
        self._driver = driver
        self.module = check(driver.cuModuleLoadData(cubin.read_bytes()), f"cuModuleLoadData({cubin.name})")
        self._functions: dict[str, object] = {}

    def function(self, name: str):
        if name not in self._functions:
            self._functions[name] = check(self._driver.cuModuleGetFunction(self.module, name.encode()),
                                          f"cuModuleGetFunction({name})")
        return self._functions[name]


def launch(function, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_smem: int,
           stream: int, *args: ctypes.Structure) -> None:
    """Launch with by-value struct arguments on the given stream handle."""
    driver = _driver()
    if dynamic_smem > 48 * 1024:
        check(driver.cuFuncSetAttribute(
            function, driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            dynamic_smem), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
    arg_ptrs = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])
    check(driver.cuLaunchKernel(function, *grid, *block, dynamic_smem, driver.CUstream(stream),
                                ctypes.addressof(arg_ptrs), 0), "cuLaunchKernel")


def synchronize(stream: int) -> None:
    driver = _driver()
    check(driver.cuStreamSynchronize(driver.CUstream(stream)), "kernel execution (cuStreamSynchronize)")


def driver_version() -> str:
    driver = _driver()
    version = check(driver.cuDriverGetVersion(), "cuDriverGetVersion")
    return f"cuda-driver-{version // 1000}.{(version % 1000) // 10}"
