"""Feature declarations: --shape fields, their bad values (exit 2 lines), the registry's feature
check, family.toml's features matching the SM100 feature switches, the host input checks."""

import pytest

from fmhactl.config import AttnConfig, parse_shape
from fmhactl.errors import BadInput
from fmhactl.registry import load_registry


def test_feature_fields_round_trip_through_shape_text_and_keep_old_keys():
    cfg = parse_shape("b=1,h=8,hkv=1,t=64,s=257,d=512,causal,wl=127,sink,topk=32,kvshared")
    assert cfg.features == ("window", "sink", "topk", "kv_shared")
    assert parse_shape(cfg.shape_text()) == cfg
    assert cfg.key == "b1h8kv1-t64s257-d512-bf16-causal-w127_-1-sink-topk32-kvs"
    assert parse_shape("b=1,h=2,t=4,s=8,d=64,causal").key == "b1h2-t4s8-d64-bf16-causal"  # unchanged
    assert parse_shape("d=64,sink=false,kvshared=0").features == ()


@pytest.mark.parametrize("text,words", [
    ("wl=-2", "window_left must be -1"),
    ("wr=x", "wr must be an integer"),
    ("causal,wr=4", "contradicts causal"),
    ("topk=-1", "topk must be an integer from 0"),
    ("topk=70000", "topk must be an integer from 0"),
    ("sink=maybe", "sink must be true or false"),
    ("kvshared=2", "kv_shared must be true or false"),
])
def test_bad_feature_values_are_one_line_bad_input(text, words):
    with pytest.raises(BadInput, match=words):
        parse_shape("d=64," + text)


def test_window_flops_count_the_visible_keys():
    cfg = parse_shape("b=1,h=1,t=4,s=4,d=1,causal,wl=1")
    assert cfg.flops == 4.0 * (1 + 2 + 2 + 2)


def test_variants_without_a_feature_report_it_unsupported():
    registry = load_registry()
    cfg = parse_shape("b=1,h=2,t=4,s=8,d=64,sink")
    assert "feature sink not supported" in registry["ref"].unsupported_reason(cfg)
    assert registry["sm100_tma_s2_tmem"].unsupported_reason(cfg) is None
    topk = parse_shape("b=1,h=2,t=4,s=8,d=64,topk=4")
    assert registry["sm100_tma_s2_tmem"].unsupported_reason(topk) is None
    assert "feature topk" in registry["sm100_tma_s2_smem"].unsupported_reason(topk)


SWITCH_OF = {"window": "FMHA_WINDOW", "sink": "FMHA_SINK", "kv_shared": "FMHA_KV_SHARED", "topk": "FMHA_TOPK",
             "key_ranges": "FMHA_KEY_RANGES"}


def test_sm100_features_are_exactly_the_feature_switches():
    for variant in load_registry().values():
        if variant.launcher != "sm100":
            continue
        for feature, switch in SWITCH_OF.items():
            assert (feature in variant.features) == bool(variant.switches.get(switch, 0)), (variant.name, feature)


def test_host_checks_refuse_nan_sinks_and_out_of_range_indices():
    torch = pytest.importorskip("torch")
    from fmhactl.runtime.features import check_sinks, check_topk

    check_sinks(torch.tensor([0.5, float("-inf")]), 2)
    with pytest.raises(BadInput, match=r"sinks\[1\] is nan"):
        check_sinks(torch.tensor([0.5, float("nan")]), 2)
    with pytest.raises(BadInput, match=r"sinks\[0\] is inf"):
        check_sinks(torch.tensor([float("inf"), 0.0]), 2)
    with pytest.raises(BadInput, match="float32 of shape"):
        check_sinks(torch.zeros(3), 2)
    cfg = AttnConfig(batch=1, heads=2, heads_kv=1, seq_q=2, seq_k=5, head_dim=8, topk=3)
    check_topk(torch.tensor([[[[0, 4, -1]], [[-1, -1, -1]]]], dtype=torch.int32), cfg)
    with pytest.raises(BadInput, match=r"topk_idx\[0,1,0,2\] = 5"):
        check_topk(torch.tensor([[[[0, 4, -1]], [[-1, -1, 5]]]], dtype=torch.int32), cfg)
    with pytest.raises(BadInput, match="= -2"):
        check_topk(torch.tensor([[[[-2, 4, -1]], [[-1, -1, 1]]]], dtype=torch.int32), cfg)
    with pytest.raises(BadInput, match="int32 of shape"):
        check_topk(torch.zeros(1, 2, 1, 3, dtype=torch.int64), cfg)


