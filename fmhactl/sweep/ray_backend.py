"""The Ray backend: the sweep's slots are Ray actors on a cluster (or a local one).

Each actor (`num_gpus=1` for GPU work, `num_cpus=1` for builds and the CPU self-test) holds
one isolated worker process, exactly as a local slot does, so a CRASH or HANG is still the
config's verdict and costs nothing else. What Ray adds is placement and failure detection:
when an actor's node or process dies, its in-flight config comes back to the driver's queue
and runs on another actor (a fresh one is started in the lost one's place), or, after the
retries, is recorded as lost. Rows are written by the driver only.

Cubins travel by content: the driver puts each cubin it built into the object store once,
keyed by its sha256; an actor writes it to its node's `shipped/` folder (checking the hash)
the first time a job needs it. Builds done by actors come back to the driver the same way and
are adopted into the driver's cache.

`import ray` happens only here, only on the --ray path.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from pathlib import Path

from fmhactl import paths
from fmhactl.errors import BadInput, MissingEnvironment
from fmhactl.runtime.kernel_job import KernelJob
from fmhactl.sweep.scheduler import Backend, Slot, SlotLost

START_TIMEOUT_S = 300.0
REPLACE_TIMEOUT_S = 120.0
# How long the head's port may take to accept a TCP connection before `--ray HOST:PORT` is called
# unreachable: Ray's own connect retries for about two minutes on an address nothing answers.
CONNECT_PROBE_S = 5.0


def _ray():
    try:
        import ray
    except ImportError:
        raise MissingEnvironment("--ray needs Ray: pip install 'fmhactl[ray]'") from None
    return ray


def probe_address(address: str, timeout_s: float) -> None:
    """A TCP connection to the host and port `--ray ADDRESS` names, within timeout_s: nothing
    answering there is MissingEnvironment (exit 3) naming the address at once, where ray.init
    would wait minutes. Addresses Ray resolves itself (auto) are left to it."""
    import socket

    from fmhactl.sweep.devices import ray_endpoint

    endpoint = ray_endpoint(address)
    if endpoint is None:
        return
    try:
        with socket.create_connection(endpoint, timeout=timeout_s):
            return
    except OSError as exc:  # refused, unreachable, no such host, or the timeout (TimeoutError)
        why = f"no answer within {timeout_s:g} s" if isinstance(exc, TimeoutError) else (exc.strerror or
                                                                                         type(exc).__name__)
        raise MissingEnvironment(f"ray: nothing answers at {address} ({why}): is the cluster's head running "
                                 "there?") from None


def local_resources() -> dict:
    """FMHACTL_RAY_CPUS caps a local cluster's CPUs (CI has 2 cores shared with the driver)."""
    cpus = os.environ.get("FMHACTL_RAY_CPUS")
    return {"num_cpus": int(cpus)} if cpus else {}


def local_runtime_env(home: Path | None = None) -> dict:
    """A local cluster's workers import this checkout and share this machine's results area."""
    package_parent = str(Path(__file__).resolve().parents[2])
    pythonpath = os.pathsep.join(p for p in [package_parent, os.environ.get("PYTHONPATH", "")] if p)
    return {"env_vars": {"PYTHONPATH": pythonpath, "FMHACTL_ROOT": str(paths.project_root()),
                         "FMHACTL_HOME": str(home or paths.work_dir())}}


def _atomic_write(path: Path, data: bytes) -> None:
    from fmhactl.build.compiler import _atomic_write as write

    write(path, data)


