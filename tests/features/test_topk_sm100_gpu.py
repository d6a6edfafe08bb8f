"""On a GPU: sm100_tma_s2_tmem's sparse top-k (FMHA_TOPK; strict emulation of sm_100a on sm_90,
native on sm_100) passes every top-k config of the dsv4 grid, and a few more shapes that reach the
top-k code's corners: a group of more than 128 heads (two head chunks per token), GQA with batch 2,
f16 hd256 with K = V and the window, a decode step."""

import pytest

from fmhactl.config import parse_shape
from fmhactl.registry import get_variant
from fmhactl.results.store import ResultStore
from fmhactl.verify.grids import load_grid
from fmhactl.verify.sweep import run_verify

pytestmark = pytest.mark.gpu

EXTRA = [
    "b=1,h=136,hkv=1,t=3,s=200,d=64,topk=40,causal",  # 2 head chunks: 128 + 8 rows
    "b=2,h=4,hkv=2,t=20,s=190,d=128,topk=70,causal,wl=63,sink",  # GQA 2:1, window per entry
    "dtype=f16,b=1,h=8,hkv=1,t=9,s=384,d=256,topk=100,causal,wl=127,sink,kvshared",
    "b=1,h=16,hkv=1,t=1,s=1000,d=512,topk=96,kvshared,sink",  # decode: the list is not empty
    "b=1,h=8,hkv=1,t=5,s=64,d=96,topk=33",  # hd 96 on the d128 entry, a 33-slot list (2 tiles)
]


def test_dsv4_topk_configs_pass_on_sm100_tma_s2_tmem(prebuilt_home):
    configs = [cfg for cfg in load_grid("dsv4").configs if cfg.topk] + [parse_shape(s) for s in EXTRA]
    assert len(configs) == 16 + len(EXTRA)
    with ResultStore() as store:
        summary = run_verify([get_variant("sm100_tma_s2_tmem")], configs, store=store, timeout_s=300, seed=27)
    bad = [(r.config_key, r.status, r.metrics.get("reasons")) for r in summary.rows if r.status != "PASS"]
    assert not bad, bad
