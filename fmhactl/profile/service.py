"""`fmhactl profile`: one launch under ncu, restricted to its NVTX range; report kept, parsed, stored."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fmhactl import paths
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput, ExitCode, FmhactlError, MissingEnvironment
from fmhactl.profile.recipes import Recipe
from fmhactl.progress import CancelToken, ProgressCallback, check_cancel, notify
from fmhactl.profile.report import Action, find_ncu, parse_report, summarize
from fmhactl.registry import Variant
from fmhactl.results.store import ResultRow, ResultStore, new_session_id
from fmhactl.runtime.nvtx_ranges import ncu_include, range_name

CLOCK_CONTROLS = ("none", "base")


class ProfileFailed(FmhactlError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.VERIFY_FAILED)


@dataclass
class ProfileResult:
    row: ResultRow
    summary: dict
    report: Path
    command: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def reports_dir() -> Path:
    path = paths.work_dir() / "profiles"
    path.mkdir(parents=True, exist_ok=True)
    return path


def child_nvtx_backend() -> str:
    """What the target child will emit: the nvtx package if importable, else torch's NVTX."""
    return "nvtx" if importlib.util.find_spec("nvtx") is not None else "torch"


def ncu_version(ncu: str) -> str:
    try:
        out = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    match = re.search(r"Version\s+(\S+)", out)
    if match:
        return match.group(1)
    return _tail(out)


def ncu_command(ncu: str, recipe: Recipe, *, report_base: Path, clock_control: str, warmup: int,
                child: list[str], nvtx_include: str | None, kernel_name: str | None = None) -> list[str]:
    """The ncu command line. With nvtx_include, only launches in that range count; --launch-skip
    then skips the warm-up launches among them and --launch-count 1 keeps the next one."""
    cmd = [ncu, "--target-processes", "all", "--clock-control", clock_control, "--cache-control", "all"]
    if nvtx_include is not None:
        cmd += ["--nvtx", "--nvtx-include", nvtx_include]
    if kernel_name is not None:
        cmd += ["--kernel-name", f"regex:^{re.escape(kernel_name)}"]
    cmd += ["--launch-skip", str(warmup), "--launch-count", "1"]
    cmd += recipe.ncu_args()
    cmd += ["-o", str(report_base), "-f"]
    return cmd + child


def _child_env() -> dict:
    env = dict(os.environ)
    root = str(paths.project_root())
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["FMHACTL_NVTX_FALLBACK"] = "torch"
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _tail(text: str, lines: int = 1) -> str:
    useful = [ln for ln in text.strip().splitlines() if ln.strip()]
    return " | ".join(useful[-lines:]) if useful else ""


# The sidecar's fields the parent reads (fmhactl/profile/target.py writes them): text, or the GPU's
# name null where there is none.
_SIDECAR_TEXT = ("error", "mode", "arch", "source_hash", "toolchain", "driver", "nvtx_backend")


def read_sidecar(sidecar: Path) -> dict[str, Any]:
    """The profile target's report of what ran, checked: a file in the home's profiles folder, so
    a damaged one (cut short, edited, not JSON) is MissingEnvironment (exit 3) naming it and the
    rule, never a traceback and never stored as a profile row."""
    def damaged(rule: str) -> MissingEnvironment:
        return MissingEnvironment(f"profile target report {sidecar}: {rule} (written by python -m "
                                  "fmhactl.profile.target; damaged, not used)")

    try:
        target = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, and ValueError for 10**5000
        raise damaged(f"not readable JSON ({type(exc).__name__})") from None
    if not isinstance(target, dict):
        raise damaged(f"a JSON object is needed, got {type(target).__name__}")
    if not isinstance(target.get("ok"), bool):
        raise damaged("'ok' must be true or false")
    code = target.get("code", 1)
    failing = [int(c) for c in ExitCode if c]
    if not target["ok"] and (type(code) is not int or code not in failing):
        raise damaged(f"'code' must be a failing exit code ({', '.join(map(str, failing))})")
    for key in _SIDECAR_TEXT:
        if key in target and not isinstance(target[key], str):
            raise damaged(f"{key!r} must be text")
    if target.get("gpu") is not None and not isinstance(target["gpu"], str):
        raise damaged("'gpu' must be text or null")
    return target


