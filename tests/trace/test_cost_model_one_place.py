"""The B200 cost model is declared in one place: fmhactl/trace/cost_model.py. No other module of
the trace feature holds one of its distinctive numbers as a literal."""

import ast
from pathlib import Path

import fmhactl
from fmhactl.trace import cost_model as cm

ROOT = Path(fmhactl.__file__).parent
MODULES = [p for p in (ROOT / "trace").glob("*.py") if p.name != "cost_model.py"] + [ROOT / "cli" / "trace.py"]
# Generic arithmetic that may coincide with a table entry: 0, 1, 2 (2·M·N·K), 3 (round() digits,
# fewest tiles for a steady state), 4 (sub-partitions), 16-bit masks and unit conversions.
GENERIC = {0, 1, 2, 3, 4, 0xFFFF, 1e-9, 1e9, 1e12}


def _literals(path: Path) -> list[tuple[float, int]]:
    tree = ast.parse(path.read_text())
    return [(node.value, node.lineno) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)]


def test_every_entry_has_value_unit_and_source():
    assert cm.B200, "empty cost table"
    for name, cost in cm.B200.items():
        assert cost.value > 0 and cost.unit and len(cost.source) > 10, name
    for key in ("clock_ghz", "tensor_f16_flop_per_clk_sm", "tmem_bytes_per_clk_smsp", "tma_bytes_per_clk_sm",
                "hbm_bytes_per_clk_sm", "mufu_ex2_per_clk_sm", "fma_f32_per_clk_sm", "mbarrier_latency_clk"):
        assert key in cm.B200, key


def test_no_other_module_holds_a_cost_number():
    numbers = {c.value for c in cm.B200.values()} - GENERIC
    offenders = [f"{p.name}:{line} holds {value}" for p in MODULES for value, line in _literals(p)
                 if value in numbers]
    assert not offenders, offenders


def test_the_scan_would_catch_a_stray_number(tmp_path):
    stray = tmp_path / "stray.py"
    stray.write_text(f"CLOCK = {cm.value('clock_ghz')}\n")
    numbers = {c.value for c in cm.B200.values()} - GENERIC
    assert any(v in numbers for v, _ in _literals(stray))
