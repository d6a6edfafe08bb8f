"""The GPU check the SM90 gather kernels' tests share (tests/sm90/test_gpu_mqa_gather.py and
test_gpu_mqa_decode.py): run `verify` on a variant over the shapes it must pass and the ones it must
refuse, and assert each status, that LSE was checked and that every output element was written."""

from fmhactl.config import parse_shape
from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.verify.sweep import run_verify


def assert_verify_statuses(name: str, shapes: list[str], unsupported: list[str]) -> None:
    variant = get_variant(name)
    configs = [parse_shape(s) for s in shapes + unsupported]
    assert [variant.unsupported_reason(c) is None for c in configs] == [True] * len(shapes) + [False] * len(unsupported)
    with ResultStore() as store:
        summary = run_verify([variant], configs, store=store, timeout_s=120)
    want = {c.key: "PASS" if variant.unsupported_reason(c) is None else "UNSUPPORTED" for c in configs}
    got = {row.config_key: row.status for row in summary.rows}
    assert got == want, [(r.config_key, r.status, r.metrics.get("reasons"), r.metrics.get("error"))
                         for r in summary.rows if r.status != want[r.config_key]]
    for row in summary.rows:
        if row.status == "PASS":
            assert row.metrics.get("lse_max_err") is not None, f"{row.config_key}: LSE not checked"
            assert row.metrics.get("unwritten", 0) == 0, row.config_key
