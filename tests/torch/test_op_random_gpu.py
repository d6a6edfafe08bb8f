"""fmhactl.torch.attention on RANDOM configurations against the independent reference.

Why this exists: the other GPU tests of the op (test_op_features_gpu.py, test_padded_gpu.py,
test_decode_gpu.py, ...) pin the shapes somebody wrote down. The op routes every call through a
long chain of choices: the split-KV decode kernels for T <= 16, the SM90 family (persistent,
ping-pong, the 192-row tile), head dims no kernel takes run on a wider one through TMA zero fill
or zero-padded copies, the `_feat` variants for window / sinks / K = V / key ranges, the gather
and wgmma decode kernels for top-k and hd512, the torch fallback, the cached launch path or the
general one, copies for strides a kernel cannot read. A wrong answer hides best in a combination
nobody thought of, so each case here draws one configuration at random (shape, dtype, layout,
memory layout of the inputs, every attention feature) and checks O and the LSE against
`fmhactl.verify.reference.attention` under the rule of test_op_features_gpu.py:
max |O - ref_fp32| <= 2 * max |ref_low - ref_fp32| + 1e-3 (ref_low: the reference computed in
the inputs' dtype) and |LSE - ref_fp32 LSE| < 1e-3 or equal (both -inf where a row sees no key).

A call the op refuses with one AttentionInputError line is acceptable and counted (the module's
summary lists it); any other exception, a NaN, a wrong O or a wrong LSE fails, and so does serving
a call it must refuse (causal with window_right > 0; out-of-range top-k entries or key ranges while
the host checks the values).

Replaying a failure: every run draws a fresh base seed (`secrets.randbits(31)`), printed at the
start of the module and inside every assertion message with the case's full description; case i
draws its configuration from `random.Random(base_seed + i)` and its tensors from a generator
seeded the same way. Run it again with the seed fixed:

    FMHACTL_FUZZ_SEED=<seed> pytest -q 'tests/torch/test_op_random_gpu.py::test_random_config[case017]'

FMHACTL_FUZZ_CASES sets the number of cases (default 60: about 2-3 minutes on an H100/H200 once
the kernels are built; a fresh build cache adds each kernel's first compile). The drawing itself
checks on a CPU: `python -m tests.torch.test_op_random_gpu [draws]` (from the checkout) (invariants, coverage, the
op's fake implementation on meta tensors, and the comparison rule on small cases).
"""

from __future__ import annotations

import math
import os
import random
import secrets
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import torch

pytestmark = pytest.mark.gpu

if not torch.cuda.is_available() and __name__ != "__main__":
    pytest.skip("no CUDA GPU", allow_module_level=True)

import fmhactl.torch as ft  # noqa: E402
from fmhactl.config import MAX_TOPK  # noqa: E402
from fmhactl.torch import decode as _decode  # noqa: E402
from fmhactl.torch.backends import Backend  # noqa: E402
from fmhactl.torch import fastpath as _fastpath  # noqa: E402
from fmhactl.torch.op import AttentionInputError, to_bshd  # noqa: E402
from fmhactl.verify.reference import attention as reference  # noqa: E402
from tests.torch.fuzz_support import (CASES_ENV, SEED_ENV, base_seed, draw_sinks, log_uniform, poison, say,  # noqa: E402
                                      summary, where, window_kwargs)

BASE_SEED: int = base_seed()
CASES: int = int(os.environ.get(CASES_ENV, "").strip() or 60)

# Size caps per case: every operand (q, k, v, out) at most MAX_ELEMENTS elements; the reference's
# scores (batch x heads x seq_q x (seq_k + 1) fp32, plus fp64 top-k counts of the same size) at
# most MAX_SCORES; top-k lists at most MAX_TOPK_ENTRIES int32 entries.
MAX_ELEMENTS = 2**25
MAX_SCORES = 2**27
MAX_TOPK_ENTRIES = 2**22
MAX_SEQ = 4096
DECODE_SEQ_Q = (1, 1, 1, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16)
ODD_HEAD_DIMS = (8, 16, 32, 40, 48, 72, 80, 96, 104, 160, 200, 248)
MEMORY_KINDS = ("other-layout", "slice-dim", "slice-seq", "misaligned", "dim-stride", "broadcast-kv")
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
LAYOUTS = ("bshd", "bhsd")
ATOL = 1e-3  # test_op_features_gpu.py's rule: err <= 2 * low_err + 1e-3
LSE_ATOL = 1e-3


