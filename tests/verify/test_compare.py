"""The reference and the pass rule, on the CPU, against a naive loop written here."""

import math

import pytest

torch = pytest.importorskip("torch")

from fmhactl.verify.compare import POISON_16, POISON_32, compare, error_map  # noqa: E402
from fmhactl.verify.reference import attention  # noqa: E402


def naive(q, k, v, causal):
    """Row by row, key by key, in float64: no matmul, no masked_fill."""
    b_, t_, h_, d_ = q.shape
    s_, hkv = k.shape[1], k.shape[2]
    out = torch.zeros(b_, t_, h_, d_, dtype=torch.float64)
    lse = torch.full((b_, h_, t_), float("-inf"), dtype=torch.float64)
    for b in range(b_):
        for h in range(h_):
            g = h // (h_ // hkv)
            for i in range(t_):
                keys = [j for j in range(s_) if not causal or j <= i + s_ - t_]
                if not keys:
                    continue
                scores = [float(q[b, i, h].double() @ k[b, j, g].double()) / math.sqrt(d_) for j in keys]
                top = max(scores)
                weights = [math.exp(s - top) for s in scores]
                total = sum(weights)
                lse[b, h, i] = top + math.log(total)
                for w, j in zip(weights, keys):
                    out[b, i, h] += w / total * v[b, j, g].double()
    return out, lse


@pytest.mark.parametrize("causal, t, s", [(False, 5, 7), (True, 5, 7), (True, 6, 3)])
def test_reference_matches_a_naive_loop_with_gqa(causal, t, s):
    gen = torch.Generator().manual_seed(t * 100 + s)
    q = torch.randn(2, t, 4, 8, generator=gen).bfloat16()
    k = torch.randn(2, s, 2, 8, generator=gen).bfloat16()
    v = torch.randn(2, s, 2, 8, generator=gen).bfloat16()
    out, lse = attention(q, k, v, causal=causal, compute_dtype=torch.float64)
    want_out, want_lse = naive(q, k, v, causal)
    assert torch.allclose(out, want_out, atol=1e-12)
    assert torch.equal(torch.isneginf(lse), torch.isneginf(want_lse))
    finite = torch.isfinite(want_lse)
    assert torch.allclose(lse[finite], want_lse[finite], atol=1e-12)
    if causal and t > s:  # bottom-right: the first t - s rows see nothing
        assert torch.all(out[:, : t - s] == 0) and torch.all(torch.isneginf(lse[:, :, : t - s]))


def _case(seed=0, t=33, s=40, causal=False):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(1, t, 2, 16, generator=gen).bfloat16()
    k = torch.randn(1, s, 2, 16, generator=gen).bfloat16()
    v = torch.randn(1, s, 2, 16, generator=gen).bfloat16()
    ref32, lse32 = attention(q, k, v, causal=causal, compute_dtype=torch.float32)
    low, _ = attention(q, k, v, causal=causal, compute_dtype=torch.bfloat16)
    _, lse64 = attention(q, k, v, causal=causal, compute_dtype=torch.float64)
    return ref32, low, lse32, lse64


def test_a_correct_output_passes():
    ref32, low, lse32, lse64 = _case()
    result = compare(ref32.bfloat16(), lse32.clone(), ref32, low, lse64, lse32, block_m=16)
    assert result.passed, result.reasons
    assert result.cosine > 0.9999 and result.unwritten == 0


def test_an_unwritten_element_fails_and_is_located():
    ref32, low, lse32, lse64 = _case()
    out = ref32.bfloat16()
    out.view(torch.int16)[0, 20, 1, 5] = POISON_16
    result = compare(out, lse32.clone(), ref32, low, lse64, lse32, block_m=16)
    assert not result.passed and result.unwritten == 1
    assert "never written" in result.reasons[0]
    assert "rows 20" in result.error_map and "query tiles 1" in result.error_map


def test_a_wrong_row_block_fails_with_an_error_map():
    ref32, low, lse32, lse64 = _case()
    out = ref32.clone()
    out[:, 32:] += 0.25  # the seeds' symptom: rows past 31 are wrong
    result = compare(out.bfloat16(), lse32.clone(), ref32, low, lse64, lse32, block_m=16)
    assert not result.passed and result.max_err_at[2] == 32
    assert result.error_map.split(": ", 1)[1].startswith("rows 32")


def test_lse_poison_and_error_are_caught_and_a_nan_in_o_too():
    ref32, low, lse32, lse64 = _case()
    lse = lse32.clone()
    lse.view(torch.int32)[0, 0, 3] = POISON_32
    result = compare(ref32.bfloat16(), lse, ref32, low, lse64, lse32)
    assert not result.passed and result.lse_unwritten == 1 and result.lse_inf_mismatch == 0
    lse = lse32.clone() + 0.01
    assert not compare(ref32.bfloat16(), lse, ref32, low, lse64, lse32).passed
    out = ref32.bfloat16()
    out[0, 0, 0, 0] = float("nan")
    bad = compare(out, lse32.clone(), ref32, low, lse64, lse32)
    assert not bad.passed and bad.nan_mismatch == 1


@pytest.mark.parametrize("value, shown", [(float("nan"), "NaN"), (float("inf"), "+inf"), (float("-inf"), "-inf")])
def test_a_non_finite_lse_where_the_reference_is_finite_fails_naming_the_row(value, shown):
    ref32, low, lse32, lse64 = _case()
    lse = lse32.clone()
    lse[0, 1, 7] = value
    result = compare(ref32.bfloat16(), lse, ref32, low, lse64, lse32)
    assert not result.passed and result.lse_inf_mismatch == 1
    assert result.lse_bad_rows == [[0, 1, 7]]
    assert any("where the reference is finite" in r and f"(b=0, h=1, t=7) {shown}" in r for r in result.reasons)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_whole_lse_row_of_nan_or_inf_fails(value):
    ref32, low, lse32, lse64 = _case()
    lse = lse32.clone()
    lse[0, 0, :] = value
    result = compare(ref32.bfloat16(), lse, ref32, low, lse64, lse32)
    assert not result.passed and result.lse_inf_mismatch == lse.shape[2]
    assert "and 29 more" in " ".join(result.reasons)


def test_a_masked_row_passes_with_minus_inf_and_fails_with_anything_else():
    # causal with t > s, bottom-right aligned: the first t - s query rows see no key (LSE -inf)
    ref32, low, lse32, lse64 = _case(seed=5, t=6, s=3, causal=True)
    assert bool(torch.isneginf(lse64[0, 1, 0]))
    assert compare(ref32.bfloat16(), lse32.clone(), ref32, low, lse64, lse32).passed
    for value, shown in ((0.0, "finite"), (float("nan"), "NaN"), (float("inf"), "+inf")):
        lse = lse32.clone()
        lse[0, 1, 2] = value
        result = compare(ref32.bfloat16(), lse, ref32, low, lse64, lse32)
        assert not result.passed, value
        assert any("-inf (fully masked row)" in r and f"(b=0, h=1, t=2) {shown}" in r for r in result.reasons)


def test_error_map_compresses_ranges():
    bad = torch.zeros(2, 64, 3, 8, dtype=torch.bool)
    bad[1, 32:64, 2, 0:4] = True
    text = error_map(bad, 32)
    assert "rows 32-63" in text and "query tiles 1" in text and "head-dim cols 0-3" in text
    assert "heads 2" in text and "batches 1" in text
    quarters = error_map(bad[:, :, :, :], 128, 32, lane_quarters=True)
    assert "softmax warps 1 = TMEM lane quarters 1" in quarters
