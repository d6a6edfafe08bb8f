"""The results table's summary cell: a bench row's TFLOP/s, or for a HANG/CRASH its error, even
when the row kept the kernel's timing (fmhactl.runtime.stage's partial metrics)."""

from types import SimpleNamespace

from fmhactl.tui.backend import _summary


def test_a_hung_bench_row_summarises_its_error_not_its_kept_timing():
    kernel = {"tflops": 36.9, "median_ms": 0.0136}
    ok = SimpleNamespace(kind="bench", status="OK", metrics={"kernel": kernel})
    hung = SimpleNamespace(kind="bench", status="HANG", metrics={
        "kernel": kernel, "error": "no answer within 4 s (the job was at: baseline flex); worker killed"})
    assert _summary(ok) == "36.9 TFLOP/s"
    assert _summary(hung) == "no answer within 4 s (the job was at: baseline flex); worker killed"[:60]
