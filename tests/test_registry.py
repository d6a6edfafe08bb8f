import pytest

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import get_variant, load_registry


def test_family_loads_and_ref_is_portable():
    registry = load_registry()
    ref = registry["ref"]
    assert {"sm_90a", "sm_100a"} <= set(ref.archs)
    assert ref.source_path.is_file()
    assert ref.entry("bf16", 128) == "fmha_ref_bf16"


def test_unsupported_reasons_name_the_limit():
    ref = get_variant("ref")
    assert ref.unsupported_reason(AttnConfig(head_dim=128)) is None
    assert "head_dim 1024" in ref.unsupported_reason(AttnConfig(head_dim=1024))
    assert "head_dim 100" in ref.unsupported_reason(AttnConfig(head_dim=100))


def test_unknown_variant_lists_known_ones():
    with pytest.raises(BadInput, match="unknown variant 'nope'.*ref"):
        get_variant("nope")


def test_malformed_registry_is_bad_input(tmp_path):
    bad = tmp_path / "family.toml"
    bad.write_text("[[variant]\nname = 'x'")
    with pytest.raises(BadInput, match="malformed TOML"):
        load_registry(bad)
    bad.write_text("[[variant]]\nname = 'x'\n")
    with pytest.raises(BadInput, match="lacks field"):
        load_registry(bad)
    bad.write_text("[[variant]]\nname='x'\nsource='a.cu'\narchs=['sm_75']\nlauncher='ref'\nkernel='k'\n")
    with pytest.raises(BadInput, match="unknown arch"):
        load_registry(bad)
