"""On a Hopper GPU: sm90_mqa_decode against the reference (O and LSE, outputs poisoned before the
launch, bshd/bhsd layouts alternating), hd512 with K = V: DeepSeek-V4's decode (top-k 512 and the
causal 128-key window over 32k keys, sinks), split-K shapes (8 splits, 2 head chunks x splits,
empty and short splits, out-of-range and padded entries), unsplit grids, groups smaller than the
64-row M (idle rows), several tokens per step, f16, and configs it must refuse."""

import pytest

from tests.sm90.gpu_verify import assert_verify_statuses

pytestmark = pytest.mark.gpu

SHAPES = [
    # dsv4-long's decode rows (split: 8 CTAs of 64 entries; window: 2 splits)
    "b=1,h=64,hkv=1,t=1,s=32768,d=512,topk=512,kvshared,sink",
    "b=4,h=128,hkv=1,t=1,s=32768,d=512,topk=512,kvshared,sink",              # 2 head chunks x 8 splits
    "b=1,h=64,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink",
    "b=4,h=128,hkv=1,t=1,s=32768,d=512,causal,wl=127,kvshared,sink",
    # the bench's b64 shape (2 splits of 256 entries), smaller S
    "b=64,h=64,hkv=1,t=1,s=4096,d=512,topk=512,kvshared,sink",
    # unsplit: >= 132 CTAs, each over its whole list (16 blocks, 4 ring wraps)
    "b=140,h=64,hkv=1,t=1,s=2048,d=512,topk=512,kvshared,sink",
    "b=1,h=64,hkv=1,t=140,s=2048,d=512,causal,wl=127,kvshared,sink",         # 140 tokens, a window each
    # lists: out-of-range and -1 entries, duplicates, longer than one split, with causal + window
    "b=1,h=64,hkv=1,t=1,s=300,d=512,topk=600,kvshared,sink",
    "b=3,h=64,hkv=1,t=2,s=4096,d=512,topk=512,causal,wl=127,kvshared,sink",  # empty/short splits
    "b=2,h=64,hkv=1,t=16,s=4096,d=512,topk=2048,causal,kvshared,sink",       # 16 tokens (MTP), 2048 entries
    # idle rows (group 8 and 24: one chunk of 64 rows with 8 / 24 valid), GQA with 2 KV heads
    "b=1,h=8,hkv=1,t=4,s=700,d=512,causal,kvshared,sink",
    "b=2,h=48,hkv=2,t=1,s=3000,d=512,topk=300,kvshared",
    # dense range split in whole blocks (many splits), f16, no sink
    "b=2,h=64,hkv=1,t=1,s=5000,d=512,causal,wl=1000,kvshared",
    "b=2,h=64,hkv=1,t=1,s=32768,d=512,topk=512,kvshared,dtype=f16,sink",
    "b=1,h=64,hkv=1,t=3,s=40,d=512,kvshared",                                # fewer keys than one block
]
UNSUPPORTED = [
    "b=1,h=64,hkv=1,t=1,s=4096,d=512,topk=512,sink",   # K and V apart
    "b=1,h=64,hkv=1,t=1,s=4096,d=256,topk=512,kvshared",
]


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if not torch.cuda.is_available() or torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("sm90_mqa_decode runs natively only on compute capability 9.x")


def test_mqa_decode_matches_the_reference():
    assert_verify_statuses("sm90_mqa_decode", SHAPES, UNSUPPORTED)
