"""The pass rule and the numbers a kernel engineer reads: error, where it is, cosine, LSE."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from fmhactl.runtime.execute import POISON_16, POISON_32  # the bit patterns outputs are poisoned with


@dataclass
class Comparison:
    passed: bool
    max_abs_err: float
    max_err_at: list[int]  # (b, h, t, d)
    tolerance: float
    ref_low_err: float
    atol: float
    cosine: float
    unwritten: int
    nan_mismatch: int
    lse_max_err: float | None = None
    lse_tolerance: float | None = None
    lse_unwritten: int = 0
    lse_inf_mismatch: int = 0  # LSE values whose class (finite, NaN, +inf, -inf) differs from the reference's
    lse_bad_rows: list[list[int]] = field(default_factory=list)  # (b, h, t) of the first such rows
    failing_elements: int = 0
    reasons: list[str] = field(default_factory=list)
    error_map: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def compare(out, lse, ref32, ref_low, lse_ref64, lse_ref32, *, block_m: int = 0, warp_rows: int = 0,
            lane_quarters: bool = False) -> Comparison:
    """FlashAttention's rule: max|out - ref32| <= 2 * max|ref_low - ref32| + atol.

    out/ref tensors are (b, t, h, d); lse tensors are (b, h, t).
    """
    import torch

    unwritten = int((out.view(torch.int16) == POISON_16).sum().item())
    outf = out.float()
    ref_nan = torch.isnan(ref32)
    nan_mismatch = int((torch.isnan(outf) != ref_nan).sum().item())
    inf_mismatch = int(((torch.isinf(outf) != torch.isinf(ref32)) & ~ref_nan).sum().item())
    finite = torch.isfinite(ref32) & torch.isfinite(outf)
    diff = torch.where(finite, (outf - ref32).abs(), torch.zeros_like(ref32))
    max_abs_err = float(diff.max().item()) if diff.numel() else 0.0
    flat = int(diff.argmax().item()) if diff.numel() else 0
    b, t, h, d = _unravel(flat, tuple(diff.shape))
    ref_low_err = float((ref_low.float() - ref32).abs().nan_to_num(0.0).max().item())
    atol = 2.0 * float(((ref32 + 0.3 - 0.3) - ref32).abs().nan_to_num(0.0).max().item())
    tolerance = 2.0 * ref_low_err + atol
    cosine = _cosine(outf, ref32)

    reasons: list[str] = []
    if unwritten:
        reasons.append(f"{unwritten} output elements never written")
    if nan_mismatch or inf_mismatch:
        reasons.append(f"NaN/Inf positions differ from the reference ({nan_mismatch + inf_mismatch})")
    if max_abs_err > tolerance:
        reasons.append(f"max|out-ref| {max_abs_err:.3e} > tolerance {tolerance:.3e}")
    failing = diff > tolerance
    failing_count = int(failing.sum().item()) + unwritten

    result = Comparison(passed=False, max_abs_err=max_abs_err, max_err_at=[b, h, t, d],
                        tolerance=tolerance, ref_low_err=ref_low_err, atol=atol, cosine=cosine,
                        unwritten=unwritten, nan_mismatch=nan_mismatch + inf_mismatch,
                        failing_elements=failing_count)
    if lse is not None:
        _check_lse(result, reasons, lse, lse_ref64, lse_ref32)
    result.reasons = reasons
    result.passed = not reasons
    if not result.passed:
        bad = failing | (out.view(torch.int16) == POISON_16) | (torch.isnan(outf) != ref_nan)
        result.error_map = error_map(bad, block_m, warp_rows, lane_quarters)
    return result


LSE_ROWS_NAMED = 4  # rows named per LSE reason


def _lse_class(x):
    """0 finite, 1 NaN, 2 +inf, 3 -inf: the classes an LSE value must share with the reference."""
    import torch

    cls = torch.zeros_like(x, dtype=torch.int8)
    cls[torch.isnan(x)] = 1
    cls[torch.isposinf(x)] = 2
    cls[torch.isneginf(x)] = 3
    return cls


_CLASS_NAME = ("finite", "NaN", "+inf", "-inf")


def _check_lse(result: Comparison, reasons: list[str], lse, lse_ref64, lse_ref32) -> None:
    """LSE checked like O: poison (never written), then the class of every value against the
    reference (NaN, +inf or -inf where the reference is finite; anything but -inf where the
    reference row is fully masked, i.e. -inf), then the error over rows finite in both.
    Each class mismatch names its rows (b, h, t)."""
    import torch

    unwritten_mask = lse.view(torch.int32) == POISON_32
    lse_unwritten = int(unwritten_mask.sum().item())
    got, want = _lse_class(lse), _lse_class(lse_ref64)
    wrong = (got != want) & ~unwritten_mask
    bad_count = int(wrong.sum().item())
    ok = (want == 0) & (got == 0)
    zeros = torch.zeros_like(lse_ref64)
    lse_err = float(torch.where(ok, (lse.double() - lse_ref64).abs(), zeros).max().item()) if lse.numel() else 0.0
    ref_finite = want == 0
    lse32_err = float(torch.where(ref_finite, (lse_ref32.double() - lse_ref64).abs(), zeros).nan_to_num(0.0)
                      .max().item()) if lse.numel() else 0.0
    lse_tol = 4.0 * lse32_err + 1e-4
    result.lse_max_err, result.lse_tolerance = lse_err, lse_tol
    result.lse_unwritten, result.lse_inf_mismatch = lse_unwritten, bad_count
    if lse_unwritten:
        reasons.append(f"{lse_unwritten} LSE values never written")
    if bad_count:
        rows = wrong.nonzero().tolist()
        result.lse_bad_rows = rows[:LSE_ROWS_NAMED]
        for ref_cls in (0, 3):  # the reference is finite, or -inf (a fully masked row)
            picked = [r for r in rows if int(want[tuple(r)]) == ref_cls]
            if not picked:
                continue
            named = ", ".join(f"(b={b}, h={h}, t={t}) {_CLASS_NAME[int(got[b, h, t])]}"
                              for b, h, t in picked[:LSE_ROWS_NAMED])
            more = f" and {len(picked) - LSE_ROWS_NAMED} more" if len(picked) > LSE_ROWS_NAMED else ""
            where = "finite" if ref_cls == 0 else "-inf (fully masked row)"
            reasons.append(f"LSE wrong where the reference is {where}: {len(picked)} rows: {named}{more}")
    if lse_err > lse_tol:
        reasons.append(f"max|lse-ref| {lse_err:.3e} > {lse_tol:.3e}")


def _unravel(index: int, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    coords = []
    for size in reversed(shape):
        coords.append(index % size)
        index //= size
    b, t, h, d = reversed(coords)
    return b, t, h, d


def _cosine(a, b) -> float:
    import torch

    a64 = torch.nan_to_num(a.double().flatten())
    b64 = torch.nan_to_num(b.double().flatten())
    denom = a64.norm() * b64.norm()
    if denom == 0:
        return 1.0 if torch.equal(a64, b64) else 0.0
    return float((a64 @ b64 / denom).item())


def _ranges(values: list[int]) -> str:
    """[0,1,2,5,7,8] -> '0-2,5,7-8'."""
    if not values:
        return "-"
    parts, start, prev = [], values[0], values[0]
    for v in values[1:] + [None]:  # type: ignore[list-item]
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(f"{start}-{prev}" if prev != start else f"{start}")
        if v is not None:
            start = prev = v
    return ",".join(parts)


def error_map(bad, block_m: int, warp_rows: int = 0, lane_quarters: bool = False) -> str:
    """Where the wrong elements live, in kernel terms: query tiles, the warps that own those rows
    (TMEM lane quarters for the SM100 family), head-dim columns, heads, batches."""
    import torch

    if not bool(bad.any()):
        return ""
    idx = bad.nonzero()
    batches = sorted(set(idx[:, 0].tolist()))
    rows = sorted(set(idx[:, 1].tolist()))
    heads = sorted(set(idx[:, 2].tolist()))
    cols = sorted(set(idx[:, 3].tolist()))
    parts = [f"rows {_ranges(rows)}"]
    if block_m:
        tiles = sorted({r // block_m for r in rows})
        within = sorted({r % block_m for r in rows})
        parts.append(f"query tiles {_ranges(tiles)} (rows {_ranges(within)} within a {block_m}-row tile)")
        if warp_rows:
            warps = sorted({r // warp_rows for r in within})
            owner = "softmax warps" if lane_quarters else "warps"
            lanes = f" = TMEM lane quarters {_ranges(warps)}" if lane_quarters else ""
            parts.append(f"{owner} {_ranges(warps)}{lanes}")
    parts += [f"head-dim cols {_ranges(cols)}", f"heads {_ranges(heads)}", f"batches {_ranges(batches)}"]
    share = 100.0 * idx.shape[0] / bad.numel()
    return f"{idx.shape[0]} bad elements ({share:.1f}%): " + "; ".join(parts)