def run_profile(variant: Variant, cfg: AttnConfig, recipe: Recipe, *, store: ResultStore,
                clock_control: str = "none", warmup: int = 2, seed: int = 0, timeout_s: float = 600.0,
                ncu: str | None = None, progress: ProgressCallback | None = None,
                cancel: CancelToken | None = None) -> ProfileResult:
    """Profile one launch; one progress event per ncu pass (NVTX filter, then kernel-name fallback)."""
    reason = variant.unsupported_reason(cfg)
    if reason:
        raise BadInput(f"{variant.name} cannot run {cfg.key}: {reason}")
    if clock_control not in CLOCK_CONTROLS:
        raise BadInput(f"--clock-control must be one of {', '.join(CLOCK_CONTROLS)}, got {clock_control!r}")
    if warmup < 0:
        raise BadInput("--warmup must be >= 0")
    ncu = ncu or find_ncu()
    session = new_session_id()
    stem = f"{variant.name}__{cfg.key}__{recipe.name}__{session}"
    folder = reports_dir()
    report_base = folder / stem
    report = folder / f"{stem}.ncu-rep"
    sidecar = folder / f"{stem}.target.json"
    log = folder / f"{stem}.log"
    spec = {"variant": variant.name, "config": cfg.to_dict(), "seed": seed, "warmup": warmup,
            "launches": 1, "sidecar": str(sidecar)}
    child = [sys.executable, "-m", "fmhactl.profile.target", json.dumps(spec, sort_keys=True)]
    which = child_nvtx_backend()
    include = ncu_include(variant.name, cfg.key, which)
    notes: list[str] = []
    attempts = [("nvtx", ncu_command(ncu, recipe, report_base=report_base, clock_control=clock_control,
                                      warmup=warmup, child=child, nvtx_include=include))]
    attempts.append(("kernel-name", ncu_command(ncu, recipe, report_base=report_base, clock_control=clock_control,
                                                warmup=warmup, child=child, nvtx_include=None,
                                                kernel_name=variant.entry(cfg.dtype, cfg.head_dim))))
    actions: list[Action] = []
    parser, used, command, target = "", "", [], {}
    with log.open("w") as log_file:
        for attempt, (label, cmd) in enumerate(attempts, 1):
            check_cancel(cancel)
            notify(progress, "ncu-pass", attempt - 1, len(attempts), f"ncu pass {attempt} ({label} filter)")
            sidecar.unlink(missing_ok=True)
            report.unlink(missing_ok=True)
            log_file.write("$ " + " ".join(cmd) + "\n")
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, env=_child_env(),
                                      cwd=str(paths.project_root()))
            except subprocess.TimeoutExpired:
                raise ProfileFailed(f"ncu did not finish within {timeout_s:g} s (log: {log})") from None
            log_file.write(proc.stdout + proc.stderr + f"\n[exit {proc.returncode}]\n")
            log_file.flush()
            target = read_sidecar(sidecar) if sidecar.is_file() else {}
            if target and not target.get("ok"):
                code = int(target.get("code", 1))
                if code == int(ExitCode.MISSING_ENV):
                    raise MissingEnvironment(target.get("error", "no GPU usable here"))
                if code == int(ExitCode.BAD_INPUT):
                    raise BadInput(target.get("error", "bad input"))
                raise ProfileFailed(f"profile target failed: {target.get('error')} (log: {log})")
            if proc.returncode != 0 and not report.is_file():
                message = f"ncu exited {proc.returncode}: {_tail(proc.stdout + proc.stderr)}"
                if label == attempts[-1][0]:
                    raise ProfileFailed(f"{message} (log: {log})")
                notes.append(f"{label} attempt failed: {message}")
                continue
            if not target:
                raise ProfileFailed(f"the profile target reported nothing (log: {log})")
            if report.is_file():
                actions, parser = parse_report(report, ncu)
            if actions:
                used, command = label, cmd
                break
            notes.append(f"{label} filter {include if label == 'nvtx' else variant.entry(cfg.dtype, cfg.head_dim)!r} "
                         "matched no launch")
    if not actions:
        raise ProfileFailed(f"ncu profiled no launch ({'; '.join(notes)}; log: {log})")
    if used != "nvtx":
        notes.append("profiled by kernel name because the NVTX filter matched nothing")
    action = actions[0]
    summary = summarize(action, cfg.flops)
    if target.get("mode") == "emulated":
        notes.append("emulated execution: these numbers say nothing about SM100 performance")
    numeric = {k: v for k, v in action.metrics.items()
               if isinstance(v, (int, float)) or (isinstance(v, str) and len(v) <= 120)}
    metrics = {
        "summary": summary, "ncu": numeric, "units": action.units, "report": str(report), "log": str(log),
        "recipe": recipe.name, "clock_control": clock_control, "cache_control": "all",
        "filter": used, "nvtx_include": include, "nvtx_range": range_name(variant.name, cfg.key),
        "nvtx_backend": target.get("nvtx_backend", which), "parser": parser,
        "ncu_version": ncu_version(ncu), "launches_in_report": len(actions), "notes": notes,
        "command": [c if c != child[-1] else "<spec>" for c in command],
    }
    row = ResultRow(kind="profile", variant=variant.name, arch=target.get("arch", ""),
                    mode=target.get("mode", ""), status="OK", config_key=cfg.key, config=cfg.to_dict(),
                    metrics=metrics, source_hash=target.get("source_hash", ""), gpu=target.get("gpu") or "",
                    driver=target.get("driver", ""), toolchain=target.get("toolchain", ""), seed=seed,
                    session=session)
    store.add(row)
    return ProfileResult(row=row, summary=summary, report=report, command=command, notes=notes)
