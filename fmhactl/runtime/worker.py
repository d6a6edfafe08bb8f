"""The isolated kernel worker: JSON lines in on stdin, JSON lines out on stdout.

A kernel that faults poisons its CUDA context, so after reporting a CRASH the worker exits
and the parent starts a fresh one. The parent kills it on a hang; if the parent dies, the
kernel's parent-death signal takes the worker down too, so no orphan keeps the GPU.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import signal
import sys
import traceback


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _is_fatal_cuda_error(exc: BaseException) -> bool:
    from fmhactl.runtime.driver import CudaError

    return isinstance(exc, CudaError) or (isinstance(exc, RuntimeError) and "CUDA error" in str(exc))


def protocol_channel():
    """The worker's reply function: one JSON line per message on the real stdout, which is kept
    for the protocol alone (stdout is pointed at stderr, so stray prints cannot corrupt it)."""
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())

    def reply(message: dict) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    return reply


def main() -> None:
    _die_with_parent()
    reply = protocol_channel()

    try:
        from fmhactl.runtime.device import worker_device_info
        from fmhactl.runtime.execute import Executor

        info = worker_device_info()
    except Exception as exc:  # noqa: BLE001 - reported to the parent, which decides
        reply({"hello": True, "gpu": None, "reason": f"{type(exc).__name__}: {exc}"})
        return
    reply({"hello": True, **info})
    if info.get("gpu") is None:
        return
    executor = Executor()
    try:
        _serve(executor, reply)
    finally:
        executor.close()


# The job handlers this worker hosts, by op. Checking (verify) and timing (bench) live with their
# features and are loaded by name, so the runtime layer never imports the layers above it.
JOB_HANDLERS = {
    "verify": "fmhactl.verify.job:verify_job",
    "bench": "fmhactl.bench.job:bench_job",
}


def _handler(executor, op: str):
    if op in ("run", "dump"):
        return getattr(executor, op)
    module, _, name = JOB_HANDLERS[op].partition(":")
    function = getattr(importlib.import_module(module), name)
    return lambda job: function(executor, job)


def _serve(executor, reply) -> None:
    """Answer jobs until stdin closes, or until a fault has poisoned the CUDA context."""
    from fmhactl.runtime.emulation import EmulationViolations

    from fmhactl.runtime import stage
    from fmhactl.runtime.kernel_job import KernelJob

    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        job_id = message.get("id")
        stage.bind(lambda report, job_id=job_id: reply({"id": job_id, **report}))
        try:
            job = KernelJob.from_dict(message)
            reply({"id": job_id, **_handler(executor, job.op)(job)})
        except EmulationViolations as exc:  # the kernel ran to the end but broke tcgen05 rules
            reply({"id": job_id, "status": "FAIL", "error": str(exc).splitlines()[0],
                   "metrics": {"violations": [str(v) for v in exc.violations]}})
        except Exception as exc:  # noqa: BLE001
            if _is_fatal_cuda_error(exc):
                reply({"id": job_id, "status": "CRASH", "error": str(exc).splitlines()[0], "fatal": True})
                return
            reply({"id": job_id, "status": "ERROR", "error": f"{type(exc).__name__}: {exc}",
                   "traceback": traceback.format_exc(limit=5)})
        finally:
            stage.bind(None)


if __name__ == "__main__":
    main()
