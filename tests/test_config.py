import pytest

from fmhactl.config import AttnConfig, parse_shape
from fmhactl.errors import BadInput


def test_parse_shape_reads_every_field():
    cfg = parse_shape("b=2,h=8,hkv=2,t=100,s=300,d=96,dtype=f16,causal")
    assert (cfg.batch, cfg.heads, cfg.heads_kv, cfg.seq_q, cfg.seq_k, cfg.head_dim) == (2, 8, 2, 100, 300, 96)
    assert cfg.dtype == "f16" and cfg.causal is True
    assert cfg.key == "b2h8kv2-t100s300-d96-f16-causal"


def test_heads_kv_defaults_to_heads():
    assert parse_shape("h=4,t=1,s=1,d=64").heads_kv == 4


@pytest.mark.parametrize("text, fragment", [
    ("b=0,t=1,s=1,d=64", "batch must be a positive integer"),
    ("t=-3,s=1,d=64", "seq_q must be a positive integer"),
    ("t=1,s=1,d=64,h=6,hkv=4", "multiple of heads_kv"),
    ("t=1,s=1,d=sixty", "d must be an integer"),
    ("t=1,s=1,d=64,dtype=fp8", "dtype must be one of"),
    ("t=1,s=1,d=64,warp=3", "unknown shape field"),
    ("t=1,s=1,d=64,causal=maybe", "causal must be true or false"),
])
def test_bad_shapes_are_bad_input(text, fragment):
    with pytest.raises(BadInput, match=fragment):
        parse_shape(text)


def test_flops_dense_and_bottom_right_causal():
    dense = AttnConfig(batch=2, heads=3, seq_q=4, seq_k=4, head_dim=8)
    assert dense.flops == 4 * 2 * 3 * 4 * 4 * 8
    # T == S: 1+2+3+4 = 10 of 16 pairs visible.
    causal = AttnConfig(batch=2, heads=3, seq_q=4, seq_k=4, head_dim=8, causal=True)
    assert causal.flops == pytest.approx(dense.flops * 10 / 16)
    # T=2, S=5, bottom-right: row 0 sees 4 keys, row 1 sees 5.
    rect = AttnConfig(seq_q=2, seq_k=5, head_dim=8, causal=True)
    assert rect.flops == pytest.approx(4 * 1 * 1 * 2 * 5 * 8 * 9 / 10)


def test_shape_text_parses_back_to_the_same_config():
    for text in ("b=2,h=8,hkv=2,t=100,s=300,d=96,dtype=f16,causal", "b=1,h=4,t=1,s=4224,d=512"):
        cfg = parse_shape(text)
        assert parse_shape(cfg.shape_text()) == cfg
        assert parse_shape(cfg.shape_text()).key == cfg.key
