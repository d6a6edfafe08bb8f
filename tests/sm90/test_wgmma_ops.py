"""The generated wgmma wrappers are current: the committed header equals the generator's output."""

import importlib.util

from fmhactl import paths


def test_generated_header_is_current():
    script = paths.project_root() / "scripts" / "gen_wgmma_ops.py"
    spec = importlib.util.spec_from_file_location("gen_wgmma_ops", script)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = (paths.kernels_dir() / "common" / "wgmma_ops.cuh").read_text()
    assert committed == gen.render(), "run: python scripts/gen_wgmma_ops.py"
    # Every KV tile / head dim the launcher can ask for has a wrapper.
    from fmhactl.plans.launch import SM90_DEFAULT_BLOCK_N, SM90_HEAD_DIMS

    assert set(SM90_DEFAULT_BLOCK_N.values()) <= set(gen.SS_N)
    assert set(SM90_HEAD_DIMS) <= set(gen.RS_N)
