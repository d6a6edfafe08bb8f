"""status: milestones computed per execution mode from the results store; STATUS.md and the gate."""

from __future__ import annotations

from pathlib import Path

from fmhactl.errors import CheckFailed
from fmhactl.status.service import StatusReport, run_status


def status(*, out_dir: Path | None = None, check: bool = False, milestones_file: Path | None = None) -> StatusReport:
    """Compute every milestone; write STATUS.md + milestones/ unless check. With check, nothing is
    written and CheckFailed is NOT raised here: the caller reads report.regressions (see gate)."""
    if out_dir is not None and not check:
        from fmhactl.paths import check_output_path

        check_output_path(Path(out_dir) / "STATUS.md", "--out")
    return run_status(out_dir=out_dir, write=not check, milestones_file=milestones_file)


def gate(report: StatusReport) -> None:
    """The --check verdict: CheckFailed (exit 1) on any regression."""
    if report.regressions:
        raise CheckFailed(f"{len(report.regressions)} regression(s): {report.regressions[0]}")
