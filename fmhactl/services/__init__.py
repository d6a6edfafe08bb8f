"""The service layer: the single entry for every capability the CLI and the TUI offer.

    from fmhactl import services
    outcome = services.verify(["ref"], grid="smoke", progress=on_event, cancel=token)

Conventions (docs/architecture.md has the picture):
- typed arguments in, typed results out (dataclasses; metrics as fmhactl.records types);
- the project's errors out: BadInput (exit 2), MissingEnvironment (exit 3), CheckFailed and
  Cancelled (exit 1); every argument is checked before any work starts;
- `progress`: called with one fmhactl.records.ProgressEvent per unit of work (config, variant,
  build, ncu pass, scenario step); `cancel`: a CancelToken checked between units;
- nothing here imports typer, rich or textual; torch and CUDA are imported only when used.
"""

from __future__ import annotations

from fmhactl.errors import BadInput, Cancelled, CheckFailed, ExitCode, FmhactlError, MissingEnvironment
from fmhactl.progress import CancelToken, ProgressCallback, ProgressEvent
from fmhactl.services.build import KernelBuildRow, build, build_variants, instruction_mixes, kernel_rows
from fmhactl.services.device import gpu_status
from fmhactl.services.kernels import (BenchOutcome, BenchPoint, DumpOutcome, RunOutcome, VerifyOutcome, bench, dump,
                                      list_variants, run, verify)
from fmhactl.services.profile import ProfileOutcome, profile
from fmhactl.services.results import ResultsFilter, query as query_results
from fmhactl.services.results import ExportOutcome, ImportOutcome, export_evidence, import_evidence
from fmhactl.services.scenario import list_scenarios, load_scenario, run as run_named_scenario, run_scenario
from fmhactl.services.status import gate as status_gate, status
from fmhactl.services import layout, tma  # noqa: E402 - the layout/tma questions (layoutsvc)
from fmhactl.services import ptx  # noqa: E402 - the PTX-level tcgen05 emulator (docs/ptx-emulation.md)
from fmhactl.services import project  # noqa: E402 - kernel projects: init, include-dir, --project (docs/kernel-abi.md)
from fmhactl.services.merge import MergeOutcome, merge_demo, merge_files  # LSE merge of KV segments (docs/features.md)

__all__ = [
    "BadInput", "Cancelled", "CheckFailed", "ExitCode", "FmhactlError", "MissingEnvironment",
    "CancelToken", "ProgressCallback", "ProgressEvent",
    "KernelBuildRow", "build", "build_variants", "instruction_mixes", "kernel_rows", "gpu_status",
    "BenchOutcome", "BenchPoint", "DumpOutcome", "RunOutcome", "VerifyOutcome", "bench", "dump", "list_variants",
    "run", "verify", "ProfileOutcome", "profile", "ResultsFilter", "query_results",
    "ExportOutcome", "ImportOutcome", "export_evidence", "import_evidence",
    "list_scenarios", "load_scenario", "run_named_scenario", "run_scenario", "status", "status_gate",
    "layout", "tma", "ptx", "project",
    "MergeOutcome", "merge_demo", "merge_files",
]
