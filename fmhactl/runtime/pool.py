"""Parent side of the worker: start it, send jobs, enforce the watchdog, restart after a fault."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time

from fmhactl.errors import MissingEnvironment
from fmhactl.runtime.kernel_job import KernelJob

STARTUP_TIMEOUT_S = 180.0


class WorkerDied(Exception):
    pass


def _at(stage: str | None) -> str:
    return f" (the job was at: {stage})" if stage else ""


def _verdict(status: str, error: str, partial: dict | None) -> dict:
    """A HANG/CRASH reply, with what the job had finished (a bench job's kernel timing, ...)."""
    return {"status": status, "error": error} if partial is None else {"status": status, "error": error,
                                                                       "metrics": partial}


class KernelWorker:
    """One worker process at a time; `run` returns the worker's reply, or a CRASH/HANG verdict (a
    HANG names the job's last reported stage and keeps its partial metrics: fmhactl.runtime.stage)."""

    def __init__(self, timeout_s: float = 30.0, command: list[str] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.timeout_s = timeout_s
        self._command = command or [sys.executable, "-m", "fmhactl.runtime.worker"]
        self._env = dict(env or {})  # e.g. CUDA_VISIBLE_DEVICES pinning the worker to one GPU
        self._proc: subprocess.Popen | None = None
        self._stderr = None
        self._buffer = b""
        self.info: dict = {}
        self._next_id = 0

    def __enter__(self) -> "KernelWorker":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> dict:
        self.close()
        self._stderr = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONUNBUFFERED="1", **self._env)
        self._proc = subprocess.Popen(
            self._command, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._stderr, env=env, start_new_session=True)
        self._buffer = b""
        try:
            hello = self._read_line(STARTUP_TIMEOUT_S)
        except (TimeoutError, WorkerDied) as exc:
            self.close()
            raise MissingEnvironment(f"kernel worker failed to start: {exc}") from None
        if hello.get("gpu") is None:
            self.close()
            from fmhactl.runtime.device import no_gpu

            raise no_gpu(str(hello.get("reason", "")))
        self.info = hello
        return hello

    def ensure_started(self) -> dict:
        if self._proc is None or self._proc.poll() is not None:
            return self.start()
        return self.info

    def run(self, job: KernelJob | dict) -> dict:
        """One job: a KernelJob (its wire form, `to_dict`, is what the worker reads back as the same
        record) or a control message of the CPU worker (build, selftest, cubin_sha256) as a dict."""
        self.ensure_started()
        assert self._proc is not None and self._proc.stdin is not None
        self._next_id += 1
        wire = dict(job if isinstance(job, dict) else job.to_dict(), id=self._next_id)
        stage, partial = None, None
        try:
            self._proc.stdin.write((json.dumps(wire) + "\n").encode())
            self._proc.stdin.flush()
            deadline = time.monotonic() + self.timeout_s
            reply = self._read_line(self.timeout_s)
            while "stage" in reply and "status" not in reply:  # fmhactl.runtime.stage reports
                stage, partial = reply["stage"], reply.get("partial", partial)
                reply = self._read_line(deadline - time.monotonic())
        except TimeoutError:
            self.close()
            return _verdict("HANG", f"no answer within {self.timeout_s:g} s{_at(stage)}; worker killed", partial)
        except (WorkerDied, BrokenPipeError) as exc:
            tail = self._stderr_tail()
            self.close()
            return _verdict("CRASH", f"worker died{_at(stage)}: {exc}" + (f"; {tail}" if tail else ""), partial)
        if reply.get("fatal"):
            self.close()
        return reply

    def _read_line(self, timeout_s: float) -> dict:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                if not sel.select(remaining):
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    code = self._proc.wait()
                    raise WorkerDied(f"exit code {code}")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return json.loads(line)

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        lines = [l for l in self._stderr.read().decode(errors="replace").splitlines() if l.strip()]
        return lines[-1][:300] if lines else ""

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                try:
                    os.killpg(self._proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
