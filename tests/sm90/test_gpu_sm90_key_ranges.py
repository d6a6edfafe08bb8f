"""On a Hopper GPU: the SM90 feature kernels with per-batch key ranges (a padded batch in one
launch, docs/features.md) against the reference, O and LSE, over the `padded` grid: rows with all
keys, no key (O = 0, LSE = -inf), left and right padding, ranges crossing KV tiles, causal
bottom-right aligned to the whole tensors, hd 64/128/256, with the window on top; every output
element written. The SM100 family reports key ranges UNSUPPORTED."""

import pytest

from fmhactl.registry import get_variant
from fmhactl.verify.grids import load_grid
from tests.sm90.gpu_verify import assert_verify_statuses

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def _hopper_only():
    import torch

    if not torch.cuda.is_available() or torch.cuda.get_device_capability(0)[0] != 9:
        pytest.skip("the SM90 family runs natively only on compute capability 9.x")


@pytest.mark.parametrize("name, least", [("sm90_persistent_feat", 10), ("sm90_pingpong_feat", 10),
                                         ("sm90_persistent_m192_feat", 4)])
def test_sm90_feature_variant_passes_key_ranges(name, least):
    variant = get_variant(name)
    configs = load_grid("padded").configs
    shapes = [c.shape_text() for c in configs if variant.unsupported_reason(c) is None]
    assert len(shapes) >= least  # hd256 is sm90_pingpong_feat's only, hd64 sm90_persistent_m192_feat's only
    assert_verify_statuses(name, shapes, [c.shape_text() for c in configs if variant.unsupported_reason(c)])


def test_sm100_refuses_key_ranges():
    cfg = load_grid("padded").configs[0]
    assert "feature key_ranges not supported" in get_variant("sm100_tma_s2_tmem").unsupported_reason(cfg)
