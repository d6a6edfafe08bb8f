"""The isolated kernel worker: JSON lines in on stdin, JSON lines out on stdout.

A kernel that faults poisons its CUDA context, so after reporting a CRASH the worker exits
and the parent starts a fresh one. The parent kills it on a hang; if the parent dies, the
kernel's parent-death signal takes the worker down too, so no orphan keeps the GPU.
"""

from __future__ import annotations

import ctypes
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


def main() -> None:
    _die_with_parent()
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints must not corrupt the protocol

    def reply(message: dict) -> None:
        protocol.write(json.dumps(message) + "\n")
        protocol.flush()

    try:
        from fmhactl.runtime.execute import Executor, gpu_info

        info = gpu_info()
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


def _serve(executor, reply) -> None:
    """Answer jobs until stdin closes, or until a fault has poisoned the CUDA context."""
    from fmhactl.runtime.emulation import EmulationViolations

    handlers = {"verify": executor.verify, "bench": executor.bench, "run": executor.run, "dump": executor.dump}
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        try:
            reply({"id": job.get("id"), **handlers[job["op"]](job)})
        except EmulationViolations as exc:  # the kernel ran to the end but broke tcgen05 rules
            reply({"id": job.get("id"), "status": "FAIL", "error": str(exc).splitlines()[0],
                   "metrics": {"violations": [str(v) for v in exc.violations]}})
        except Exception as exc:  # noqa: BLE001
            if _is_fatal_cuda_error(exc):
                reply({"id": job.get("id"), "status": "CRASH", "error": str(exc).splitlines()[0], "fatal": True})
                return
            reply({"id": job.get("id"), "status": "ERROR", "error": f"{type(exc).__name__}: {exc}",
                   "traceback": traceback.format_exc(limit=5)})


if __name__ == "__main__":
    main()
