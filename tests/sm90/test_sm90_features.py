"""The SM90 feature switches (docs/features.md): which variants build window, sinks and K = V, and
which configs the registry sends to them or reports UNSUPPORTED (why), without a GPU."""

from fmhactl.config import parse_shape
from fmhactl.registry import load_registry

SWITCH_OF = {"window": "FMHA_WINDOW", "sink": "FMHA_SINK", "kv_shared": "FMHA_KV_SHARED", "key_ranges": "FMHA_KEY_RANGES"}
REGISTRY = load_registry()
SM90 = [v for v in REGISTRY.values() if v.launcher == "sm90"]
MODEL_LAYER = "b=1,h=8,hkv=1,t=130,s=300,d={d},causal,wl=127,sink,kvshared"


def test_sm90_features_are_exactly_the_feature_switches():
    for variant in SM90:
        for feature, switch in SWITCH_OF.items():
            assert (feature in variant.features) == bool(variant.switches.get(switch, 0)), (variant.name, feature)


def test_the_fastest_variants_carry_every_dense_feature():
    """sm90_persistent_feat (sm90_persistent, the op's first choice at hd 64/128, with the switches
    on) and sm90_pingpong_feat (hd256) run the model's layer: a causal 128-key window, sinks and
    K = V at once."""
    for name, dims in (("sm90_persistent_feat", (64, 128)), ("sm90_pingpong_feat", (64, 128, 256)),
                       ("sm90_persistent_m192_feat", (64,))):
        for d in dims:
            assert REGISTRY[name].unsupported_reason(parse_shape(MODEL_LAYER.format(d=d))) is None, (name, d)


def test_what_stays_unsupported_says_why():
    layer = parse_shape(MODEL_LAYER.format(d=128))
    for plain in ("sm90_pipelined", "sm90_persistent", "sm90_pingpong"):
        assert "feature window, sink, kv_shared not supported" in REGISTRY[plain].unsupported_reason(layer)
    assert "head_dim 256" in REGISTRY["sm90_persistent_feat"].unsupported_reason(parse_shape(MODEL_LAYER.format(d=256)))
    hd512 = parse_shape(MODEL_LAYER.format(d=512))
    assert "head_dim 512 not supported" in REGISTRY["sm90_pingpong_feat"].unsupported_reason(hd512)
    for name, d in (("sm90_persistent_feat", 128), ("sm90_pingpong_feat", 128), ("sm90_persistent_m192_feat", 64)):
        topk = parse_shape(f"b=1,h=8,hkv=1,t=16,s=300,d={d},topk=32,sink")
        assert "feature topk not supported" in REGISTRY[name].unsupported_reason(topk)


def test_the_plain_variants_build_without_the_feature_switches():
    """The feature code stays out of the plain kernels (their speed is the milestones'): each
    *_feat variant is its plain namesake plus exactly the four feature switches."""
    for name in ("sm90_pingpong", "sm90_persistent", "sm90_persistent_m192"):
        plain, feat = REGISTRY[name], REGISTRY[name + "_feat"]
        assert not any(plain.switches.get(s, 0) for s in SWITCH_OF.values())
        assert feat.switches == {**plain.switches, **{s: 1 for s in SWITCH_OF.values()}}
        assert feat.head_dims == plain.head_dims and feat.source_path == plain.source_path