@dataclass(frozen=True)
class Case:
    """One drawn configuration: everything a replay needs besides the tensor values (which come
    from a generator seeded with `seed`)."""

    index: int
    seed: int
    dtype: str
    layout: str
    memory: str  # "contiguous" or one of MEMORY_KINDS
    memory_on: str  # which operands get it: "q", "kv" or "qkv"
    seq_extra: int  # slice-seq: extra rows the buffer holds past the view
    dim_pad: int  # slice-dim: extra head-dim columns of the buffer (a multiple of 8)
    dim_offset: int  # slice-dim: the view's first column (a multiple of 8, <= dim_pad)
    q_amp: float  # q's values are randn * q_amp (peaky or flat softmax)
    batch: int
    heads_kv: int
    group: int
    head_dim: int
    seq_q: int
    seq_k: int
    causal: bool
    window: tuple[int, int] | None  # (left, right), -1 unbounded; None: no window argument
    window_style: str  # "tuple" (window=) or "keywords" (window_left=/window_right=)
    window_kind: str
    sinks: tuple[float, ...] | None
    sinks_kind: str
    sinks_strided: bool
    kv_shared: bool  # v is k
    kv_shared_flag: bool  # kv_shared=True passed (else implied by v is k when another feature is on)
    topk: int  # list length, 0: no top-k
    topk_pad: float  # fraction of -1 entries
    topk_dup: bool  # the second half of each list repeats the first
    topk_near_diag: bool  # entries drawn near each row's causal diagonal
    topk_empty_row0: bool  # query row 0's lists all -1
    topk_strided: bool  # a stride-2 view (the entries between are key 0)
    topk_plant: tuple[tuple[int, int], ...]  # (flat position, out-of-range value) planted on purpose
    key_ranges: tuple[tuple[int, int], ...] | None
    scale: float | None
    return_lse: bool
    entry: str  # "attention" (ft.attention), "op" (torch.ops.fmhactl.attention), "general" (cached path off)
    check_values: bool
    planted: str | None  # "topk" / "key_ranges": out-of-range values planted on purpose
    expect_refusal: str | None  # why the op must refuse this call (None: it must serve it)

    @property
    def heads(self) -> int:
        return self.heads_kv * self.group

    @property
    def window_left(self) -> int:
        return -1 if self.window is None else self.window[0]

    @property
    def window_right(self) -> int:
        return -1 if self.window is None else self.window[1]

    def describe(self) -> str:
        parts = [f"seed={self.seed}", self.dtype, self.layout,
                 f"b={self.batch} h={self.heads} hkv={self.heads_kv} (group {self.group}) d={self.head_dim}",
                 f"T={self.seq_q} S={self.seq_k}", f"causal={self.causal}"]
        if self.memory != "contiguous":
            extra = {"slice-seq": f" extra={self.seq_extra}",
                     "slice-dim": f" pad={self.dim_pad} offset={self.dim_offset}"}.get(self.memory, "")
            parts.append(f"memory={self.memory} on {self.memory_on}{extra}")
        if self.q_amp != 1.0:
            parts.append(f"q_amp={self.q_amp}")
        if self.window is not None:
            parts.append(f"window={self.window} ({self.window_kind}, {self.window_style})")
        if self.sinks is not None:
            shown = ",".join(f"{s:.3g}" for s in self.sinks)
            parts.append(f"sinks={self.sinks_kind}{' strided' if self.sinks_strided else ''} [{shown}]")
        if self.kv_shared:
            parts.append(f"kv_shared (flag={self.kv_shared_flag})")
        if self.topk:
            parts.append(f"topk={self.topk} pad={self.topk_pad} dup={self.topk_dup} near_diag={self.topk_near_diag}"
                         f" empty_row0={self.topk_empty_row0} strided={self.topk_strided}"
                         + (f" plant={list(self.topk_plant)}" if self.topk_plant else ""))
        if self.key_ranges is not None:
            parts.append(f"key_ranges={[list(r) for r in self.key_ranges]}")
        if self.scale is not None:
            parts.append(f"scale={self.scale!r}")
        parts.append(f"return_lse={self.return_lse} entry={self.entry} check_values={self.check_values}")
        if self.planted:
            parts.append(f"planted={self.planted}")
        if self.expect_refusal:
            parts.append(f"expect_refusal=({self.expect_refusal})")
        return " ".join(parts)


# ---- drawing (pure Python: random.Random only) ---------------------------------------------------

def _snap(r: random.Random, n: int) -> int:
    """n, or (30%) n moved to a tile boundary +-1: 16..192-row tiles, 32..128-key blocks."""
    if r.random() < 0.3:
        m = r.choice((16, 32, 64, 128, 192))
        n = max(m, round(n / m) * m) + r.choice((-1, 0, 0, 1))
    return min(MAX_SEQ, max(1, n))


