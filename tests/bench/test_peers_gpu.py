"""The peer baselines compute the reference's attention on small shapes (GPU; each test skips
where its package is not installed): `checked` runs the peer once and compares it with the
reference by FlashAttention's rule, so a pass here is what lets `bench` quote the peer."""

from __future__ import annotations

import importlib.util

import pytest

from fmhactl.bench import peers
from fmhactl.config import parse_shape

pytestmark = pytest.mark.gpu

MODULES = {"fa4": "flash_attn.cute", "flashinfer": "flashinfer"}
SHAPES = [
    "b=2,h=4,t=256,s=256,d=128",
    "b=2,h=8,hkv=2,t=128,s=384,d=64,causal",  # GQA, causal bottom-right aligned (t < s)
    "b=4,h=8,hkv=8,t=1,s=1024,d=128",  # a decode step (FlashInfer: its decode wrapper)
    "b=1,h=4,hkv=2,t=192,s=320,d=128,causal,wl=64",  # a left window
    "b=1,h=4,hkv=2,t=64,s=256,d=64,causal,sink",  # sinks (FlashInfer: its sink wrapper)
]


def installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(MODULES[name]) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", peers.PEER_BASELINES)
def test_a_peer_matches_the_reference(name, shape):
    if not installed(name):
        pytest.skip(f"{peers.PACKAGES[name]} is not installed")
    import torch

    from fmhactl.runtime.features import make_feature_inputs

    cfg = parse_shape(shape)
    gen = torch.Generator(device="cuda").manual_seed(3)

    def draw(seq, heads):
        return torch.randn(cfg.batch, seq, heads, cfg.head_dim, generator=gen, device="cuda").to(torch.bfloat16)

    q, k, v = draw(cfg.seq_q, cfg.heads), draw(cfg.seq_k, cfg.heads_kv), draw(cfg.seq_k, cfg.heads_kv)
    features = make_feature_inputs(cfg, 5)
    peer = peers.checked(name, cfg, q, k, v, features)  # PeerUnavailable (a failure here) on a wrong output
    out = peer(*peer.inputs(q, k, v))
    assert out.shape == q.shape