class SlotActor:
    """Lives in a Ray worker process: one isolated kernel (or CPU) worker, fed one job at a time."""

    def __init__(self, kind: str, timeout_s: float) -> None:
        from fmhactl.runtime.pool import KernelWorker
        from fmhactl.sweep.local import CPU_WORKER, GPU_WORKER

        self.kind = kind
        # Ray has set CUDA_VISIBLE_DEVICES for a GPU actor; a CPU actor must see no GPU.
        env = {} if kind == "gpu" else {"CUDA_VISIBLE_DEVICES": ""}
        self.worker = KernelWorker(timeout_s, command=list(GPU_WORKER if kind == "gpu" else CPU_WORKER), env=env)
        self.hello: dict = {}

    def start(self) -> dict:
        import ray

        node = ray.util.get_node_ip_address()
        hello = self.worker.start()
        placement = {"kind": self.kind, "node": node, "pid": os.getpid(), "backend": "ray"}
        if self.kind == "gpu":
            from fmhactl.sweep.devices import local_gpus

            ids = ray.get_gpu_ids()
            device = local_gpus()[0]  # the one GPU Ray left visible to this actor
            placement.update(index=int(ids[0]) if ids else device.index, name=device.name, uuid=device.uuid)
        else:
            placement.update(index=0, name="cpu", uuid=f"{node}/pid{os.getpid()}")
        self.hello = {**hello, "placement": placement}
        return self.hello

    def run(self, job: dict, blobs: dict) -> dict:
        import ray

        sha = job.get("cubin_sha256")
        if sha:
            path = paths.work_dir() / "shipped" / f"{sha}.cubin"
            if not path.is_file():
                data = ray.get(blobs[sha])
                if hashlib.sha256(data).hexdigest() != sha:
                    return {"reply": {"status": "ERROR", "error": f"shipped cubin {sha[:12]} arrived corrupted"}}
                _atomic_write(path, data)
            job = {**job, "cubin": str(path)}
        reply = self.worker.run(job)
        out: dict = {"reply": reply}
        if job.get("op") == "build" and reply.get("status") == "OK":
            cubin = Path(reply["build"]["cubin"])
            out["files"] = {"cubin": cubin.read_bytes(), "meta": cubin.with_suffix(".json").read_bytes()}
        return out

    def close(self) -> None:
        self.worker.close()


class RaySlot(Slot):
    def __init__(self, backend: "RayBackend", label: str) -> None:
        self.backend = backend
        self.label = label
        self.hello: dict = {}
        self.actor = None

    def start(self, timeout_s: float = START_TIMEOUT_S) -> dict:
        ray = _ray()
        self.actor = self.backend.new_actor()
        try:
            self.hello = ray.get(self.actor.start.remote(), timeout=timeout_s)
        except ray.exceptions.GetTimeoutError:
            self.close()
            raise MissingEnvironment(f"ray: no {self.backend.kind} actor could be placed within {timeout_s:g} s")
        except ray.exceptions.RayTaskError as exc:  # the worker inside could not start (no GPU, ...)
            self.close()
            raise MissingEnvironment(f"ray: {self.label} failed to start: {str(exc).strip().splitlines()[-1]}")
        except ray.exceptions.RayError as exc:
            self.close()
            raise MissingEnvironment(f"ray: {self.label} died while starting: {type(exc).__name__}")
        return self.hello

    def placement(self) -> dict:
        return dict(self.hello.get("placement", {}))

    def run(self, job: KernelJob | dict) -> dict:
        ray = _ray()
        blobs = {}
        job = job if isinstance(job, dict) else job.to_dict()  # its wire form: the actor ships it on
        if "cubin" in job:
            sha, ref = self.backend.ship(Path(job["cubin"]))
            if job.get("cubin_sha256") not in (None, "", sha):  # the build recorded other bytes
                return {"status": "ERROR", "error": f"build cache entry {job['cubin']}: the cubin does not match the "
                                                    "sha256 its build recorded (damaged after the build): not shipped"}
            job = {**job, "cubin_sha256": sha}
            blobs = {sha: ref}
        try:
            out = ray.get(self.actor.run.remote(job, blobs), timeout=self.backend.timeout_s + 120)
        except ray.exceptions.RayTaskError as exc:  # a bug in the actor code: this config's ERROR
            return {"status": "ERROR", "error": f"ray actor: {str(exc).strip().splitlines()[-1]}"}
        except ray.exceptions.GetTimeoutError:
            raise SlotLost(f"{self.label} stopped answering") from None
        except ray.exceptions.RayError as exc:  # actor, worker process or node gone
            raise SlotLost(f"{self.label} on {self.placement().get('node', '?')}: {type(exc).__name__}") from None
        reply = out["reply"]
        if "files" in out:
            reply = self.backend.adopt_build(reply, out["files"])
        return reply

    def close(self) -> None:
        if self.actor is not None:
            try:
                _ray().kill(self.actor, no_restart=True)
            except Exception:  # noqa: BLE001 - already gone
                pass
            self.actor = None