def _head_dim(r: random.Random) -> int:
    u = r.random()
    if u < 0.07:
        return 512
    if u < 0.09:
        return r.randrange(264, 512, 8)  # above 256: runs padded to 512
    if u < 0.34:
        return 64
    if u < 0.58:
        return 128
    if u < 0.68:
        return 256
    if u < 0.82:
        return r.choice(ODD_HEAD_DIMS)
    return r.randrange(8, 257, 8)


def _fits(batch: int, heads: int, heads_kv: int, head_dim: int, seq_q: int, seq_k: int) -> bool:
    return (batch * max(seq_q * heads, seq_k * heads_kv) * head_dim <= MAX_ELEMENTS
            and batch * heads * seq_q * (seq_k + 1) <= MAX_SCORES)


def _fit(batch: int, heads_kv: int, group: int, head_dim: int, seq_q: int, seq_k: int,
         equal: bool) -> tuple[int, int, int, int]:
    """(batch, group, seq_q, seq_k) shrunk until the case fits the caps: the sequences first
    (keeping T == S), then the group, then the batch."""
    while not _fits(batch, heads_kv * group, heads_kv, head_dim, seq_q, seq_k):
        if equal and seq_q > 1:
            seq_q = seq_k = seq_q // 2
        elif seq_k >= seq_q and seq_k > 16:
            seq_k //= 2
        elif seq_q > 16:
            seq_q //= 2
        elif group > 1:
            group //= 2
        elif batch > 1:
            batch -= 1
        else:
            break
    return batch, group, seq_q, seq_k


def _window(r: random.Random, causal: bool, seq_q: int, seq_k: int) -> tuple[tuple[int, int] | None, str]:
    span = max(seq_q, seq_k)

    def width() -> int:  # 0 .. 2 * span + 1, log-uniform
        return log_uniform(r, 1, 2 * span + 2) - 1

    kind = r.choice(("left", "left", "both", "zero", "wide", "right", "explicit-none"))
    if kind == "left":  # causal + window_left is DeepSeek-V4's (127, 0)
        left = r.choice((width(), width(), 127, 31))
        return (left, 0 if causal else r.choice((-1, -1, 0, width()))), kind
    if kind == "both":
        return (width(), 0 if causal else width()), kind
    if kind == "zero":  # the diagonal key only
        return (0, 0 if not causal else r.choice((0, -1))), kind
    if kind == "wide":  # wider than the sequence: no window at all (2^31-1: the kernels' 32-bit bounds)
        far = r.choice((seq_q + seq_k + r.randrange(0, 1000), 2**31 - 1))
        return (far, r.choice((-1, 0)) if causal else r.choice((-1, far))), kind
    if kind == "right":  # non-causal: right side only; causal: (-1, 0) is causal spelled as a window
        return (-1, 0 if causal else width()), kind
    return (-1, -1), kind  # explicitly unbounded: must behave as no window


def _key_ranges(r: random.Random, batch: int, seq_k: int) -> tuple[tuple[int, int], ...]:
    rows = []
    for _ in range(batch):
        kind = r.choice(("full", "empty", "left", "right", "both", "edge-empty"))
        a, b = r.randint(0, seq_k), r.randint(0, seq_k)
        rows.append({"full": (0, seq_k), "empty": (a, a), "left": (a, seq_k), "right": (0, a),
                     "both": (min(a, b), max(a, b)), "edge-empty": r.choice(((0, 0), (seq_k, seq_k)))}[kind])
    if batch > 1 and r.random() < 0.5:  # a padded batch usually has a full row and an empty one
        rows[0] = (0, seq_k)
        e = r.randint(0, seq_k)
        rows[r.randrange(1, batch)] = (e, e)
    return tuple(rows)


