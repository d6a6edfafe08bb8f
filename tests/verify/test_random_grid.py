"""`fmhactl verify --random N`: the draw is reproducible from its seed, stays inside what each
variant declares and runs, reaches the corners grids tend to leave out, and sizes an emulated
variant's draws for emulation."""

from __future__ import annotations

import pytest

from fmhactl.config import UNBOUNDED
from fmhactl.errors import BadInput
from fmhactl.registry import Variant, load_registry
from fmhactl.verify import random_grid
from fmhactl.verify.random_grid import EMULATED, NATIVE, random_configs


@pytest.fixture(scope="module")
def registry() -> dict[str, Variant]:
    return load_registry()


def test_the_seed_replays_the_draw_and_another_seed_draws_others(registry):
    chosen = [registry["sm90_pingpong_feat"], registry["sm100_tma_s2_tmem"]]
    first = random_configs(chosen, 40, seed=11)
    assert random_configs(chosen, 40, seed=11) == first
    assert random_configs(chosen, 40, seed=12) != first
    assert len(first) == len(set(first)) == 40


@pytest.mark.parametrize("name", ["ref", "sm100_tma_s2_tmem", "sm100_tma_s2_smem", "sm90_pingpong_feat",
                                  "sm90_persistent_m192_feat", "sm90_mqa_gather", "sm90_mqa_decode",
                                  "sm90_persistent"])
def test_every_draw_is_one_the_variant_runs_within_its_size_limits(registry, name):
    variant = registry[name]
    limits = random_grid.limits_for(variant)
    for cfg in random_configs([variant], 60, seed=3):
        assert variant.unsupported_reason(cfg) is None, cfg.key
        assert max(cfg.seq_q, cfg.seq_k) <= limits.max_seq and cfg.batch <= limits.max_batch, cfg.key
        assert cfg.max_tensor_elements <= limits.max_operand_elements, cfg.key


def test_several_variants_take_turns(registry):
    pingpong, m192 = registry["sm90_pingpong"], registry["sm90_persistent_m192"]
    drawn = random_configs([pingpong, m192], 20, seed=5)
    assert all(m192.unsupported_reason(cfg) is None for cfg in drawn[1::2])
    assert any(cfg.head_dim != 64 for cfg in drawn[0::2])  # pingpong's own draws use its other head dims


def test_an_emulated_variant_draws_small_and_a_native_one_larger(registry):
    assert random_grid.limits_for(registry["sm100_tma_s2_tmem"]) is EMULATED
    assert random_grid.limits_for(registry["sm90_pingpong"]) is NATIVE
    assert random_grid.limits_for(registry["ref"]) is NATIVE
    native = random_configs([registry["sm90_pingpong"]], 200, seed=1)
    assert max(max(c.seq_q, c.seq_k) for c in native) > EMULATED.max_seq


def test_the_draw_reaches_the_corners(registry):
    """Over a few hundred draws of the feature-complete SM100 variant: every declared feature,
    windows of 0 and wider than the sequence, T > S, decode rows, head dims off the usual four,
    GQA and MQA, both dtypes."""
    drawn = random_configs([registry["sm100_tma_s2_tmem"]], 400, seed=7)
    assert {"window", "sink", "topk", "kv_shared"} <= {name for c in drawn for name in c.features}
    assert any(c.window_left == 0 for c in drawn)
    assert any(c.window_left > c.seq_k for c in drawn)
    assert any(c.window_right not in (UNBOUNDED, 0) for c in drawn)
    assert any(c.topk > c.seq_k for c in drawn) and any(c.topk == 1 for c in drawn)
    assert any(c.seq_q > c.seq_k for c in drawn) and any(c.seq_q == 1 for c in drawn)
    assert any(c.head_dim not in (64, 128, 256, 512) for c in drawn)
    assert any(c.heads_kv == 1 < c.heads for c in drawn) and any(1 < c.heads_kv < c.heads for c in drawn)
    assert {c.dtype for c in drawn} == {"bf16", "f16"}
    assert any(c.causal for c in drawn) and not all(c.causal for c in drawn)


def test_key_ranges_are_drawn_only_for_variants_that_declare_them(registry):
    assert any(c.key_ranges for c in random_configs([registry["sm90_pingpong_feat"]], 100, seed=2))
    assert not any(c.key_ranges or c.features for c in random_configs([registry["sm90_pingpong"]], 100, seed=2))


class _RunsNothing(Variant):
    def unsupported_reason(self, cfg):
        return "this kernel runs nothing"


def test_a_variant_that_runs_none_of_its_declared_space_is_bad_input(registry):
    base = registry["ref"]
    nothing = _RunsNothing(name="nothing", description="", source=base.source, archs=base.archs,
                           launcher=base.launcher, kernel=base.kernel)
    with pytest.raises(BadInput, match="nothing accepted none of .*this kernel runs nothing"):
        random_configs([nothing], 3, seed=0)


@pytest.mark.parametrize("count", [0, -1, 5001, True, 2.5])
def test_a_count_outside_the_range_is_bad_input(registry, count):
    with pytest.raises(BadInput, match="--random"):
        random_configs([registry["ref"]], count, seed=0)
