"""Checkpoint dumps of the SM100 family: what the first CTA held at Q/K/V (SMEM), S, P and O
(TMEM), beside what it should have held, computed from torch and the layout model.

Buffer layout: mirror of fmha_sm100::Checkpoints<D> (kernels/sm100/fmha_sm100.cuh).
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKPOINTS = ("Q", "K", "V", "S", "P", "O")
BLOCK_M = BLOCK_N = 128


@dataclass(frozen=True)
class CheckpointLayout:
    head_dim: int

    @property
    def offsets(self) -> dict[str, int]:
        d = self.head_dim
        q = 0
        k = q + BLOCK_M * d * 2
        v = k + BLOCK_N * d * 2
        s = v + BLOCK_N * d * 2
        p = s + BLOCK_M * BLOCK_N * 4
        o = p + BLOCK_M * BLOCK_N * 4
        return {"Q": q, "K": k, "V": v, "S": s, "P": p, "O": o, "end": o + BLOCK_M * d * 4}

    @property
    def nbytes(self) -> int:
        return self.offsets["end"]


def _smem_image_expected(tile, rows: int, major: str, head_dim: int):
    """Where the layout model says each element of the (rows x head_dim) tile sits, as int16 bits."""
    import torch

    from fmhactl.layout.smem import make_tile

    if major == "K":
        layout = make_tile("K", "128B", rows, head_dim, "bf16")
        place = lambda r, c: layout.offset(r, c)  # noqa: E731
    else:  # V: MN-major operand, rows = keys (K), columns = head dim (MN)
        layout = make_tile("MN", "128B", head_dim, rows, "bf16")
        place = lambda r, c: layout.offset(c, r)  # noqa: E731
    image = torch.full((rows * head_dim,), -1, dtype=torch.int16)
    bits = tile.contiguous().view(torch.int16).cpu()
    index = torch.tensor([place(r, c) // 2 for r in range(rows) for c in range(head_dim)])
    image[index] = bits.flatten()
    return image, layout


def expected(cfg, q, k, v, at: str, scale_log2: float):
    """The checkpoint as it should be, for CTA (0, 0, 0): batch 0, head 0, rows 0..127, KV tile 0."""
    import torch

    t_rows = min(cfg.seq_q, BLOCK_M)
    group = cfg.heads // cfg.heads_kv
    qt = torch.zeros(BLOCK_M, cfg.head_dim, dtype=q.dtype, device=q.device)
    qt[:t_rows] = q[0, :t_rows, 0]
    keys = min(cfg.seq_k, BLOCK_N)
    kt = torch.zeros(BLOCK_N, cfg.head_dim, dtype=k.dtype, device=k.device)
    vt = torch.zeros_like(kt)
    kt[:keys] = k[0, :keys, 0 // group]
    vt[:keys] = v[0, :keys, 0 // group]
    if at in ("Q", "K", "V"):
        tile = {"Q": qt, "K": kt, "V": vt}[at]
        return _smem_image_expected(tile, tile.shape[0], "MN" if at == "V" else "K", cfg.head_dim)[0]
    if at in ("S", "P"):
        s = qt.float() @ kt.float().T
        return s if at == "S" else _probabilities(s, cfg, scale_log2).to(q.dtype).float()
    # O before the epilogue: sum_j round16(exp2(s_j - m_final)) v_j over every visible key.
    kall, vall = k[0, :, 0 // group].float(), v[0, :, 0 // group].float()
    p = _probabilities(qt.float() @ kall.T, cfg, scale_log2)
    out = p.to(q.dtype).float() @ vall
    out[cfg.seq_q:] = 0.0
    return out


def _probabilities(scores, cfg, scale_log2: float):
    """exp2(s * scale_log2 - row max) over the keys a CTA-0 row sees (bottom-right causal), else 0."""
    import torch

    rows = torch.arange(scores.shape[0], device=scores.device).unsqueeze(1)
    cols = torch.arange(scores.shape[1], device=scores.device).unsqueeze(0)
    visible = (rows < cfg.seq_q) & (cols < cfg.seq_k)
    if cfg.causal:
        visible &= cols <= rows + (cfg.seq_k - cfg.seq_q)
    x = torch.where(visible, scores * scale_log2, torch.full_like(scores, float("-inf")))
    m = x.max(dim=1, keepdim=True).values
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    return torch.where(visible, torch.exp2(x - m), torch.zeros_like(scores))


def compare(at: str, got, want, head_dim: int) -> dict:
    """Max error, mismatch count and the first mismatching (lane, column) or (row, k)."""
    import torch

    if at in ("Q", "K", "V"):
        rows = BLOCK_M if at == "Q" else BLOCK_N
        wrong = got != want
        count = int(wrong.sum().item())
        report = {"checkpoint": at, "kind": "smem bytes", "elements": int(want.numel()), "mismatches": count}
        if count:
            first = int(wrong.nonzero()[0].item())
            _, layout = _smem_image_expected(torch.zeros(rows, head_dim, dtype=torch.bfloat16), rows,
                                             "MN" if at == "V" else "K", head_dim)
            where = layout.element_at(first * 2)
            report.update(first_byte=first * 2, first_element=str(where),
                          got_bits=int(got[first].item()) & 0xFFFF, want_bits=int(want[first].item()) & 0xFFFF)
        return report
    tol = {"S": 1e-3, "P": 8e-3, "O": 2e-2}[at]
    scale = float(want.abs().max().item()) or 1.0
    diff = (got - want).abs()
    bad = diff > tol * max(1.0, scale) if at != "P" else diff > tol
    count = int(bad.sum().item())
    report = {"checkpoint": at, "kind": "TMEM fp32 [lane][column]", "elements": int(want.numel()),
              "mismatches": count, "max_abs_err": float(diff.max().item()), "tolerance": tol}
    if count:
        lane, col = (int(x) for x in bad.nonzero()[0].tolist())
        report.update(first_lane=lane, first_column=col, got=float(got[lane, col].item()),
                      want=float(want[lane, col].item()),
                      rows_with_errors=sorted({int(r) for r in bad.nonzero()[:, 0].tolist()})[:16])
    return report


def window(got, want, lane: int, col: int, size: int = 6) -> list[list[str]]:
    """A small got/want grid around (lane, col) for the terminal."""
    r0, c0 = max(0, lane - size // 2), max(0, col - size // 2)
    rows = []
    for r in range(r0, min(got.shape[0], r0 + size)):
        rows.append([f"{float(got[r, c]):.4g}/{float(want[r, c]):.4g}" for c in range(c0, min(got.shape[1], c0 + size))])
    return rows
