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


def test_decode_shapes_get_their_own_axis_in_gb_per_s(tmp_path):
    """A 3 TFLOP/s decode bar must not force a log axis on the 300-650 TFLOP/s prefill bars."""
    import matplotlib

    from fmhactl.bench.plot import bytes_moved, gb_per_s
    from fmhactl.config import AttnConfig

    prefill = AttnConfig(batch=8, heads=16, seq_q=4096, seq_k=4096, head_dim=128)
    decode = AttnConfig(batch=1, heads=1, seq_q=1, seq_k=4096, head_dim=128)
    # Q + O: 2 x 128 x 2 B; K + V: 2 x 4096 x 128 x 2 B; LSE: 4 B.
    assert bytes_moved(decode) == 512 + 2_097_152 + 4
    point = BenchPoint(decode.key, "k", 0.004, 0.001, config=decode)
    assert gb_per_s(point) == pytest.approx(2_097_668 / 1e-6 / 1e9)
    points = [BenchPoint(prefill.key, "k", 620.0, 1.8, config=prefill),
              BenchPoint(prefill.key, "sdpa/cudnn", 600.0, 1.9, config=prefill),
              BenchPoint(decode.key, "k", 3.0, 0.002, config=decode),
              BenchPoint(decode.key, "sdpa/cudnn", 3.1, 0.0019, config=decode)]
    captured = {}
    real_savefig = matplotlib.figure.Figure.savefig

    def keep(fig, *args, **kwargs):
        captured["axes"] = [(ax.get_yscale(), ax.get_ylabel(), ax.get_ylim()) for ax in fig.axes]
        return real_savefig(fig, *args, **kwargs)

    matplotlib.figure.Figure.savefig = keep
    try:
        drawn = draw_bench(points, tmp_path / "b.png", title="t")
    finally:
        matplotlib.figure.Figure.savefig = real_savefig
    assert drawn["decode_configs"] == [decode.key]
    (scale_a, label_a, lim_a), (scale_b, label_b, lim_b) = captured["axes"]
    assert scale_a == scale_b == "linear"
    assert "TFLOP/s" in label_a and "GB/s" in label_b
    assert 620 < lim_a[1] < 800 and lim_b[1] > 1000  # each axis scaled to its own numbers
