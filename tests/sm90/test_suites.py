"""Named bench suites and the SM90 launch plan (pure Python, no GPU)."""

import pytest
from typer.testing import CliRunner

from fmhactl.bench.suites import available, load_suite
from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.registry import load_registry
from fmhactl.plans.launch import MAX_DYNAMIC_SMEM, sm90_launch, sm90_plan


def test_sm90_suite_has_the_issue_shapes():
    suite = load_suite("sm90")
    keys = {c.key for c in suite.configs}
    assert "b8h16-t4096s4096-d128-bf16" in keys
    assert "b8h16-t4096s4096-d128-bf16-causal" in keys
    assert "b8h32kv8-t4096s4096-d128-bf16" in keys
    assert "b64h16-t1s4096-d128-bf16" in keys
    assert "b8h8-t4096s4096-d256-bf16" in keys
    assert "sm90" in available()


def test_unknown_suite_is_bad_input():
    with pytest.raises(BadInput, match="unknown bench suite"):
        load_suite("no-such-suite")


def test_bench_cli_rejects_unknown_suite_with_exit_2():
    from fmhactl.cli.app import app

    result = CliRunner().invoke(app, ["bench", "sm90_pipelined", "--suite", "no-such-suite"])
    assert result.exit_code == 2


def test_bench_cli_needs_a_shape_or_suite():
    from fmhactl.cli.app import app

    result = CliRunner().invoke(app, ["bench", "sm90_pipelined"])
    assert result.exit_code == 2


@pytest.mark.parametrize("variant", [v for v in load_registry().values() if v.launcher == "sm90"],
                         ids=lambda v: v.name)
@pytest.mark.parametrize("d", [64, 128, 256])
def test_every_sm90_plan_fits(variant, d):
    cfg = AttnConfig(batch=2, heads=4, seq_q=300, seq_k=500, head_dim=d)
    if d not in variant.head_dims:
        assert "head_dim" in variant.unsupported_reason(cfg)
        return
    plan = sm90_plan(cfg, variant.switches)
    assert plan.smem_bytes <= MAX_DYNAMIC_SMEM
    assert variant.unsupported_reason(cfg) is None
    shape = sm90_launch(cfg, variant.switches)
    assert shape.block == (128 * (1 + plan.consumers), 1, 1)  # a producer WG + the consumer WGs
    m_tiles = -(-300 // plan.block_m)
    if plan.persistent:  # one CTA per SM over a 1-D grid; 3 (192-row tiles: 2) x 4 x 2 tiles
        assert shape.grid == (m_tiles * 8, 1, 1)
        assert sm90_launch(cfg, variant.switches, sm_count=132).grid == (m_tiles * 8, 1, 1)
        assert sm90_launch(cfg, variant.switches, sm_count=10).grid == (10, 1, 1)
    else:
        assert shape.grid == (3, 4, 2)
        assert sm90_launch(cfg, variant.switches, sm_count=10).grid == (3, 4, 2)


def test_sm90_rejects_other_head_dims():
    v = load_registry()["sm90_pingpong"]
    assert "head_dim" in v.unsupported_reason(AttnConfig(head_dim=96))
