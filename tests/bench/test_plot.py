"""`bench --plot`: TFLOP/s of the kernel and each baseline across shapes, as a PNG a person can read."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")
from PIL import Image  # noqa: E402  (matplotlib depends on pillow)

from fmhactl.bench.plot import draw_bench  # noqa: E402
from fmhactl.services.kernels import BenchPoint  # noqa: E402


def _pixels(path):
    image = Image.open(path).convert("RGB")
    raw = image.tobytes()
    return image.size, [tuple(raw[i:i + 3]) for i in range(0, len(raw), 3)]


def test_bench_plot_has_one_series_per_implementation(tmp_path):
    points = [BenchPoint("b4h16-t2048s2048-d128-bf16", "ref", 2.8, 49.9),
              BenchPoint("b4h16-t2048s2048-d128-bf16", "sdpa/cudnn", 700.0, 0.2, 0.004),
              BenchPoint("b4h16-t2048s2048-d128-bf16", "sdpa/flash", 350.0, 0.4, 0.008),
              BenchPoint("b4h16-t2048s2048-d64-bf16", "ref", 2.1, 33.0),
              BenchPoint("b4h16-t2048s2048-d64-bf16", "sdpa/cudnn", 420.0, 0.2, 0.005)]
    out = tmp_path / "bench.png"
    drawn = draw_bench(points, out, title="fmhactl bench ref", subtitle="test", width=900, height=500)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    size, pixels = _pixels(out)
    assert size == (900, 500)
    assert drawn["implementations"] == ["ref", "sdpa/cudnn", "sdpa/flash"]
    assert drawn["configs"] == ["b4h16-t2048s2048-d128-bf16", "b4h16-t2048s2048-d64-bf16"]
    for colour in ((210, 30, 30), (224, 138, 0), (122, 61, 184)):  # ref, cudnn, flash bars
        assert sum(1 for p in pixels if p == colour) > 30, colour


def test_bench_plot_refuses_nothing_to_draw(tmp_path):
    from fmhactl.errors import CheckFailed

    with pytest.raises(CheckFailed, match="no configuration produced a timing"):
        draw_bench([], tmp_path / "x.png", title="t")
    assert not (tmp_path / "x.png").exists()
