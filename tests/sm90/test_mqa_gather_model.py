"""sm90_mqa_gather's index math, checked on the CPU: a lane-level transcription of the kernel
(kernels/sm90/fmha_mqa_gather.cuh) in numpy, with ldmatrix (.trans) and mma.sync m16n8k16 modelled
as the PTX ISA defines their fragments, run on small configs and compared with the torch reference.

No GPU runs here: this checks what can go wrong on paper (swizzled SMEM addresses, fragment
positions of Q, K, V and P, the ring's stage slots, the partial-S exchange of the D-slice warps,
the compacted top-k list, the key range, the sink and LSE epilogue, heads/chunks/tiles), not the
hardware (asynchrony, barriers, registers). Values stay fp64 (P is not rounded to 16 bits), so the
comparison is tight. Keep it in step with the kernel: each block below names the lines it mirrors.
"""

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from fmhactl.config import parse_shape  # noqa: E402
from fmhactl.plans import sm90_gather  # noqa: E402
from fmhactl.plans.launch import launch_shape  # noqa: E402
from fmhactl.runtime.features import make_feature_inputs  # noqa: E402
from fmhactl.verify.reference import attention_for  # noqa: E402

L = np.arange(32)
G, Q4 = L // 4, L % 4


def swizzled(d, row, chunk):  # byte offset, as swizzled<D>
    return row * d * 2 + ((chunk ^ (row & 7)) << 4)


