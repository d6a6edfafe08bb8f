import pytest

from fmhactl.errors import BadInput
from fmhactl.verify.grids import load_grid


def test_seed_grid_is_the_full_product():
    grid = load_grid("seeds72")
    assert len(grid.configs) == 4 * 4 * 4
    assert {c.head_dim for c in grid.configs} == {64, 128, 256, 512}
    assert {c.seq_q for c in grid.configs} == {1, 4, 32, 128}
    assert {c.seq_k for c in grid.configs} == {128, 256, 384, 512}


def test_awkward_grid_covers_the_edges():
    configs = load_grid("awkward").configs
    assert {1, 3, 113, 239, 799, 1023} <= {c.seq_k for c in configs}
    assert any(c.seq_q % 32 for c in configs)
    assert any(c.batch > 1 for c in configs) and any(c.heads > 1 for c in configs)
    assert any(c.heads == 4 * c.heads_kv for c in configs)
    assert any(c.heads_kv == 1 and c.heads > 1 for c in configs)
    assert any(c.causal and c.seq_q != c.seq_k for c in configs)
    assert any(c.causal and c.seq_q > c.seq_k for c in configs)


def test_malformed_grids_are_bad_input(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text("[[product]]\nseq_q = [1, 2]\nseq_k = 0\n")
    with pytest.raises(BadInput, match="seq_k must be a positive integer"):
        load_grid(str(path))
    path.write_text("name = 'x'\n")
    with pytest.raises(BadInput, match="at least one"):
        load_grid(str(path))
    path.write_text("[[product]]\nwarps = 3\n")
    with pytest.raises(BadInput, match="unknown config field"):
        load_grid(str(path))
    with pytest.raises(BadInput, match="unknown grid"):
        load_grid("no-such-grid")
