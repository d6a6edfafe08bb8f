"""What `fmhactl tma check` shows, built from services.tma results (plain text, tables, grids)."""

from __future__ import annotations

from typing import Any

from fmhactl.layout import tensormap as tm
from fmhactl.present import views
from fmhactl.present.render import TextTable


def rules_table(result: Any) -> TextTable:
    rows = tuple((r.rule, r.param, r.statement, r.status.upper() if r.status == "violated" else r.status, r.detail)
                 for r in result.rules if r.status != "n/a")
    return TextTable("cuTensorMapEncodeTiled requirements (spec §8.1)",
                     ("rule", "parameter", "requirement", "status", "detail"), rows)


def verdict_lines(result: Any, report: Any) -> list[str]:
    out = []
    skipped = [r.rule for r in result.rules if r.status == "n/a"]
    if skipped:
        out.append(f"not applicable here: {', '.join(skipped)}")
    if result.valid:
        out.append("VALID: every documented requirement is met.")
        s = result.box
        if s:
            out.append(f"one load moves {s.box_bytes} B (elements per dim {list(s.elements_per_dim)}): arm the mbarrier "
                       f"with expect_tx {s.box_bytes}, even when part of the box is out of bounds; put the shared-memory "
                       f"destination on a {s.smem_alignment}-byte boundary.")
        out.append("If the driver still answers CUDA_ERROR_INVALID_VALUE, look at what these parameters cannot show: "
                   "the CUtensorMap object must be 64-byte aligned (use cuda.h's type, not a home-made struct), the "
                   "strides array must hold rank-1 byte strides (dimension 0's is implicit), the arrays must really "
                   "have rank entries, and the device must be sm_90 or newer. Re-run with --driver on a GPU to compare.")
    else:
        bad = result.violated
        out.append(f"INVALID: {len(bad)} documented requirement(s) violated ({', '.join(r.rule for r in bad)}); the "
                   "driver answers CUDA_ERROR_INVALID_VALUE.")
    if report is not None:
        if report.driver is None:
            out.append(f"driver: {report.driver_note}")
        else:
            agree = "agrees" if report.agree else "DISAGREES"
            out.append(f"driver: {report.driver.name} - {agree} with the model ({report.driver_note})")
    return out


def box_grid(p: tm.TensorMapParams) -> tuple[views.Grid | None, str]:
    return views.tma_box_grid(p)
