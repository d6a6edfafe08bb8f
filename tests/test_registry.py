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
    with pytest.raises(BadInput, match=r"variant\[0\]\.source: needs 'source'"):
        load_registry(bad)
    bad.write_text("[[variant]]\nname='x'\nsource='a.cu'\narchs=['sm_75']\nlauncher='ref'\nkernel='k'\n")
    with pytest.raises(BadInput, match=r"variant\[0\]\.archs\[0\]: Input should be 'sm_80'"):
        load_registry(bad)


GOOD = "[[variant]]\nname='x'\nsource='a.cu'\narchs=['sm_90a']\nlauncher='ref'\nkernel='k'\n"


@pytest.mark.parametrize("body, rule", [
    (GOOD + "head_dim_multiple = 0\n", r"variant\[0\]\.head_dim_multiple: Input should be greater than or equal to 1"),
    (GOOD + "switches = { FMHA_BLOCK_M = 0 }\n", r"switches\.FMHA_BLOCK_M sizes a tile or a ring: it must be an integer >= 1"),
    (GOOD + "switches = { FMHA_STAGES = -2 }\n", r"switches\.FMHA_STAGES"),
    (GOOD + "block_m = 0\n", r"variant\[0\]\.block_m: unknown field"),
    (GOOD + "max_head_dim = 0\n", r"max_head_dim: Input should be greater than or equal to 1"),
    (GOOD + GOOD, "variant 'x' defined twice"),
    ("", r"variant: needs 'variant'|needs 'variant'"),
    (b"\x00\xff\xfe binary" * 50, "is not UTF-8"),  # binary files: the path is named, never a UnicodeDecodeError
    (b"\x00" * 64, "malformed TOML"),
])
def test_registry_values_that_would_divide_by_zero_or_mislead_are_refused(tmp_path, body, rule):
    bad = tmp_path / "family.toml"
    bad.write_bytes(body if isinstance(body, bytes) else body.encode())
    with pytest.raises(BadInput, match=rule) as caught:
        load_registry(bad)
    assert str(bad) in str(caught.value)
