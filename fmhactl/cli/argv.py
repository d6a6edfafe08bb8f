"""`--ray [ADDRESS]`: an option whose value may be left out (typer has no such option). No imports: it runs
before every command."""

from __future__ import annotations

_OPTIONAL_VALUE = {"--ray": "local"}


def optional_option_values(argv: list[str]) -> list[str]:
    """Let `--ray` stand alone: `--ray` followed by nothing, an option, or a word that is no address
    means a local cluster (`--ray=ADDRESS` and `--ray ADDRESS` with host:port, ray://, auto pass)."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        out.append(arg)
        if arg in _OPTIONAL_VALUE:
            nxt = argv[i + 1] if i + 1 < len(argv) else None
            if nxt is None or nxt.startswith("-") or not _looks_like_address(nxt):
                out.append(_OPTIONAL_VALUE[arg])
    return out


def _looks_like_address(word: str) -> bool:
    return word in ("auto", "local") or ":" in word or word.startswith("ray://")
