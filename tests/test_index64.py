"""The per-variant indexing limit: kernels/family.toml's `index64`, Variant.unsupported_reason's
refusal past 2^31-1 elements for the others, the ceiling every kernel keeps, and the op's choice."""

from __future__ import annotations

import ctypes

import pytest

from fmhactl.config import INDEX32_MAX_ELEMENTS, MAX_TENSOR_ELEMENTS, AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import load_registry
from tests.test_registry import GOOD

# The variants whose global-memory arithmetic was audited 64-bit (docs/features.md "Tensors past
# 2^31 elements"); the SM100 family (emulated here) and the self-test kernels keep the 32-bit limit.
AUDITED = {"ref", "sm90_pipelined", "sm90_overlap", "sm90_pingpong", "sm90_pingpong_rescale0", "sm90_persistent",
           "sm90_persistent_m192", "sm90_persistent_m192_feat", "sm90_pingpong_feat",
           "sm90_persistent_feat", "sm90_mqa_gather", "sm90_mqa_decode"}

# DeepSeek-V4 decode at batch 128 over a 32k cache: K = 128 x 32768 x 1 x 512 = 2^31 elements.
DSV4_B128 = dict(batch=128, heads=64, heads_kv=1, seq_q=1, seq_k=32768, head_dim=512, causal=True, sink=True,
                 kv_shared=True)


def test_a_config_past_2_31_elements_is_valid_and_names_its_size():
    cfg = AttnConfig(**DSV4_B128, topk=512)
    assert cfg.max_tensor_elements == 2**31 > INDEX32_MAX_ELEMENTS
    assert AttnConfig(batch=2, heads=16, seq_q=4, seq_k=600000, head_dim=128).max_tensor_elements == 2 * 16 * 600000 * 128


def test_the_ceiling_every_kernel_keeps_is_one_bad_input_line():
    with pytest.raises(BadInput, match=r"exceeds 1099511627776 \(2\^40"):
        AttnConfig(batch=65536, heads=128, seq_q=4096, seq_k=4096, head_dim=128)
    assert MAX_TENSOR_ELEMENTS == 2**40
    with pytest.raises(BadInput, match="int32"):
        AttnConfig(seq_k=2**31)


def test_index64_is_declared_for_the_audited_variants_only():
    registry = load_registry()
    declared = {name for name, v in registry.items() if v.index64}
    assert declared == AUDITED
    assert not any(v.index64 for name, v in registry.items() if name.startswith("sm100"))


def test_a_32_bit_variant_refuses_past_2_31_with_the_rule_and_takes_up_to_it():
    registry = load_registry()
    sm100 = registry["sm100_tma_s2_tmem"]
    reason = sm100.unsupported_reason(AttnConfig(**DSV4_B128, topk=512))
    assert reason and "exceeds 2147483647 (32-bit indexing" in reason and str(2**31) in reason
    fits = AttnConfig(**{**DSV4_B128, "seq_k": 32767}, topk=512)
    assert fits.max_tensor_elements <= INDEX32_MAX_ELEMENTS
    assert sm100.index_reason(fits) is None


@pytest.mark.parametrize("name", sorted(AUDITED))
def test_an_index64_variant_takes_a_tensor_past_2_31(name):
    variant = load_registry()[name]
    dim = variant.head_dims[-1] if variant.head_dims else 128
    cfg = AttnConfig(batch=2, heads=16, heads_kv=16, seq_q=1, seq_k=2**31 // (16 * dim) + 64, head_dim=dim)
    assert cfg.max_tensor_elements > INDEX32_MAX_ELEMENTS
    assert variant.index_reason(cfg) is None
    reason = variant.unsupported_reason(cfg)
    assert reason is None or "32-bit" not in reason, reason


def test_index64_must_be_a_boolean_in_a_family_file(tmp_path):
    family = tmp_path / "family.toml"
    family.write_text(GOOD + 'index64 = "yes"\n')
    with pytest.raises(BadInput, match="index64"):
        load_registry(family)
    family.write_text(family.read_text().replace('"yes"', "true"))
    assert load_registry(family)["x"].index64 is True
    family.write_text(family.read_text().replace("index64 = true\n", ""))
    assert load_registry(family)["x"].index64 is False


def test_fmha_params_strides_are_64_bit():
    """The premise of every index64 audit: each offset multiplies a 64-bit stride of FmhaParams."""
    from fmhactl.runtime.params import FmhaParams

    strides = [(name, kind) for name, kind in FmhaParams._fields_ if name.endswith("_stride")]
    assert len(strides) == 12 and all(kind is ctypes.c_int64 or kind is ctypes.c_longlong for _, kind in strides)


def test_grid_limits_of_the_tile_grids():
    from fmhactl.plans.launch import MAX_SM90_TILES, limit_reason

    cfg = AttnConfig(batch=70000, heads=1, seq_q=1, seq_k=1, head_dim=64)
    assert "batch 70000 exceeds the grid's z limit" in limit_reason("ref", cfg, {})
    assert "batch 70000" in limit_reason("sm90", cfg, {"FMHA_BLOCK_M": 128})
    assert limit_reason("sm90", cfg, {"FMHA_BLOCK_M": 128, "FMHA_PERSISTENT": 1}) is None
    huge = AttnConfig(batch=65536, heads=65536, seq_q=1, seq_k=1, head_dim=64)
    assert f"exceed the persistent scheduler's int tile index ({MAX_SM90_TILES})" in limit_reason(
        "sm90", huge, {"FMHA_BLOCK_M": 128, "FMHA_PERSISTENT": 1})


def test_the_op_routes_dsv4_b128_to_a_64_bit_kernel_on_hopper_and_says_why_elsewhere():
    pytest.importorskip("torch")
    from fmhactl.torch import backends

    registry = load_registry()
    cfg = AttnConfig(**DSV4_B128, topk=512)
    assert backends.choose((9, 0), cfg, registry).variant == "sm90_mqa_decode"
    window = AttnConfig(**DSV4_B128, window_left=127)
    assert backends.choose((9, 0), window, registry).variant == "sm90_mqa_decode"
    prefill = AttnConfig(batch=2, heads=16, seq_q=4096, seq_k=540672, head_dim=128, causal=True)
    assert backends.choose((9, 0), prefill, registry).variant == "sm90_persistent"
    # Blackwell: the SM100 family indexes in 32 bits: a feature call falls back to torch and says why
    blackwell = backends.choose((10, 0), cfg, registry)
    assert blackwell.variant == "torch" and "32-bit indexing" in blackwell.reason


def test_the_decode_kernels_declare_index64():
    pytest.importorskip("torch")
    from fmhactl.torch import decode

    assert decode.variant().index64
