"""status: milestones computed per execution mode from the results store plus the committed
evidence; the status files, the --check gate and the evidence export/import."""

from __future__ import annotations

from pathlib import Path

from fmhactl.errors import CheckFailed
from fmhactl.status.compute import MODES  # noqa: F401 - the shells render the mode columns
from fmhactl.status.render import mode_cell  # noqa: F401
from fmhactl.status.service import StatusReport, run_status


def status(*, out_dir: Path | None = None, check: bool = False, milestones_file: Path | None = None,
           evidence: Path | None = None, evidence_only: bool | None = None) -> StatusReport:
    """Compute every milestone; write STATUS.md + milestones/ unless check.

    check compares the files in out_dir with what the committed evidence alone computes (the
    local store is left out unless evidence_only=False is given), writes nothing, and does NOT
    raise here: the caller reads report.differences and report.regressions (see gate)."""
    if out_dir is not None and not check:
        from fmhactl.paths import check_output_path

        check_output_path(Path(out_dir) / "STATUS.md", "--out")
    elif out_dir is not None:  # --check reads the folder: a name refused or a file is bad input, not "missing"
        from fmhactl.errors import BadInput
        from fmhactl.paths import exists

        if exists(Path(out_dir), "--out") and not Path(out_dir).is_dir():
            raise BadInput(f"--out {out_dir}: not a folder (--check reads STATUS.md and milestones/ there)")
    use_local = not (check if evidence_only is None else evidence_only)
    return run_status(out_dir=out_dir, write=not check, milestones_file=milestones_file, evidence=evidence,
                      use_local=use_local)


def gate(report: StatusReport) -> None:
    """The --check verdict: CheckFailed (exit 1) when a committed file differs from what the
    evidence computes, or on any regression."""
    if report.differences:
        changed = f" (states: {', '.join(report.state_changes)})" if report.state_changes else ""
        raise CheckFailed(f"{len(report.differences)} status file(s) differ from what the committed evidence "
                          f"computes{changed}: {report.differences[0]}; regenerate them with "
                          "`fmhactl status --evidence-only` (STALE: re-run the milestone's proof scenario on a GPU "
                          "and `fmhactl results export`) and commit")
    if report.regressions:
        raise CheckFailed(f"{len(report.regressions)} regression(s): {report.regressions[0]}")
