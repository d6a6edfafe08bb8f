"""The generated wgmma wrappers (fmhactl/plans/wgmma_ops.py; `python -m fmhactl.plans --check` keeps
kernels/common/wgmma_ops.cuh current) cover every shape the SM90 plan can ask for."""

from fmhactl.plans import sm90, wgmma_ops


def test_every_plan_shape_has_a_wrapper():
    text = wgmma_ops.render()
    for block_n in sm90.BLOCK_N_CHOICES:  # QK^T: SS wgmma with N = the KV tile
        assert f"void wgmma_ss_n{block_n}_bf16(" in text and f"struct WgmmaSS<{block_n}, true>" in text
    for d in sm90.HEAD_DIMS:  # PV: RS wgmma with N = the head dim
        assert f"void wgmma_rs_n{d}_f16(" in text and f"struct WgmmaRS<{d}, false>" in text
    assert set(sm90.DEFAULT_BLOCK_N.values()) <= set(sm90.BLOCK_N_CHOICES)
    assert "m64n192k16.f32.bf16.bf16" in text and "m64n256k16" in text