def draw_case(index: int, base_seed: int | None = None) -> Case:
    """Case `index` of the run with base_seed (default: this run's), from random.Random(base_seed + index)."""
    seed = (BASE_SEED if base_seed is None else base_seed) + index
    r = random.Random(seed)
    dtype = "bf16" if r.random() < 0.6 else "f16"
    layout = r.choice(LAYOUTS)
    batch = r.choices((1, 2, 3, 4), weights=(4, 3, 1, 2))[0]
    heads_kv = r.choice((1, 2, 4))
    group = r.choice((1, 2, 4, 8))
    head_dim = _head_dim(r)
    if head_dim > 256:  # hd512 (and the dims padded to it) with MQA, DeepSeek-V4's shape
        heads_kv = 1
        group = r.choices((1, 2, 4, 8, 16, 64), weights=(1, 1, 1, 2, 2, 2))[0]
    mode = r.random()
    if mode < 0.25:  # a decode step
        seq_q, seq_k = r.choice(DECODE_SEQ_Q), _snap(r, log_uniform(r, 1, MAX_SEQ))
    elif mode < 0.5:
        seq_q = seq_k = _snap(r, log_uniform(r, 1, MAX_SEQ))
    else:
        seq_q, seq_k = _snap(r, log_uniform(r, 1, MAX_SEQ)), _snap(r, log_uniform(r, 1, MAX_SEQ))
    batch, group, seq_q, seq_k = _fit(batch, heads_kv, group, head_dim, seq_q, seq_k, equal=seq_q == seq_k)
    heads = heads_kv * group

    memory, memory_on = "contiguous", "qkv"
    if r.random() < 0.35:
        memory = r.choice(MEMORY_KINDS)
        memory_on = "kv" if memory == "broadcast-kv" else r.choice(("q", "kv", "qkv"))
    seq_extra = r.randint(1, max(1, seq_k))
    dim_pad = 8 * r.randint(1, 8)
    dim_offset = 8 * r.randint(0, dim_pad // 8)
    q_amp = r.choices((1.0, 4.0, 0.1), weights=(7, 2, 1))[0]

    causal = r.random() < 0.5
    window, window_kind = (None, "")
    if r.random() < 0.35:
        window, window_kind = _window(r, causal, seq_q, seq_k)
    window_style = r.choice(("tuple", "keywords"))
    sinks, sinks_kind, sinks_strided = None, "", False
    if r.random() < 0.3:
        sinks, sinks_kind = draw_sinks(r, heads, seq_k)
        sinks_strided = r.random() < 0.2
    kv_shared = r.random() < 0.2
    kv_shared_flag = kv_shared and r.random() < 0.7

    topk, topk_pad, topk_dup, topk_near, topk_empty, topk_strided = 0, 0.0, False, False, False, False
    if r.random() < 0.2:
        topk = log_uniform(r, 1, 2 * seq_k + 16)
        topk = max(1, min(topk, MAX_TOPK, MAX_TOPK_ENTRIES // (batch * seq_q * heads_kv)))
        topk_pad = r.choice((0.0, 0.125, 0.5, 0.9))
        topk_dup = r.random() < 0.4
        topk_near = r.random() < 0.5
        topk_empty = r.random() < 0.3
        topk_strided = r.random() < 0.15
    key_ranges = _key_ranges(r, batch, seq_k) if r.random() < 0.2 else None
    scale = None
    if r.random() < 0.15:
        scale = r.choice((1.0, 0.5 / math.sqrt(head_dim), round(r.uniform(0.01, 0.3), 4)))
    return_lse = r.random() < 0.85
    entry = r.choices(("attention", "op", "general"), weights=(75, 15, 10))[0]
    check_values = r.random() < 0.85

    expect_refusal = None
    if r.random() < 0.02:  # causal with window_right > 0 is refused on every path (docs/features.md)
        causal = True
        window = (window[0] if window is not None else r.choice((-1, 127)), r.randint(1, 64))
        window_kind = "causal-right"
        expect_refusal = "causal with window_right > 0"
    planted: str | None = None
    topk_plant: tuple[tuple[int, int], ...] = ()
    if (topk or key_ranges is not None) and r.random() < 0.12:
        planted = r.choice([name for name, on in (("topk", topk), ("key_ranges", key_ranges is not None)) if on])
        if planted == "topk":
            entries = batch * seq_q * heads_kv * topk
            topk_plant = tuple((r.randrange(entries), r.choice((seq_k + r.randrange(8), -2 - r.randrange(8))))
                               for _ in range(r.randint(1, 3)))
        else:
            assert key_ranges is not None
            rows = list(key_ranges)
            row = r.randrange(batch)
            start, end = rows[row]
            rows[row] = (start, seq_k + 1 + r.randrange(50)) if r.random() < 0.5 else (-1 - r.randrange(50), end)
            key_ranges = tuple(rows)
        # ft.attention reads the values back and refuses them; the raw op does not look (a kernel
        # skips an out-of-range entry like -1 and clamps a key range to the keys: docs/features.md).
        if entry != "op" and check_values and expect_refusal is None:
            expect_refusal = f"out-of-range {planted} with check_values"
    return Case(index=index, seed=seed, dtype=dtype, layout=layout, memory=memory, memory_on=memory_on,
                seq_extra=seq_extra, dim_pad=dim_pad, dim_offset=dim_offset, q_amp=q_amp, batch=batch,
                heads_kv=heads_kv, group=group, head_dim=head_dim, seq_q=seq_q, seq_k=seq_k, causal=causal,
                window=window, window_style=window_style, window_kind=window_kind, sinks=sinks,
                sinks_kind=sinks_kind, sinks_strided=sinks_strided, kv_shared=kv_shared,
                kv_shared_flag=kv_shared_flag, topk=topk, topk_pad=topk_pad, topk_dup=topk_dup,
                topk_near_diag=topk_near, topk_empty_row0=topk_empty, topk_strided=topk_strided,
                topk_plant=topk_plant, key_ranges=key_ranges, scale=scale, return_lse=return_lse, entry=entry,
                check_values=check_values, planted=planted, expect_refusal=expect_refusal)


# ---- tensors -----------------------------------------------------------------------------------

@dataclass
class Inputs:
    q: torch.Tensor  # in the case's layout
    k: torch.Tensor
    v: torch.Tensor  # `k` itself under kv_shared
    sinks: torch.Tensor | None
    topk_idx: torch.Tensor | None
    key_ranges: torch.Tensor | None


def _operand(case: Case, gen: torch.Generator, device: str, seq: int, heads: int, strided: bool,
             amp: float = 1.0) -> torch.Tensor:
    """One of q/k/v in the case's layout. Strided: built as case.memory says, inside a buffer whose
    cells outside the view are NaN (a kernel that reads past the view shows up as NaN)."""
    dtype, d, b = DTYPES[case.dtype], case.head_dim, case.batch
    kind = case.memory if strided else "contiguous"
    if kind == "broadcast-kv" and heads == 1:
        kind = "contiguous"
    other = LAYOUTS[1 - LAYOUTS.index(case.layout)]
    memory_layout = other if kind == "other-layout" else case.layout
    rows = seq + case.seq_extra if kind == "slice-seq" else seq
    heads_alloc = 1 if kind == "broadcast-kv" else heads
    columns, cols = {"slice-dim": (d + case.dim_pad, slice(case.dim_offset, case.dim_offset + d)),
                     "misaligned": (d + 8, slice(1, 1 + d)),  # base 2 bytes off 16-byte alignment
                     "dim-stride": (2 * d, slice(0, 2 * d, 2))}.get(kind, (d, slice(None)))
    shape = (b, rows, heads_alloc, columns) if memory_layout == "bshd" else (b, heads_alloc, rows, columns)
    full = torch.full(shape, float("nan"), dtype=dtype, device=device)
    view = full[..., cols]
    view = view[:, :seq] if memory_layout == "bshd" else view[:, :, :seq]
    view.copy_((torch.randn(view.shape, generator=gen, device=device) * amp).to(dtype))
    if kind == "broadcast-kv":  # stride 0 over the KV heads
        view = view.expand((b, seq, heads, d) if memory_layout == "bshd" else (b, heads, seq, d))
    return view.transpose(1, 2) if memory_layout != case.layout else view


def _topk_idx(case: Case, gen: torch.Generator, device: str) -> torch.Tensor:
    b, t, hkv, n, s = case.batch, case.seq_q, case.heads_kv, case.topk, case.seq_k
    shape = (b, t, hkv, n)
    if case.topk_near_diag:  # most entries at or left of the row's causal diagonal, some right of it
        diagonal = (torch.arange(t, device=device) + (s - t)).view(1, t, 1, 1)
        back = (torch.rand(shape, generator=gen, device=device) * math.log(s + 1)).exp().long() - 1
        sign = torch.where(torch.rand(shape, generator=gen, device=device) < 0.2, -1, 1)
        idx = (diagonal - sign * back).clamp(0, s - 1)
    else:
        idx = torch.randint(0, s, shape, generator=gen, device=device)
    if case.topk_dup and n > 1:
        half = n // 2
        idx[..., n - half:] = idx[..., :half]
    if case.topk_pad:
        idx = torch.where(torch.rand(shape, generator=gen, device=device) < case.topk_pad, -1, idx)
    if case.topk_empty_row0:
        idx[:, 0] = -1
    flat = idx.view(-1)
    for position, value in case.topk_plant:
        flat[position] = value
    idx = idx.to(torch.int32)
    if case.topk_strided:  # entries between the view's are key 0, a valid key: a kernel must not read them
        buffer = torch.zeros((b, t, hkv, 2 * n), dtype=torch.int32, device=device)
        buffer[..., ::2] = idx
        idx = buffer[..., ::2]
    return idx


def build_inputs(case: Case, device: str = "cuda") -> Inputs:
    gen = torch.Generator(device=device).manual_seed(case.seed)
    q = _operand(case, gen, device, case.seq_q, case.heads, case.memory_on in ("q", "qkv"), case.q_amp)
    k = _operand(case, gen, device, case.seq_k, case.heads_kv, case.memory_on in ("kv", "qkv"))
    v = k if case.kv_shared else _operand(case, gen, device, case.seq_k, case.heads_kv,
                                          case.memory_on in ("kv", "qkv"))
    sinks = None
    if case.sinks is not None:
        values = torch.tensor(case.sinks, dtype=torch.float32, device=device)
        if case.sinks_strided:
            buffer = torch.full((case.heads, 2), float("nan"), dtype=torch.float32, device=device)
            buffer[:, 0] = values
            values = buffer[:, 0]
        sinks = values
    topk_idx = _topk_idx(case, gen, device) if case.topk else None
    ranges = None
    if case.key_ranges is not None:
        ranges = torch.tensor(case.key_ranges, dtype=torch.int32, device=device)
    return Inputs(q, k, v, sinks, topk_idx, ranges)


# ---- the call, the reference, the comparison -------------------------------------------------------

def backend_of(case: Case, t: Inputs) -> Backend:
    return ft.backend_for(t.q, t.k, t.v, causal=case.causal, layout=case.layout, sinks=t.sinks,
                          topk_idx=t.topk_idx, kv_shared=case.kv_shared_flag, key_ranges=t.key_ranges,
                          **window_kwargs(case))


def call_op(case: Case, t: Inputs) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(out, lse or None) through the case's entry point."""
    if case.entry == "op":
        out, lse = torch.ops.fmhactl.attention(t.q, t.k, t.v, t.sinks, t.topk_idx, t.key_ranges,
                                               causal=case.causal, scale=case.scale, return_lse=case.return_lse,
                                               layout=case.layout, window_left=case.window_left,
                                               window_right=case.window_right, kv_shared=case.kv_shared_flag)
        if not case.return_lse:
            assert lse.numel() == 0, f"return_lse=False gave an LSE of shape {tuple(lse.shape)}"
            return out, None
        return out, lse
    kwargs = dict(causal=case.causal, scale=case.scale, return_lse=case.return_lse, layout=case.layout,
                  sinks=t.sinks, topk_idx=t.topk_idx, kv_shared=case.kv_shared_flag, key_ranges=t.key_ranges,
                  check_values=case.check_values, **window_kwargs(case))
    if case.entry == "general":
        _fastpath.set_enabled(False)
        try:
            served = ft.attention(t.q, t.k, t.v, **kwargs)
        finally:
            _fastpath.set_enabled(True)
    else:
        served = ft.attention(t.q, t.k, t.v, **kwargs)
    if case.return_lse:
        out, lse = served
        return out, lse
    return served, None


def references(case: Case, t: Inputs) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(O fp32, LSE fp32, O in the inputs' dtype) of the reference, O as (batch, seq_q, heads, dim)."""
    qb, kb = to_bshd(t.q, case.layout), to_bshd(t.k, case.layout)
    vb = kb if case.kv_shared else to_bshd(t.v, case.layout)
    kwargs = dict(causal=case.causal, scale=case.scale, window_left=case.window_left,
                  window_right=case.window_right, sinks=t.sinks, topk_idx=t.topk_idx, key_ranges=t.key_ranges)
    want, want_lse = reference(qb, kb, vb, compute_dtype=torch.float32, **kwargs)
    low, _ = reference(qb, kb, vb, compute_dtype=DTYPES[case.dtype], **kwargs)
    return want, want_lse, low


def check_result(case: Case, t: Inputs, out: torch.Tensor, lse: torch.Tensor | None, note: str) -> str:
    """Assert O (and the LSE when returned) against the reference; returns the numbers."""
    assert tuple(out.shape) == tuple(t.q.shape) and out.dtype == t.q.dtype, (
        f"{note}: out {tuple(out.shape)} {out.dtype} for q {tuple(t.q.shape)} {t.q.dtype}")
    want, want_lse, low = references(case, t)
    got = to_bshd(out, case.layout).float()
    nan = torch.isnan(got)
    assert not bool(nan.any()), f"{note}: NaN in O (batch, token, head, dim): {where(nan)}"
    diff = (got - want).abs()
    err, low_err = float(diff.max()), float((low.float() - want).abs().max())
    tol = 2 * low_err + ATOL
    worst = tuple(int(i) for i in (diff == diff.max()).nonzero()[0])
    assert err <= tol, (f"{note}: max |O err| {err:.4g} > {tol:.4g} (2 x low-precision reference's {low_err:.4g}"
                        f" + {ATOL}); worst at (batch, token, head, dim) {worst}: got {float(got[worst]):.5g},"
                        f" want {float(want[worst]):.5g}")
    summary = f"O err {err:.3g} (tol {tol:.3g})"
    if lse is None:
        return summary
    shape = (case.batch, case.heads, case.seq_q)
    assert tuple(lse.shape) == shape and lse.dtype == torch.float32, (
        f"{note}: lse {tuple(lse.shape)} {lse.dtype}, want {shape} float32")
    ok = ((lse - want_lse).abs() < LSE_ATOL) | (lse == want_lse)
    if not bool(ok.all()):
        finite = torch.isfinite(want_lse) & torch.isfinite(lse)
        worst_lse = float((lse - want_lse).abs()[finite].max()) if bool(finite.any()) else float("nan")
        inf_mismatch = torch.isinf(lse) != torch.isinf(want_lse)
        raise AssertionError(f"{note}: LSE differs at (batch, head, token) {where(~ok)}; max finite |err| "
                             f"{worst_lse:.4g}; -inf/inf mismatches {where(inf_mismatch)}; NaN "
                             f"{where(torch.isnan(lse))}")
    return summary


# ---- the test ------------------------------------------------------------------------------------

_OUTCOMES: dict[int, str] = {}


@pytest.fixture(scope="module", autouse=True)
def _seed_and_summary(request: pytest.FixtureRequest) -> Iterator[None]:
    """The base seed first (to replay: set FMHACTL_FUZZ_SEED to it), what served each case last."""
    say(request, f"\n{__name__}: {SEED_ENV}={BASE_SEED} {CASES_ENV}={CASES}")
    yield
    if not _OUTCOMES:
        return
    say(request, summary(__name__, BASE_SEED, _OUTCOMES))


def _served_by(backend: Backend | None, decode_launched: bool) -> str:
    if decode_launched:
        return "decode-split"
    if backend is None:
        return "?"
    name = f"{backend.variant} ({backend.mode})"
    if backend.padded_head_dim:
        name += f" d{backend.padded_head_dim} {'tma-fill' if backend.tma_fill else 'copies'}"
    return name


@pytest.mark.parametrize("index", range(CASES), ids=lambda i: f"case{i:03d}")
def test_random_config(index: int) -> None:
    case = draw_case(index)
    note = f"[{SEED_ENV}={BASE_SEED} case{index:03d}: {case.describe()}]"
    print(note)
    inputs = build_inputs(case, "cuda")
    try:
        backend, backend_refusal = backend_of(case, inputs), None
    except AttentionInputError as exc:
        backend, backend_refusal = None, exc
    except Exception as exc:
        raise AssertionError(f"{note}: backend_for raised {type(exc).__name__}: {exc}") from exc
    poison()
    decodes = _decode.launches()
    try:
        out, lse = call_op(case, inputs)
    except AttentionInputError as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith("fmhactl.attention"), (
            f"{note}: the refusal is not one 'fmhactl.attention: ...' line: {message!r}")
        _OUTCOMES[index] = f"refused{' (expected)' if case.expect_refusal else ''}: {message}"
        return
    except Exception as exc:
        raise AssertionError(f"{note}: {type(exc).__name__}: {exc}") from exc
    served_by = _served_by(backend, _decode.launches() > decodes)
    note = f"{note} served by {served_by}"
    assert case.expect_refusal is None, f"{note}: served a call it must refuse ({case.expect_refusal})"
    assert backend_refusal is None, f"{note}: served a call backend_for refuses ({backend_refusal})"
    numbers = check_result(case, inputs, out, lse, note)
    _OUTCOMES[index] = f"served: {served_by}: {numbers}: {case.describe()}"


# ---- CPU self-check of the drawing: python -m tests.torch.test_op_random_gpu [draws] ------------------

def _self_check(draws: int) -> None:
    """Invariants and coverage of draw_case, the op's O(1) checks on meta tensors (every case
    meant to be served passes them, every causal-window refusal fails them), and the comparison
    rule on small cases with the reference's own fp32 answer rounded to the inputs' dtype
    (it must pass) and with one element moved (it must fail)."""
    from fmhactl.torch.op import attention_op

    base = secrets.randbits(31)
    seen: Counter[str] = Counter()
    for index in range(draws):
        case = draw_case(index, base)
        assert case == draw_case(index, base), "drawing is not deterministic"
        h, d = case.heads, case.head_dim
        assert case.heads_kv in (1, 2, 4) and h % case.heads_kv == 0 and d % 8 == 0 and 8 <= d <= 512, case
        assert 1 <= case.batch <= 4 and 1 <= case.seq_q <= MAX_SEQ and 1 <= case.seq_k <= MAX_SEQ, case
        assert _fits(case.batch, h, case.heads_kv, d, case.seq_q, case.seq_k), case
        assert case.topk == 0 or 1 <= case.topk <= MAX_TOPK, case
        assert case.batch * case.seq_q * case.heads_kv * case.topk <= MAX_TOPK_ENTRIES, case
        if case.expect_refusal is None and case.window is not None:
            assert min(case.window) >= -1 and not (case.causal and case.window_right > 0), case
        if case.key_ranges is not None and case.planted != "key_ranges":
            assert all(0 <= s <= e <= case.seq_k for s, e in case.key_ranges), case
        seen.update({"decode": case.seq_q <= 16, "T==S": case.seq_q == case.seq_k, "causal": case.causal,
                     "window": case.window is not None, "sinks": case.sinks is not None,
                     "-inf sink": case.sinks is not None and float("-inf") in case.sinks,
                     "kv_shared": case.kv_shared, "topk": case.topk > 0, "topk>S": case.topk > case.seq_k,
                     "key_ranges": case.key_ranges is not None,
                     "empty range": bool(case.key_ranges) and any(s == e for s, e in case.key_ranges),
                     "d512": d == 512, "odd d": d not in (64, 128, 256, 512), "f16": case.dtype == "f16",
                     "bhsd": case.layout == "bhsd", "strided": case.memory != "contiguous",
                     "expect refusal": case.expect_refusal is not None, f"entry {case.entry}": True,
                     f"memory {case.memory}": True})
        if case.window is not None:
            seen[f"window {case.window_kind}"] += 1
        # The op's fake implementation on meta tensors runs the O(1) checks.
        meta = Inputs(*_meta_shapes(case))
        if case.kv_shared:
            meta.v = meta.k
        try:
            out, lse = attention_op(meta.q, meta.k, meta.v, meta.sinks, meta.topk_idx, meta.key_ranges,
                                    causal=case.causal, scale=case.scale, return_lse=case.return_lse,
                                    layout=case.layout, window_left=case.window_left,
                                    window_right=case.window_right, kv_shared=case.kv_shared_flag)
        except AttentionInputError:
            assert case.expect_refusal == "causal with window_right > 0", case.describe()
        else:
            assert case.expect_refusal != "causal with window_right > 0", case.describe()
            assert tuple(out.shape) == tuple(meta.q.shape), case.describe()
    missing = [name for name in ("decode", "T==S", "causal", "window", "sinks", "-inf sink", "kv_shared", "topk",
                                 "topk>S", "key_ranges", "empty range", "d512", "odd d", "f16", "bhsd", "strided",
                                 "expect refusal") if not seen[name]]
    assert not missing or draws < 500, f"never drawn in {draws} cases: {missing}"
    print(f"{draws} draws (base seed {base}):")
    for name, n in sorted(seen.items()):
        print(f"  {name:24s} {n / draws:6.1%}")

    checked = 0
    for index in range(draws):
        case = draw_case(index, base)
        if (case.batch * case.heads * case.seq_q * case.seq_k * case.head_dim > 2**20 or case.expect_refusal
                or case.planted):
            continue
        t = build_inputs(case, "cpu")
        want, want_lse, _ = references(case, t)
        out = want.to(DTYPES[case.dtype])
        out = out.transpose(1, 2) if case.layout == "bhsd" else out
        check_result(case, t, out, want_lse if case.return_lse else None, case.describe())
        moved = out.clone()
        moved[0, 0, 0, 0] += 1.0
        try:
            check_result(case, t, moved, None, case.describe())
        except AssertionError:
            pass
        else:
            raise AssertionError(f"an O element moved by 1.0 passed: {case.describe()}")
        checked += 1
        if checked == 40:
            break
    print(f"comparison rule: {checked} small cases pass with the rounded reference and fail with one element moved")


def _meta_shapes(case: Case) -> tuple[torch.Tensor, ...]:
    """Meta tensors with the case's shapes and dtypes (q, k, v, sinks, topk_idx, key_ranges)."""
    def operand(seq: int, heads: int) -> torch.Tensor:
        shape = (case.batch, seq, heads, case.head_dim)
        if case.layout == "bhsd":
            shape = (case.batch, heads, seq, case.head_dim)
        return torch.empty(shape, dtype=DTYPES[case.dtype], device="meta")

    sinks = torch.empty(case.heads, dtype=torch.float32, device="meta") if case.sinks is not None else None
    topk = (torch.empty(case.batch, case.seq_q, case.heads_kv, case.topk, dtype=torch.int32, device="meta")
            if case.topk else None)
    ranges = torch.empty(case.batch, 2, dtype=torch.int32, device="meta") if case.key_ranges is not None else None
    return operand(case.seq_q, case.heads), operand(case.seq_k, case.heads_kv), operand(case.seq_k, case.heads_kv), \
        sinks, topk, ranges


if __name__ == "__main__":
    _self_check(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
