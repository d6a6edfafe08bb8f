"""The one "A,B" parser (fmhactl.layout.common.parse_int_list) that the CLI and the TUI both use."""

from __future__ import annotations

import pytest

from fmhactl.layout.common import LayoutError, parse_int_list


@pytest.mark.parametrize("text, expected", [
    ("40,3", [40, 3]), (" 40 , 3 ", [40, 3]), ("40 3", [40, 3]), ("{0x10, 0b11}", [16, 3]), ("[1_000,2]", [1000, 2]),
])
def test_a_pair_in_every_accepted_spelling(text: str, expected: list[int]) -> None:
    assert parse_int_list(text, "--cell", count=2) == expected


@pytest.mark.parametrize("text, rule", [
    ("3", "write 2 integers"), ("1,2,3", "write 2 integers"), ("1,x", "'x' is not an integer"),
    ("1," * 150, "too long"),
])
def test_a_bad_pair_is_one_line_naming_the_option(text: str, rule: str) -> None:
    with pytest.raises(LayoutError, match=rule) as caught:
        parse_int_list(text, "--cell", count=2)
    assert str(caught.value).startswith("--cell") and "\n" not in str(caught.value)
    assert caught.value.code == 2


def test_a_list_is_capped_and_may_be_empty() -> None:
    assert parse_int_list("()", "--dims") == []
    assert parse_int_list("1,2,3,4,5", "--dims") == [1, 2, 3, 4, 5]
    with pytest.raises(LayoutError, match="17 entries; at most 16"):
        parse_int_list(",".join(["1"] * 17), "--dims")


def test_the_shells_share_it() -> None:
    """The CLI's --cell and the TUI's pair fields refuse the same text with the same line."""
    from fmhactl.cli.layout import _pair
    from fmhactl.tui.backend import parse_pair

    with pytest.raises(LayoutError) as cli:
        _pair("7", "--cell")
    with pytest.raises(LayoutError) as tui:
        parse_pair("7", "--cell")
    assert str(cli.value) == str(tui.value)
