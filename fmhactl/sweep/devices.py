"""Which local GPUs a sweep uses: `--gpus all|N|0,2,5`, and each GPU's index, name and UUID.

The parent asks the CUDA driver (cuInit, no context) for the devices it sees. Workers are
pinned by UUID (CUDA_VISIBLE_DEVICES=GPU-...), which names the same board whatever the
parent's own CUDA_VISIBLE_DEVICES or enumeration order is; the index reported is the CUDA
ordinal as this process sees it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fmhactl.errors import BadInput, MissingEnvironment
from fmhactl.runtime.device import no_gpu

MAX_GPUS = 64
LOCAL_RAY = "local"  # --ray with an empty address: a private local Ray cluster
_LIST = re.compile(r"^\d+(,\d+)*$")
_HOST = r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
_RAY_ADDRESS = re.compile(rf"^(?:(?P<scheme>[a-z][a-z0-9+.-]*)://(?P<host1>{_HOST})(?::(?P<port1>\d{{1,5}}))?"
                          rf"|(?P<host2>{_HOST}):(?P<port2>\d{{1,5}}))$")
RAY_CLIENT_PORT = 10001  # ray://HOST without a port: the Ray client server's default


@dataclass(frozen=True)
class Device:
    """One slot a sweep can place work on: a GPU (pinned by UUID) or a CPU slot."""

    kind: str  # "gpu" | "cpu"
    index: int
    name: str
    uuid: str

    @property
    def label(self) -> str:
        return f"{self.kind}{self.index}"

    def pin_env(self) -> dict[str, str]:
        """The environment that confines a worker process to this device."""
        if self.kind == "gpu":
            return {"CUDA_VISIBLE_DEVICES": self.uuid}
        return {"CUDA_VISIBLE_DEVICES": ""}  # CPU work must not grab a GPU by accident

    def to_dict(self) -> dict:
        return {"kind": self.kind, "index": self.index, "name": self.name, "uuid": self.uuid}


def _format_uuid(raw: bytes) -> str:
    h = raw.hex()
    return f"GPU-{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _no_gpu(exc: Exception) -> MissingEnvironment:
    if type(exc).__name__ == "DynamicLibNotFoundError":
        return no_gpu("the NVIDIA driver library (libcuda) is not installed")
    return no_gpu(f"{type(exc).__name__}: {exc}")


def local_gpus() -> list[Device]:
    """Every GPU the CUDA driver shows this process, in CUDA ordinal order (no context created)."""
    import os

    if os.environ.get("FMHACTL_ASSUME_NO_GPU"):
        raise no_gpu("FMHACTL_ASSUME_NO_GPU is set")
    try:
        from cuda.bindings import driver
    except ImportError as exc:
        raise MissingEnvironment(f"--gpus needs cuda-bindings: {exc}") from None
    try:
        (err,) = driver.cuInit(0)
    except Exception as exc:  # noqa: BLE001 - no driver library at all: no GPU here
        raise _no_gpu(exc) from None
    if err != driver.CUresult.CUDA_SUCCESS:
        raise no_gpu(f"cuInit: {getattr(err, 'name', err)}")
    err, count = driver.cuDeviceGetCount()
    if err != driver.CUresult.CUDA_SUCCESS or count == 0:
        raise no_gpu("the CUDA driver sees no device")
    devices = []
    for ordinal in range(count):
        _, handle = driver.cuDeviceGet(ordinal)
        _, raw_name = driver.cuDeviceGetName(256, handle)
        name = raw_name.split(b"\0", 1)[0].decode(errors="replace") if isinstance(raw_name, bytes) else str(raw_name)
        err, uuid = driver.cuDeviceGetUuid(handle)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise MissingEnvironment(f"--gpus: cannot read the UUID of GPU {ordinal}: {err}")
        devices.append(Device("gpu", ordinal, name, _format_uuid(bytes(uuid.bytes))))
    return devices


def parse_gpus(spec: str) -> str | int | list[int]:
    """`all`, a count N, or a comma list of indices; anything else is bad input (exit 2)."""
    spec = spec.strip().lower()
    if spec == "all":
        return "all"
    if not _LIST.match(spec):
        raise BadInput(f"--gpus {spec!r}: expected all, a count N, or indices like 0,2,5")
    if "," not in spec:
        count = int(spec)
        if not 1 <= count <= MAX_GPUS:
            raise BadInput(f"--gpus {spec}: a count must be between 1 and {MAX_GPUS}")
        return count
    indices = [int(x) for x in spec.split(",")]
    if len(set(indices)) != len(indices):
        raise BadInput(f"--gpus {spec}: an index appears twice (one worker per GPU: two would share its timers)")
    return indices


def check_ray_address(address: str) -> None:
    """`--ray ADDRESS` is local, auto, HOST:PORT or SCHEME://HOST[:PORT] (ray://head:10001); anything
    else is bad input here, before `import ray` (which would call it an unreachable cluster, exit 3,
    or wait a minute on a port that cannot exist)."""
    if address in (LOCAL_RAY, "auto"):
        return
    match = _RAY_ADDRESS.match(address)
    port = match and (match.group("port1") or match.group("port2"))
    if match is None or (port is not None and not 1 <= int(port) <= 65535):
        from fmhactl.schemas import shown

        raise BadInput(f"--ray {shown(address)}: expected HOST:PORT (port 1-65535), ray://HOST[:PORT], auto, "
                       "or no address for a local cluster")


def ray_endpoint(address: str) -> tuple[str, int] | None:
    """The host and port a checked `--ray` address connects to first: HOST:PORT (the head's GCS),
    ray://HOST[:PORT] (the Ray client server); None for local, auto and other schemes, whose
    endpoint Ray finds itself."""
    match = _RAY_ADDRESS.match(address)
    if match is None:
        return None
    if match.group("host2") is not None:
        return match.group("host2").strip("[]"), int(match.group("port2"))
    if match.group("scheme") != "ray":
        return None
    return match.group("host1").strip("[]"), int(match.group("port1") or RAY_CLIENT_PORT)


def select_gpus(spec: str, available: list[Device] | None = None) -> list[Device]:
    """The devices `--gpus spec` names, checked against what is present."""
    wanted = parse_gpus(spec)
    devices = available if available is not None else local_gpus()
    if wanted == "all":
        return list(devices)
    if isinstance(wanted, int):
        if wanted > len(devices):
            raise BadInput(f"--gpus {wanted}: only {len(devices)} GPU(s) here")
        return list(devices[:wanted])
    by_index = {d.index: d for d in devices}
    missing = [i for i in wanted if i not in by_index]
    if missing:
        raise BadInput(f"--gpus: no GPU with index {', '.join(map(str, missing))} "
                       f"(present: {', '.join(str(d.index) for d in devices)})")
    return [by_index[i] for i in wanted]


def cpu_slots(count: int) -> list[Device]:
    """N CPU slots for CPU-only work (builds, the CPU self-test)."""
    if count < 1:
        raise BadInput(f"--jobs {count}: must be at least 1")
    return [Device("cpu", i, "cpu", f"cpu-{i}") for i in range(count)]
