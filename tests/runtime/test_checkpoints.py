"""Checkpoint dumps: the host mirror of the buffer layout and the expected-value side, on the CPU."""

import pytest

torch = pytest.importorskip("torch")

from fmhactl.build.compiler import BuildTarget  # noqa: E402
from fmhactl.build.entry import build
from fmhactl.config import AttnConfig  # noqa: E402
from fmhactl.registry import Variant  # noqa: E402
from fmhactl.runtime import checkpoints as ckpt  # noqa: E402


def test_buffer_layout_matches_the_kernel(tmp_path):
    lines = ['#include "sm100/fmha_sm100.cuh"']
    for d in (64, 128, 256):
        offsets = ckpt.CheckpointLayout(d).offsets
        for name, key in (("Q", "kQ"), ("K", "kK"), ("V", "kV"), ("S", "kS"), ("P", "kP"), ("O", "kO"), ("end", "kBytes")):
            lines.append(f"static_assert(fmha_sm100::Checkpoints<{d}>::{key} == {offsets[name]}, \"{name} d{d}\");")
    lines.append('extern "C" __global__ void probe_bf16() {}')
    src = tmp_path / "ckpt_probe.cu"
    src.write_text("\n".join(lines) + "\n")
    variant = Variant(name="ckpt_probe", description="", source=str(src), archs=("sm_100a",), launcher="sm100",
                      kernel="probe_{dtype}")
    build(variant, BuildTarget("sm_100a"), force=True)


def _inputs(cfg, seed=0):
    gen = torch.Generator().manual_seed(seed)
    shape = lambda s, h: (cfg.batch, s, h, cfg.head_dim)  # noqa: E731
    return (torch.randn(*shape(cfg.seq_q, cfg.heads), generator=gen).bfloat16(),
            torch.randn(*shape(cfg.seq_k, cfg.heads_kv), generator=gen).bfloat16(),
            torch.randn(*shape(cfg.seq_k, cfg.heads_kv), generator=gen).bfloat16())


@pytest.mark.parametrize("at", ["Q", "K", "V"])
def test_smem_image_check_finds_a_swapped_chunk(at):
    cfg = AttnConfig(seq_q=100, seq_k=200, head_dim=64)
    q, k, v = _inputs(cfg)
    want = ckpt.expected(cfg, q, k, v, at, 0.18)
    assert ckpt.compare(at, want.clone(), want, 64)["mismatches"] == 0
    got = want.clone()
    got[8:16], got[16:24] = want[16:24].clone(), want[8:16].clone()  # the unswizzled order of row 0
    report = ckpt.compare(at, got, want, 64)
    assert report["mismatches"] > 0 and report["first_byte"] == 16


def test_p_and_o_expectations_are_consistent():
    cfg = AttnConfig(seq_q=128, seq_k=128, head_dim=64, causal=True)
    q, k, v = _inputs(cfg, 1)
    scale_log2 = 0.125 * 1.4426950408889634
    p = ckpt.expected(cfg, q, k, v, "P", scale_log2)
    o = ckpt.expected(cfg, q, k, v, "O", scale_log2)
    # One KV tile: O before the epilogue is exactly P @ V, and causal P is lower-triangular.
    assert torch.allclose(o, p @ v[0, :, 0].float(), atol=1e-4)
    assert torch.all(p.triu(1) == 0) and torch.all(p.diagonal() > 0)
    report = ckpt.compare("O", o + 0.5 * (torch.arange(128) >= 32).unsqueeze(1), o, 64)
    assert report["first_lane"] == 32 and report["rows_with_errors"][0] == 32