class RayBackend(Backend):
    name = "ray"

    def __init__(self, address: str, *, kind: str, count: int | str, timeout_s: float) -> None:
        ray = _ray()
        self.kind = kind
        self.timeout_s = timeout_s
        self._owns_cluster = False
        self._slots: list[RaySlot] = []  # before anything that may fail: close() reads it
        if not ray.is_initialized():
            self._init(ray, address)
        resource = "GPU" if kind == "gpu" else "CPU"
        available = int(ray.cluster_resources().get(resource, 0))
        if available == 0:
            self.close()
            raise MissingEnvironment(f"ray: the cluster has no {resource}")
        if count == "all":
            count = available
        if not isinstance(count, int) or count > available:
            self.close()
            raise BadInput(f"ray: asked for {count} {resource} slots, the cluster has {available}")
        self.count = count
        self._actor_cls = ray.remote(max_restarts=0)(SlotActor)
        self._shipped: dict[str, tuple[str, object]] = {}
        self._lock = threading.Lock()
        self._serial = 0

    def _init(self, ray, address: str) -> None:
        from fmhactl.sweep.devices import LOCAL_RAY

        quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        if address == LOCAL_RAY:
            # A private local cluster; its workers import this checkout and share this machine's cache.
            ray.init(runtime_env=local_runtime_env(), **quiet, **local_resources())
            self._owns_cluster = True
        else:
            probe_address(address, CONNECT_PROBE_S)
            try:
                ray.init(address=address, **quiet)
            except Exception as exc:  # noqa: BLE001 - a bad address or an unreachable cluster
                raise MissingEnvironment(f"ray: cannot connect to {address}: {exc}") from None

    def new_actor(self):
        options = {"num_gpus": 1, "num_cpus": 0} if self.kind == "gpu" else {"num_cpus": 1}
        return self._actor_cls.options(**options).remote(self.kind, self.timeout_s)

    def _label(self) -> str:
        with self._lock:
            self._serial += 1
            return f"ray-{self.kind}{self._serial - 1}"

    def open_slots(self) -> list[Slot]:
        slots = [RaySlot(self, self._label()) for _ in range(self.count)]
        self._slots.extend(slots)
        return list(slots)

    def replace(self, lost: Slot) -> Slot | None:
        slot = RaySlot(self, self._label())
        self._slots.append(slot)
        try:
            slot.start(timeout_s=REPLACE_TIMEOUT_S)
        except MissingEnvironment:
            return None
        return slot

    def ship(self, cubin: Path) -> tuple[str, object]:
        """The cubin's sha256 and its object-store reference, put there once per sweep."""
        key = str(cubin)
        with self._lock:
            if key not in self._shipped:
                data = cubin.read_bytes()
                self._shipped[key] = (hashlib.sha256(data).hexdigest(), _ray().put(data))
            return self._shipped[key]

    def adopt_build(self, reply: dict, files: dict) -> dict:
        """Put a cubin an actor built into the driver's cache (same key, checked hash)."""
        from fmhactl.build.compiler import BuildTarget, _cache_paths
        from fmhactl.registry import get_variant

        build = dict(reply["build"])
        if hashlib.sha256(files["cubin"]).hexdigest() != reply.get("cubin_sha256"):
            return {"status": "ERROR", "error": f"{build['variant']}: the built cubin arrived corrupted"}
        cubin_path, meta_path = _cache_paths(get_variant(build["variant"]),
                                             BuildTarget(build["arch"], emulated=bool(build["emulated"]),
                                                         strict=bool(build.get("strict", reply.get("strict")))),
                                             build["cache_key"])
        if not (cubin_path.is_file() and hashlib.sha256(cubin_path.read_bytes()).hexdigest() == reply["cubin_sha256"]):
            _atomic_write(cubin_path, files["cubin"])
        if not meta_path.is_file():
            _atomic_write(meta_path, files["meta"])
        build["cubin"] = str(cubin_path)
        return {**reply, "build": build}

    def close(self) -> None:
        for slot in self._slots:
            slot.close()
        self._slots = []
        if self._owns_cluster:
            ray = sys.modules.get("ray")
            if ray is not None and ray.is_initialized():
                ray.shutdown()
            self._owns_cluster = False
