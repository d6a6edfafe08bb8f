"""Launch geometry from formulas and hooks, and the params field mapping of a kernel with its own
struct: the ctypes block must have the C compiler's layout, filled from fmhactl's FmhaParams."""

from __future__ import annotations

import ctypes
import re
import shutil

import pytest

from fmhactl.config import AttnConfig
from fmhactl.errors import BadInput
from fmhactl.project import formula
from fmhactl.project.abi import adapt_params, params_struct, project_launch_shape
from fmhactl.runtime.params import FmhaParams

from tests.project.c_layout import assert_block_matches, compiler_layout
from tests.project.conftest import FIXTURE

CFG = AttnConfig(batch=3, heads=8, heads_kv=2, seq_q=300, seq_k=77, head_dim=96, causal=True)


def test_formulas_evaluate_over_config_and_switches():
    launch = {"grid": ["ceil_div(seq_q, BM)", "heads", "batch"], "block": [128, "2 if causal else 1"],
              "smem": "BM * head_dim_pow2 * 2 + (heads // heads_kv) * 4"}
    shape = project_launch_shape(launch, CFG, {"BM": 64})
    assert shape.grid == (5, 8, 3) and shape.block == (128, 2, 1) and shape.dynamic_smem == 64 * 128 * 2 + 16


def test_formula_errors_name_the_problem():
    with pytest.raises(formula.FormulaError, match="unknown name 'nope'"):
        formula.parse("nope + 1", frozenset({"a"}))
    with pytest.raises(formula.FormulaError, match="(List|Subscript) is not allowed"):
        formula.parse("[1, 2][0]", frozenset())
    with pytest.raises(BadInput, match="division by zero"):
        project_launch_shape({"grid": ["seq_q // BM"], "block": [1]}, CFG, {"BM": 0})
    with pytest.raises(BadInput, match=r"grid\[1\] = 0 is outside"):
        project_launch_shape({"grid": [1, "heads - 8"], "block": [1]}, CFG, {})


def test_hook_decides_what_a_formula_cannot(tmp_path):
    hook = tmp_path / "launch.py"
    hook.write_text("def launch(config, switches, sm_count):\n"
                    "    tiles = -(-config['seq_q'] // 128) * config['heads'] * config['batch']\n"
                    "    return {'grid': [min(tiles, sm_count)], 'block': [384], 'smem': 1024}\n")
    shape = project_launch_shape({"hook": str(hook)}, CFG, {}, sm_count=10)
    assert shape.grid == (10, 1, 1) and shape.block == (384, 1, 1) and shape.dynamic_smem == 1024
    hook.write_text("def launch(config, switches, sm_count):\n    return {'grid': [1]}\n")
    with pytest.raises(BadInput, match="must return a dict with grid, block"):
        project_launch_shape({"hook": str(hook)}, CFG, {})
    hook.write_text("def launch(config, switches, sm_count):\n    raise KeyError('x')\n")
    with pytest.raises(BadInput, match="launch\\(\\) raised KeyError"):
        project_launch_shape({"hook": str(hook)}, CFG, {})


def _fixture_fields() -> list[dict]:
    import tomllib

    return tomllib.loads((FIXTURE / "fmhactl.toml").read_text())["params"]["seeds"]["fields"]


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a host C compiler")
def test_params_layout_matches_the_c_struct(tmp_path):
    """offsetof of every field of the fixture's own FmhaParams, by the host C compiler, against ctypes."""
    header = (FIXTURE / "attention" / "fmha_heads.cuh").read_text()
    struct = re.search(r"struct FmhaParams \{.*?\n\};", header, re.S).group(0)
    fields = _fixture_fields()
    c_layout = compiler_layout(tmp_path, "cc", ".c", struct, "struct FmhaParams", [f["name"] for f in fields])
    block = params_struct(fields)
    assert_block_matches(c_layout, block, fields)


def test_params_are_filled_from_fmhactl_params():
    base = FmhaParams(q=0x1000, k=0x2000, v=0x3000, o=0x4000, lse=None, q_batch_stride=77, k_head_stride=0,
                      heads=8, heads_kv=2, seq_q=300, seq_k=77, scale_log2=0.5, causal=1)
    block = adapt_params(_fixture_fields(), base)
    assert (block.q_ptr, block.k_ptr, block.o_ptr, block.lse_ptr) == (0x1000, 0x2000, 0x4000, None)
    assert (block.n_h, block.kv_group, block.seq_kv, block.stride_q_b, block.stride_k_h) == (8, 4, 77, 77, 0)
    assert block.sm_scale_log2 == 0.5 and block.is_causal == 1


def test_fields_as_separate_kernel_arguments_and_c_type_spellings(tmp_path):
    from fmhactl.project.abi import adapt_arguments
    from fmhactl.project.files import ParamsLayout

    layout = ParamsLayout.model_validate({"pass_as": "arguments", "fields": [
        {"name": "q", "type": "void*", "value": "q"}, {"name": "n", "type": "int", "value": "seq_q"},
        {"name": "stride", "type": "int64_t", "value": "q_seq_stride"}, {"name": "scale", "type": "float",
                                                                          "value": "softmax_scale"}]})
    fields = [f.model_dump() for f in layout.fields]
    assert [f["type"] for f in fields] == ["ptr", "i32", "i64", "f32"]
    base = FmhaParams(q=0x10, seq_q=9, q_seq_stride=512, softmax_scale=0.25)
    args = adapt_arguments(fields, adapt_params(fields, base))
    assert [type(a) for a in args] == [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_float]
    assert [a.value for a in args] == [0x10, 9, 512, 0.25]
