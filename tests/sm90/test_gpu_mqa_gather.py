"""On a Hopper GPU: sm90_mqa_gather against the reference (O and LSE, outputs poisoned before the
launch, bshd/bhsd layouts alternating), at hd 64..512: top-k lists (padding, duplicates,
out-of-range entries, an empty row 0, lists longer than one SMEM round), the causal 128-key window,
sinks (head 0 -inf, head 1 dominant), K = V, the window corners, and every way the launcher cuts a
head group (1, 2 or 4 M tiles per CTA, a group split over CTAs, a last chunk with idle tiles) and
the partial-S exchange of the D-slice warps (hd256, hd512)."""

import pytest

from tests.sm90.gpu_verify import assert_verify_statuses

pytestmark = pytest.mark.gpu

SHAPES = [
    # the model's layer (dsv4): causal 128-key window + sinks, every head dim; decode and prefill rows
    *[f"b=1,h=8,hkv=1,t={t},s=300,d={d},causal,wl=127,sink" for d in (64, 128, 256, 512) for t in (1, 130)],
    # top-k lists, with and without causal, window, sinks and K = V
    "b=1,h=8,hkv=1,t=16,s=300,d=64,topk=32,sink",
    "b=1,h=8,hkv=1,t=16,s=300,d=512,topk=600,causal,sink",
    "b=1,h=8,hkv=1,t=16,s=300,d=128,topk=64,causal,wl=40,kvshared",
    "b=1,h=8,hkv=1,t=16,s=300,d=256,topk=100,dtype=f16,sink",
    "b=2,h=64,hkv=1,t=3,s=4096,d=512,topk=512,causal,wl=127,sink,kvshared",  # decode-like: 4 CTAs of 16 heads
    "b=1,h=64,hkv=1,t=2,s=4096,d=512,topk=512,kvshared,sink",                # dsv4-long's top-k decode, small
    "b=1,h=16,hkv=1,t=8,s=3000,d=128,topk=5000,causal,sink",                 # 3 rounds of the 2048-entry list
    "b=1,h=48,hkv=2,t=3,s=100,d=64,topk=40",                                 # group 24: a chunk of 8 heads
    # every head of a group in one CTA (>= 132 CTAs: 4 M tiles), 128 heads in two CTAs, a last chunk of 16 of 64
    "b=1,h=64,hkv=1,t=200,s=400,d=512,causal,wl=127,sink,kvshared",
    "b=1,h=128,hkv=1,t=140,s=300,d=256,causal,wl=127,kvshared",
    "b=1,h=80,hkv=1,t=150,s=200,d=128,causal,sink",
    "b=1,h=64,hkv=1,t=160,s=160,d=64,causal,wl=127,sink,topk=96",
    "b=1,h=64,hkv=1,t=160,s=400,d=512,causal,sink,topk=200",                # K, V apart + list: 32 heads a CTA
    # window corners: diagonal only (MHA), both sides bounded (GQA), T > S (rows with no key), wider than S
    "b=1,h=4,t=200,s=150,d=64,wl=0,wr=0,sink",
    "b=2,h=4,hkv=2,t=513,s=700,d=128,wl=40,wr=30",
    "b=1,h=8,hkv=1,t=300,s=100,d=256,causal,sink",
    "b=1,h=4,hkv=1,t=100,s=333,d=128,causal,wl=100000",
    # dense: every key (many ring wraps), K = V alone, f16
    "b=1,h=16,hkv=2,t=64,s=1000,d=128",
    "b=1,h=8,hkv=1,t=32,s=5000,d=512,kvshared",
    # split-K decode (few CTAs: each token's keys over several CTAs, merged by the last by LSE)
    "b=1,h=64,hkv=1,t=1,s=32768,d=512,topk=512,kvshared,sink",               # 8 splits of 64 entries
    "b=16,h=64,hkv=1,t=1,s=4096,d=512,topk=512,kvshared,sink",               # 64-head CTAs x 8 splits (512 threads)
    "b=4,h=128,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink",         # window: 2 splits
    "b=2,h=16,hkv=1,t=1,s=5000,d=128,causal,wl=1000,sink",                   # dense range: 7 splits
    "b=1,h=8,hkv=1,t=1,s=300,d=64,topk=600,sink",                            # out-of-range entries, splits
    "b=1,h=24,hkv=2,t=1,s=2000,d=256,topk=700,dtype=f16",                    # group 12, f16, no sink
    "b=3,h=64,hkv=1,t=2,s=4096,d=512,topk=512,causal,wl=127,sink,kvshared",  # empty/short splits
    "b=1,h=8,hkv=1,t=129,s=384,d=256,dtype=f16,causal,wl=127,sink,kvshared",
]
UNSUPPORTED = ["b=1,h=8,hkv=1,t=16,s=300,d=96,topk=32"]


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("sm90_mqa_gather runs natively only on compute capability 9.x")


def test_mqa_gather_matches_the_reference():
    assert_verify_statuses("sm90_mqa_gather", SHAPES, UNSUPPORTED)