def ldmatrix_x4(smem, byte_addrs, trans=False):
    """(32 lanes, 4 regs, 2 halves): lanes 8i..8i+7 address the rows of matrix i; a lane gets
    row l/4, columns 2(l%4), +1 (trans: rows 2(l%4), +1 of column l/4)."""
    rows = smem[(np.asarray(byte_addrs) // 2)[:, None] + np.arange(8)]  # (32, 8): row r of matrix i = 8i + r
    out = np.empty((32, 4, 2))
    for i in range(4):
        if trans:
            out[:, i, 0], out[:, i, 1] = rows[8 * i + 2 * Q4, G], rows[8 * i + 2 * Q4 + 1, G]
        else:
            out[:, i, 0], out[:, i, 1] = rows[8 * i + G, 2 * Q4], rows[8 * i + G, 2 * Q4 + 1]
    return out


def mma(c, a, b0, b1):
    """c (32, 4) += A (16x16, from a (32, 4, 2)) @ B (16x8, from b0, b1 (32, 2))."""
    A, B = np.zeros((16, 16)), np.zeros((16, 8))
    for h in range(2):
        A[G, 2 * Q4 + h], A[G + 8, 2 * Q4 + h] = a[:, 0, h], a[:, 1, h]
        A[G, 2 * Q4 + 8 + h], A[G + 8, 2 * Q4 + 8 + h] = a[:, 2, h], a[:, 3, h]
        B[2 * Q4 + h, G], B[2 * Q4 + 8 + h, G] = b0[:, h], b1[:, h]
    C = A @ B
    c += np.stack([C[G, 2 * Q4], C[G, 2 * Q4 + 1], C[G + 8, 2 * Q4], C[G + 8, 2 * Q4 + 1]], axis=1)


def quad(x, op):
    return op(x.reshape(8, 4), axis=1).repeat(4)


def run_cta(cfg, threads, dyn_smem, bx, kvh, b, q, k, v, sinks, topk_idx, o, lse, scale_log2):
    d = cfg.head_dim
    bn = sm90_gather.BLOCK_N[d]
    cols, slices = sm90_gather.cols(d), sm90_gather.slices(d)
    row_bytes, chunks16 = d * 2, d // 8
    tiles = threads // (32 * slices)
    group = cfg.heads // cfg.heads_kv
    rows_cta = tiles * 16
    chunks = (group + rows_cta - 1) // rows_cta
    t, chunk = bx // chunks, bx % chunks
    head0 = kvh * group + chunk * rows_cta
    rows_valid = min(rows_cta, group - chunk * rows_cta)
    sparse = cfg.topk > 0
    # SMEM carve and stage count
    q_bytes = rows_cta * row_bytes
    x_bytes = tiles * slices * bn * 64 if slices > 1 else 0
    list_bytes = sm90_gather.LIST_BYTES if sparse else 0
    ring = q_bytes + x_bytes + list_bytes
    kv_bytes = bn * row_bytes
    stage_bytes = kv_bytes if cfg.kv_shared else 2 * kv_bytes
    stages = min(sm90_gather.MAX_STAGES, (dyn_smem - q_bytes - x_bytes - list_bytes) // stage_bytes)
    assert stages >= 2
    smem = np.full(dyn_smem // 2, np.nan)  # unwritten SMEM is poison: zero-fills must be real
    # key range
    diag = t + cfg.seq_k - cfg.seq_q
    lo, hi = 0, cfg.seq_k - 1
    if cfg.window_left >= 0:
        lo = max(lo, diag - cfg.window_left)
    right = 0 if cfg.causal else cfg.window_right
    if right >= 0:
        hi = min(hi, diag + right)
    range_count = hi - lo + 1 if hi >= lo else 0
    # Q
    for r in range(rows_cta):
        for c in range(chunks16):
            vals = q[b, t, head0 + r, 8 * c:8 * c + 8] if r < rows_valid else np.zeros(8)
            smem[swizzled(d, r, c) // 2 + np.arange(8)] = vals
    nwarps = threads // 32
    m = np.full((nwarps, 2, 32), -np.inf)
    lsum = np.zeros((nwarps, 2, 32))
    acc = np.zeros((nwarps, cols // 8, 32, 4))
    rounds = -(-cfg.topk // sm90_gather.LIST_CAP) if sparse else 1
    for rnd in range(rounds):
        count, keys = range_count, None
        if sparse:
            begin, end = rnd * sm90_gather.LIST_CAP, min(cfg.topk, (rnd + 1) * sm90_gather.LIST_CAP)
            entries = topk_idx[b, t, kvh, begin:end]
            keys = [int(e) for e in entries if lo <= e <= hi]
            count = len(keys)
        nblocks = -(-count // bn)

        def load_block(blk):
            if blk >= nblocks:
                return
            k_s = ring + (blk % stages) * stage_bytes
            v_s = k_s + kv_bytes
            for r in range(bn):
                n = blk * bn + r
                key = (keys[n] if sparse else lo + n) if n < count else -1
                for c in range(chunks16):
                    at = np.arange(8)
                    smem[(k_s + swizzled(d, r, c)) // 2 + at] = k[b, key, kvh, 8 * c:8 * c + 8] if key >= 0 else 0.0
                    if not cfg.kv_shared:
                        smem[(v_s + swizzled(d, r, c)) // 2 + at] = v[b, key, kvh, 8 * c:8 * c + 8] if key >= 0 else 0.0

        for s in range(stages - 1):
            load_block(s)
        for blk in range(nblocks):
            load_block(blk + stages - 1)
            k_s = ring + (blk % stages) * stage_bytes
            v_s = k_s if cfg.kv_shared else k_s + kv_bytes
            n_valid = min(bn, count - blk * bn)
            steps = cols // 16 if slices > 1 else d // 16
            scs = {}
            for warp in range(nwarps):
                tile, slice_ = warp // slices, warp % slices
                q_tile = tile * 16 * row_bytes
                kk0 = slice_ * steps if slices > 1 else 0
                sc = np.zeros((bn // 8, 32, 4))
                for i in range(steps):
                    kk = kk0 + i
                    a = ldmatrix_x4(smem, q_tile + swizzled(d, L % 16, 2 * kk + L // 16))
                    for np_ in range(bn // 16):
                        key_row = np_ * 16 + (L // 16) * 8 + L % 8
                        kb = ldmatrix_x4(smem, k_s + swizzled(d, key_row, 2 * kk + (L // 8) % 2))
                        mma(sc[2 * np_], a, kb[:, 0], kb[:, 1])
                        mma(sc[2 * np_ + 1], a, kb[:, 2], kb[:, 3])
                scs[warp] = sc
            if slices > 1:  # the exchange: float4 (slice * bn/8 + j) * 32 + lane of the tile's region
                exchange = np.full((tiles * slices * (bn // 8) * 32, 4), np.nan)
                for warp, sc in scs.items():
                    tile, slice_ = warp // slices, warp % slices
                    base = tile * slices * (bn // 8) * 32
                    for j in range(bn // 8):
                        exchange[base + (slice_ * (bn // 8) + j) * 32 + L] = sc[j]
                for warp in scs:
                    base = (warp // slices) * slices * (bn // 8) * 32
                    summed = np.zeros((bn // 8, 32, 4))
                    for j in range(bn // 8):
                        summed[j] = exchange[base + j * 32 + L]
                        for s in range(1, slices):
                            summed[j] = summed[j] + exchange[base + (s * (bn // 8) + j) * 32 + L]
                    scs[warp] = summed
            for warp, sc in scs.items():
                slice_ = warp % slices
                pr = np.zeros_like(sc)
                for r in range(2):
                    block_max = np.full(32, -np.inf)
                    for j in range(bn // 8):
                        for x in range(2):
                            col = 8 * j + 2 * Q4 + x
                            val = np.where(col < n_valid, sc[j][:, 2 * r + x] * scale_log2, -np.inf)
                            sc[j][:, 2 * r + x] = val
                            block_max = np.maximum(block_max, val)
                    new_max = np.maximum(m[warp, r], quad(block_max, np.max))
                    ref = np.where(new_max == -np.inf, 0.0, new_max)
                    rescale = np.exp2(m[warp, r] - ref)
                    m[warp, r] = new_max
                    total = np.zeros(32)
                    for j in range(bn // 8):
                        for x in range(2):
                            e = np.exp2(sc[j][:, 2 * r + x] - ref)
                            pr[j][:, 2 * r + x] = e
                            total += e
                    lsum[warp, r] = lsum[warp, r] * rescale + total
                    acc[warp, :, :, 2 * r] *= rescale
                    acc[warp, :, :, 2 * r + 1] *= rescale
                col0 = slice_ * cols
                for kk in range(bn // 16):
                    a = np.stack([pr[2 * kk][:, 0:2], pr[2 * kk][:, 2:4], pr[2 * kk + 1][:, 0:2],
                                  pr[2 * kk + 1][:, 2:4]], axis=1)
                    key_row = kk * 16 + L % 8 + ((L // 8) % 2) * 8
                    for dp in range(cols // 16):
                        vb = ldmatrix_x4(smem, v_s + swizzled(d, key_row, col0 // 8 + 2 * dp + L // 16), trans=True)
                        mma(acc[warp, 2 * dp], a, vb[:, 0], vb[:, 1])
                        mma(acc[warp, 2 * dp + 1], a, vb[:, 2], vb[:, 3])
    for warp in range(nwarps):
        tile, slice_ = warp // slices, warp % slices
        for r in range(2):
            total = quad(lsum[warp, r], np.sum)
            for lane in range(32):
                row = tile * 16 + G[lane] + 8 * r
                if row >= rows_valid:
                    continue
                h = head0 + row
                sink = sinks[h] * math.log2(math.e) if sinks is not None else -np.inf
                mr = m[warp, r, lane]
                top = max(mr, sink)
                o_scale, out_lse = 0.0, -np.inf
                if top != -np.inf:
                    f = 0.0 if mr == -np.inf else 2.0 ** (mr - top)
                    den = total[lane] * f + (0.0 if sink == -np.inf else 2.0 ** (sink - top))
                    o_scale, out_lse = f / den, (top + math.log2(den)) * math.log(2)
                for j in range(cols // 8):
                    dd = slice_ * cols + 8 * j + 2 * Q4[lane]
                    o[b, t, h, dd] = acc[warp, j, lane, 2 * r] * o_scale
                    o[b, t, h, dd + 1] = acc[warp, j, lane, 2 * r + 1] * o_scale
                if slice_ == 0 and Q4[lane] == 0:
                    lse[b, h, t] = out_lse


def run_kernel_model(shape, seed=7, sm_count=132):
    cfg = parse_shape(shape)
    # the unsplit launch (GatherSplit.splits 1): this model transcribes the unsplit path; the
    # split-K pieces and their merge are checked on the GPU (tests/sm90/test_gpu_mqa_gather.py)
    plan = sm90_gather.plan_for(cfg.head_dim, cfg.heads, cfg.heads_kv, cfg.seq_q, cfg.batch, cfg.kv_shared,
                                cfg.topk > 0, sm_count, keys=0)
    launch = launch_shape("sm90_gather", cfg, {}, sm_count)
    launch = type(launch)(plan.grid(cfg.seq_q, cfg.heads_kv, cfg.batch), launch.block, plan.smem_bytes)
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, generator=gen, dtype=torch.float64)
    k = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, cfg.head_dim, generator=gen, dtype=torch.float64)
    v = k if cfg.kv_shared else torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, cfg.head_dim, generator=gen,
                                            dtype=torch.float64)
    features = make_feature_inputs(cfg, seed, device="cpu")
    o = np.full((cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim), np.nan)
    lse = np.full((cfg.batch, cfg.heads, cfg.seq_q), np.nan)
    scale_log2 = 1.0 / math.sqrt(cfg.head_dim) * math.log2(math.e)
    sinks = features.sinks.double().numpy() if cfg.sink else None
    topk_idx = features.topk_idx.numpy() if cfg.topk else None
    gx, gy, gz = launch.grid
    for bz in range(gz):
        for by in range(gy):
            for bx in range(gx):
                run_cta(cfg, launch.block[0], launch.dynamic_smem, bx, by, bz, q.numpy(), k.numpy(), v.numpy(),
                        sinks, topk_idx, o, lse, scale_log2)
    ref_o, ref_lse = attention_for(cfg, q, k, v, features, compute_dtype=torch.float64)
    return launch, o, lse, ref_o.numpy(), ref_lse.numpy()


@pytest.mark.parametrize("shape, sm_count", [
    ("b=1,h=4,hkv=1,t=3,s=150,d=64,causal,wl=40,sink", 132),                 # window range, GQA 4:1, ring wraps
    ("b=2,h=8,hkv=2,t=5,s=90,d=128,topk=70,causal,sink", 132),               # top-k: -1, out of range, duplicates
    ("b=1,h=20,hkv=1,t=2,s=70,d=256,kvshared,sink", 1),                      # 2 slices, exchange; 2 tiles, 4 rows in the 2nd
    ("b=1,h=32,hkv=1,t=2,s=100,d=512,topk=90,kvshared", 1),                  # 4 slices, K = V, top-k
    ("b=1,h=16,hkv=1,t=3,s=40,d=512,wl=0,wr=0,sink", 132),                   # diagonal only, 1 tile of 4 slices
    ("b=1,h=4,hkv=2,t=6,s=3,d=64,causal,sink", 132),                         # T > S: rows with no key
    ("b=1,h=32,hkv=1,t=2,s=60,d=128,causal,wl=20", 132),                     # 16 heads a CTA: 2 chunks per token
    ("b=1,h=2,hkv=1,t=2,s=50,d=64,topk=4500,sink", 132),                     # 3 rounds of the 2048-entry list
])
def test_the_kernels_index_math_gives_the_reference(shape, sm_count):
    launch, o, lse, ref_o, ref_lse = run_kernel_model(shape, sm_count=sm_count)
    assert not np.isnan(o).any() and not np.isnan(lse).any(), "an output the kernel would not write"
    np.testing.assert_allclose(o, ref_o, atol=1e-9, rtol=1e-9)
    assert np.array_equal(np.isneginf(lse), np.isneginf(ref_lse))
    finite = np.isfinite(ref_lse)
    np.testing.assert_allclose(lse[finite], ref_lse[finite], atol=1e-9, rtol=1e-9)


def test_the_model_runs_the_geometries_it_claims():
    """The cases above cover 1, 2 and 4 M tiles, 1, 2 and 4 D slices and several head chunks."""
    assert launch_shape("sm90_gather", parse_shape("b=1,h=20,hkv=1,t=2,s=70,d=256,kvshared,sink"), {}, 1).block == (
        128, 1, 1)  # 2 tiles x 2 slices
    assert launch_shape("sm90_gather", parse_shape("b=1,h=32,hkv=1,t=2,s=100,d=512,topk=90,kvshared"), {},
                        1).block == (256, 1, 1)  # 2 tiles x 4 slices
