"""Thin, checked wrappers over the CUDA driver API (cuda-python) for loading and launching cubins."""

from __future__ import annotations

import ctypes
import hashlib
from pathlib import Path

from fmhactl.errors import ExitCode, FmhactlError, MissingEnvironment


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


def read_cubin(cubin: Path, sha256: str = "") -> bytes:
    """A cubin's bytes for loading, checked against the sha256 its build recorded: `sha256` (the
    job's, from the build that vouched for the cache entry), else the record in the cache entry's
    meta beside it. A cubin damaged after its build is refused (MissingEnvironment, exit 3: the
    home's cache), never loaded; the next build finds the entry damaged and rebuilds it. A cubin
    with no record (one outside the build cache, loaded by a test) is read as it is."""
    try:
        data = cubin.read_bytes()
    except OSError as exc:
        raise MissingEnvironment(f"cubin {cubin}: cannot be read ({exc.strerror or exc})") from None
    if not sha256:
        from fmhactl.build.compiler import recorded_cubin_sha256

        sha256 = recorded_cubin_sha256(cubin) or ""
    if sha256 and hashlib.sha256(data).hexdigest() != sha256:
        raise MissingEnvironment(f"build cache entry {cubin}: the cubin does not match the sha256 its build "
                                 "recorded (damaged after the build): not loaded; build it again to rebuild it")
    return data


class LoadedModule:
    """A cubin loaded into the current (torch's primary) context, its bytes checked (read_cubin)."""

    def __init__(self, cubin: Path, sha256: str = "") -> None:
        driver = _driver()
        self._driver = driver
        self.module = check(driver.cuModuleLoadData(read_cubin(cubin, sha256)), f"cuModuleLoadData({cubin.name})")
        self._functions: dict[str, object] = {}

    def function(self, name: str):
        if name not in self._functions:
            self._functions[name] = check(self._driver.cuModuleGetFunction(self.module, name.encode()),
                                          f"cuModuleGetFunction({name})")
        return self._functions[name]


_DYNAMIC_SMEM_SET: dict[int, int] = {}  # CUfunction handle -> the largest MAX_DYNAMIC_SHARED_SIZE_BYTES set


def allow_dynamic_smem(function, dynamic_smem: int) -> None:
    """Let `function` launch with `dynamic_smem` bytes of dynamic SMEM (over the default 48 KiB).

    The attribute is the function's, shared by every launch of it, and a cached launch plan sets it
    once and then enqueues without it: so it only ever grows. Setting it to a smaller launch's need
    would make a larger plan of the same function fail (CUDA_ERROR_INVALID_VALUE)."""
    if dynamic_smem <= 48 * 1024:
        return
    key = int(function)
    if _DYNAMIC_SMEM_SET.get(key, 0) >= dynamic_smem:
        return
    driver = _driver()
    check(driver.cuFuncSetAttribute(
        function, driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        dynamic_smem), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
    _DYNAMIC_SMEM_SET[key] = dynamic_smem


def max_active_clusters(function, cluster: tuple[int, int, int], block: tuple[int, int, int],
                        dynamic_smem: int) -> int:
    """The clusters of a kernel with compile-time cluster dims `cluster` that the GPU holds at once
    (cuOccupancyMaxActiveClusters): a cluster's CTAs must all fit in one GPC, so this can be fewer
    than the resident CTAs divided by the cluster size. The function's dynamic SMEM attribute must
    allow `dynamic_smem` already (allow_dynamic_smem)."""
    driver = _driver()
    config = driver.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = cluster
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = dynamic_smem
    config.numAttrs = 0
    return int(check(driver.cuOccupancyMaxActiveClusters(function, config), "cuOccupancyMaxActiveClusters"))


def launch(function, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_smem: int,
           stream: int, *args: ctypes.Structure) -> None:
    """Launch with by-value struct arguments on the given stream handle."""
    driver = _driver()
    allow_dynamic_smem(function, dynamic_smem)
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


def launch_head(function: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                dynamic_smem: int) -> tuple:
    """cuLaunchKernel's first eight arguments as the ctypes objects RawDriver's argtypes name
    (CUfunction, grid x/y/z, block x/y/z, dynamic SMEM bytes), for RawDriver.enqueue: the objects
    the call's own conversion (c_void_p/c_uint from_param) would make from the ints, made once."""
    return (ctypes.c_void_p(function), *(ctypes.c_uint(n) for n in (*grid, *block, dynamic_smem)))


def unpack_head(head: tuple) -> tuple[int, tuple[int, int, int], tuple[int, int, int], int]:
    """(function, grid, block, dynamic_smem) of a launch_head() tuple."""
    values = [a.value or 0 for a in head]
    return values[0], tuple(values[1:4]), tuple(values[4:7]), values[7]


class RawDriver:
    """cuLaunchKernel and cuTensorMapReplaceAddress called on libcuda through ctypes.

    cuda-python's wrappers convert and check every argument, which costs several microseconds a
    call; the torch op's cached launch path needs only plain integers (handles, addresses) and
    calls these two entry points once per launch, so it binds them directly. Both are the
    documented driver API (cuTensorMapReplaceAddress since CUDA 12.0).
    """

    def __init__(self, library: str = "libcuda.so.1") -> None:
        # CDLL, not PyDLL: the call releases the GIL. Holding it would save about 30 ns a launch
        # (measured on a stub), but cuLaunchKernel blocks while the stream's launch queue is full
        # (a long kernel ahead of many small ones), and holding the GIL then stalls every Python
        # thread for as long, or deadlocks one the GPU work waits on (a host function that takes
        # the GIL).
        lib = ctypes.CDLL(library)
        u32, ptr = ctypes.c_uint, ctypes.c_void_p
        self._launch = lib.cuLaunchKernel
        self._launch.argtypes = [ptr, u32, u32, u32, u32, u32, u32, u32, ptr, ptr, ptr]
        self._launch.restype = ctypes.c_int
        self._replace = lib.cuTensorMapReplaceAddress
        self._replace.argtypes = [ptr, ptr]
        self._replace.restype = ctypes.c_int

    def launch(self, function: int, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_smem: int,
               stream: int, kernel_params: int) -> None:
        """kernel_params: the address of an array of pointers to the by-value arguments."""
        rc = self._launch(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], dynamic_smem, stream,
                          kernel_params, None)
        if rc:
            check(_driver().CUresult(rc), "cuLaunchKernel")

    def enqueue(self, head: tuple, stream: int, kernel_params: int) -> None:
        """launch() with the fixed arguments made once by launch_head(): one call, no indexing, and
        ctypes passes the ready c_void_p/c_uint objects through instead of converting seven ints."""
        rc = self._launch(*head, stream, kernel_params, None)
        if rc:
            check(_driver().CUresult(rc), "cuLaunchKernel")

    def replace_address(self, tensor_map: int, address: int) -> None:
        """Point the encoded tensor map at `tensor_map` (its host address) to a new global address."""
        rc = self._replace(tensor_map, address)
        if rc:
            check(_driver().CUresult(rc), "cuTensorMapReplaceAddress")