def test_grids_dsv4_load_and_dsv4_has_every_feature():
    from fmhactl.verify.grids import load_grid

    configs = load_grid("dsv4").configs
    seen = {name for cfg in configs for name in cfg.features}
    assert seen == {"window", "sink", "topk", "kv_shared"}
    assert {cfg.head_dim for cfg in configs} == {64, 128, 256, 512}
    assert any(cfg.window_left == 0 and cfg.window_right == 0 for cfg in configs)
    long = load_grid("dsv4-long").configs
    assert all(cfg.head_dim == 512 and cfg.heads_kv == 1 and cfg.kv_shared for cfg in long)
    assert any(cfg.seq_q == 1 and cfg.seq_k == 32768 and cfg.topk == 512 for cfg in long)


def test_a_plain_config_dict_has_no_feature_fields():
    assert set(parse_shape("d=64,causal").to_dict()) == {"batch", "heads", "heads_kv", "seq_q", "seq_k", "head_dim",
                                                         "dtype", "causal"}
    cfg = parse_shape("d=64,wl=3,sink")
    assert AttnConfig.from_dict(cfg.to_dict()) == cfg


def test_layout_plan_names_what_each_feature_does_to_smem():
    from fmhactl.services.layout_plan import sm100_plan

    lines = sm100_plan("sm100_tma_s2_tmem", 512).lines
    assert any(line.startswith("features: window, sink, topk, kv_shared") for line in lines)
    assert any(line.startswith("  topk") and "query heads of one token" in line and "K 32768 B + V 16384 B" in line
               for line in lines)
    assert any("kv_shared" in line and "V stages (2 x 16384 B) stay idle" in line for line in lines)
    assert not any(line.startswith("features:") for line in sm100_plan("sm100_tma_tmem", 512).lines)


def test_key_ranges_flag_grid_and_drawn_ranges():
    """`kvr` (per-batch key ranges): round trip, the `padded` grid, SM100 refusing it, and the drawn
    ranges' fixed rule (row 0 all keys, row 1 none, the rest inside [0, seq_k])."""
    import torch

    from fmhactl.runtime.features import check_key_ranges, make_feature_inputs
    from fmhactl.verify.grids import load_grid

    cfg = parse_shape("b=5,h=4,hkv=2,t=77,s=333,d=64,causal,kvr")
    assert cfg.key_ranges and cfg.features == ("key_ranges",) and cfg.key.endswith("-kvr")
    assert parse_shape(cfg.shape_text()) == cfg and AttnConfig.from_dict(cfg.to_dict()) == cfg
    assert "key_ranges" not in parse_shape("b=5,t=77,s=333").to_dict()
    ranges = make_feature_inputs(cfg, 11, device="cpu").key_ranges
    assert ranges.dtype == torch.int32 and ranges.shape == (5, 2)
    assert ranges[0].tolist() == [0, 333] and ranges[1, 0] == ranges[1, 1]
    check_key_ranges(ranges, 5, 333)
    assert torch.equal(ranges, make_feature_inputs(cfg, 11, device="cpu").key_ranges)  # the seed's
    grid = load_grid("padded").configs
    assert all(c.key_ranges for c in grid) and {c.head_dim for c in grid} == {64, 128, 256}
    assert {(c.causal, c.seq_q == c.seq_k) for c in grid} == {(True, True), (True, False), (False, True),
                                                              (False, False)}
    reg = load_registry()
    for name, variant in reg.items():
        if variant.launcher == "sm100":
            assert "feature key_ranges not supported" in variant.unsupported_reason(cfg), name
    for bad in (torch.tensor([[0, 334]] * 5, dtype=torch.int32), torch.zeros(5, 2, dtype=torch.int64)):
        with pytest.raises(BadInput, match="key_ranges"):
            check_key_ranges(bad, 5, 333)


def test_flops_in_ranges_counts_only_the_pairs_a_row_sees():
    from fmhactl.config import parse_shape

    dense = parse_shape("b=2,h=3,t=4,s=10,d=8")
    assert dense.flops_in_ranges([(0, 10), (0, 10)]) == dense.flops
    assert dense.flops_in_ranges([(3, 5), (0, 0)]) == 4.0 * 3 * 8 * (4 * 2)  # one row: 2 keys for 4 queries
    causal = parse_shape("b=1,h=1,t=4,s=4,d=8,causal")
    # query i sees keys 0..i; cut to [2, 4): queries 2 and 3 see 1 and 2 keys
    assert causal.flops_in_ranges([(2, 4)]) == 4.0 * 8 * 3
    assert causal.flops_in_ranges([(0, 4)]) == causal.flops
