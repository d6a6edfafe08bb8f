"""The real cuTensorMapEncodeTiled, through cuda-python (cuda.bindings), next to the model's verdict.

Imported only when asked for: cuda.bindings is loaded inside `DriverSession`. cuda-python wants
cuuint64_t / cuuint32_t wrapped lists (plain ints raise TypeError before the driver is called).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fmhactl.errors import MissingEnvironment
from fmhactl.layout.common import Problem
from fmhactl.layout.tensormap import TensorMapParams, validate


@dataclass(frozen=True)
class DriverVerdict:
    ok: bool
    code: int
    name: str

    def as_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "code": self.code, "name": self.name}


class HarnessError(Exception):
    """cuda-python refused the arguments before the driver saw them (not a driver verdict)."""


def _check(result: Any, what: str) -> Any:
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise MissingEnvironment(f"{what} failed: {getattr(err, 'name', err)}")
    return result[1] if isinstance(result, tuple) and len(result) > 1 else None


class DriverSession:
    """A context on one device plus a scratch allocation whose address backs the maps' globalAddress."""

    def __init__(self, device: int = 0, buffer_bytes: int = 64 << 20) -> None:
        try:
            from cuda.bindings import driver as cu
        except Exception as exc:  # ImportError, or a broken install
            raise MissingEnvironment(f"cuda-python (cuda.bindings) is not importable: {exc}") from None
        self._cu = cu
        try:
            _check(cu.cuInit(0), "cuInit")
        except MissingEnvironment:
            raise
        except Exception as exc:  # no libcuda.so: the bindings raise their own error types
            raise MissingEnvironment(f"no CUDA driver: {type(exc).__name__}: {exc}") from None
        self.device = _check(cu.cuDeviceGet(device), "cuDeviceGet")
        self._ctx = _check(cu.cuDevicePrimaryCtxRetain(self.device), "cuDevicePrimaryCtxRetain")
        _check(cu.cuCtxSetCurrent(self._ctx), "cuCtxSetCurrent")
        self.buffer_bytes = buffer_bytes
        self._dptr = _check(cu.cuMemAlloc(buffer_bytes), "cuMemAlloc")
        self.base = int(self._dptr)
        self.driver_version = _check(cu.cuDriverGetVersion(), "cuDriverGetVersion")
        attr = cu.CUdevice_attribute
        major = _check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.device), "cc")
        minor = _check(cu.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.device), "cc")
        self.compute_capability = (major, minor)
        name = _check(cu.cuDeviceGetName(256, self.device), "cuDeviceGetName")
        self.device_name = bytes(name).split(b"\0", 1)[0].decode(errors="replace")

    def __enter__(self) -> DriverSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        cu = self._cu
        if getattr(self, "_dptr", None) is not None:
            cu.cuMemFree(self._dptr)
            self._dptr = None
        if getattr(self, "_ctx", None) is not None:
            cu.cuDevicePrimaryCtxRelease(self.device)
            self._ctx = None

    def rebase(self, p: TensorMapParams) -> TensorMapParams:
        """Move globalAddress into the scratch buffer, keeping its offset from a 256-byte boundary."""
        from dataclasses import replace

        return replace(p, global_address=self.base + p.global_address % 256)

    def encode(self, p: TensorMapParams) -> DriverVerdict:
        cu = self._cu

        def arr(kind: Any, values: tuple[int, ...], dummy: int) -> list[Any]:
            # never hand the driver a NULL array: rank-1 maps have no strides, and NVFuser notes the
            # driver wants a valid pointer anyway (the unused entry is not read)
            return [kind(v) for v in values] if values else [kind(dummy)]

        try:
            args = (cu.CUtensorMapDataType(p.dtype), p.rank, p.global_address,
                    arr(cu.cuuint64_t, p.global_dim, 1), arr(cu.cuuint64_t, p.global_strides, 0),
                    arr(cu.cuuint32_t, p.box_dim, 1), arr(cu.cuuint32_t, p.element_strides, 1),
                    cu.CUtensorMapInterleave(p.interleave), cu.CUtensorMapSwizzle(p.swizzle),
                    cu.CUtensorMapL2promotion(p.l2_promotion), cu.CUtensorMapFloatOOBfill(p.oob_fill))
            result = cu.cuTensorMapEncodeTiled(*args)
        except (TypeError, ValueError, OverflowError) as exc:
            raise HarnessError(f"{type(exc).__name__}: {exc}") from None
        err = result[0]
        return DriverVerdict(int(err) == 0, int(err), getattr(err, "name", str(err)))


@dataclass(frozen=True)
class BuildReport:
    params: TensorMapParams
    problems: list[Problem]
    driver: DriverVerdict | None
    driver_note: str

    @property
    def model_ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)

    @property
    def agree(self) -> bool | None:
        return None if self.driver is None else self.driver.ok == self.model_ok

    def as_dict(self) -> dict[str, object]:
        return {"params": self.params.as_dict(), "model_ok": self.model_ok,
                "problems": [p.as_dict() for p in self.problems],
                "driver": None if self.driver is None else self.driver.as_dict(), "driver_note": self.driver_note,
                "agree": self.agree}


def build(p: TensorMapParams, session: DriverSession | None = None) -> BuildReport:
    """Validate with the model and, when a GPU is present, encode with the driver too."""
    problems = validate(p)
    own = session is None
    try:
        if session is None:
            session = DriverSession(buffer_bytes=1 << 20)
    except MissingEnvironment as exc:
        return BuildReport(p, problems, None, f"driver not consulted: {exc}")
    try:
        real = session.rebase(p)
        try:
            verdict = session.encode(real)
        except HarnessError as exc:
            return BuildReport(p, problems, None, f"cuda-python refused the arguments: {exc}")
        note = (f"driver {session.driver_version} on {session.device_name} (sm_{session.compute_capability[0]}"
                f"{session.compute_capability[1]}); globalAddress rebased to 0x{real.global_address:x}")
        return BuildReport(p, problems, verdict, note)
    finally:
        if own and session is not None:
            session.close()
