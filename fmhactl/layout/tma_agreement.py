"""Randomized cuTensorMapEncodeTiled parameter sets and the model-vs-driver agreement run.

Counted cases stay inside documented behaviour: valid sets, and sets that break exactly one
requirement the driver documents as a "must". Probes ask the driver what the documentation does
not settle (box larger than the tensor, overlapping strides, sm_100-only swizzles on sm_90, ...);
they are printed with their outcome but not counted. Addresses are offsets into the caller's
buffer (the runner adds the device base, which is at least 256-byte aligned).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from math import ceil

from fmhactl.layout.tensormap import (
    ELEMENT_BITS,
    FLOAT_TYPES,
    DataType,
    Interleave,
    Swizzle,
    TensorMapParams,
    is_valid,
    seed002_params,
    validate,
)

STANDARD_TYPES = [t for t in DataType if t not in (DataType.U4_16_ALIGN8B, DataType.U4_16_ALIGN16B,
                                                   DataType.U6_16_ALIGN16B)]
_SPAN = {Swizzle.B32: 32, Swizzle.B64: 64, Swizzle.B128: 128}


@dataclass(frozen=True)
class Case:
    name: str
    params: TensorMapParams  # global_address is an offset into the runner's buffer
    counted: bool = True
    question: str = ""  # for probes: what the driver's answer tells us


def _extent(p: TensorMapParams) -> int:
    bits = ELEMENT_BITS[DataType(p.dtype)]
    end = ceil(p.global_dim[0] * bits / 8)
    for d, s in zip(p.global_dim[1:], p.global_strides):
        end += (d - 1) * s
    return p.global_address + end


def _valid_case(rng: random.Random, buffer_bytes: int) -> TensorMapParams:
    """A parameter set that meets every documented rule and fits in the buffer."""
    while True:
        dtype = rng.choice(STANDARD_TYPES)
        esize = ELEMENT_BITS[dtype] // 8
        rank = rng.choice([1, 2, 2, 2, 3, 3, 3, 4, 5])
        swizzle = rng.choice([Swizzle.NONE, Swizzle.NONE, Swizzle.B32, Swizzle.B64, Swizzle.B128, Swizzle.B128])
        if swizzle == Swizzle.NONE:
            unit = 16 // esize
            box0 = unit * rng.randint(1, max(1, min(256 // unit, 8)))
        else:
            box0 = _SPAN[swizzle] // esize  # inner box exactly the swizzle span
        box = [box0] + [rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 256, rng.randint(1, 256)]) for _ in range(rank - 1)]
        while box0 * esize * _prod(box[1:]) > 32 * 1024:
            i = rng.randrange(1, rank)
            box[i] = max(1, box[i] // 2)
        dims = [box0 * rng.randint(1, 4) + rng.choice([0, 0, rng.randint(1, 64)])]
        dims += [b + rng.choice([0, rng.randint(0, 8), rng.randint(0, 200)]) for b in box[1:]]
        strides: list[int] = []
        prev = dims[0] * esize
        for d in dims[1:]:
            s = -(-prev // 16) * 16 + 16 * rng.choice([0, 0, 0, 1, 4])
            strides.append(s)
            prev = s * d
        es = [1] + [rng.choice([1, 1, 1, 2, 3, 8]) for _ in range(rank - 1)]
        p = TensorMapParams(int(dtype), rank, 16 * rng.randrange(0, 256), tuple(dims), tuple(strides), tuple(box),
                            tuple(es), int(Interleave.NONE), int(swizzle), rng.randrange(4),
                            1 if dtype in FLOAT_TYPES and rng.random() < 0.3 else 0)
        if _extent(p) <= buffer_bytes and is_valid(p):
            return p


def _prod(xs: list[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def _with(p: TensorMapParams, field: str, index: int, value: int) -> TensorMapParams:
    seq = list(getattr(p, field))
    seq[index] = value
    return replace(p, **{field: tuple(seq)})


def _mutations(rng: random.Random, p: TensorMapParams) -> list[tuple[str, TensorMapParams]]:
    """Ways to break exactly one documented 'must' of a valid parameter set."""
    esize = ELEMENT_BITS[DataType(p.dtype)] // 8
    r = p.rank
    out = [
        ("address-align", replace(p, global_address=p.global_address + rng.choice([1, 2, 4, 8, 12]))),
        ("global-dim-zero", _with(p, "global_dim", rng.randrange(r), 0)),
        ("global-dim-huge", _with(p, "global_dim", rng.randrange(r), rng.choice([(1 << 32) + 1, 1 << 33, 1 << 40]))),
        ("box-dim-zero", _with(p, "box_dim", rng.randrange(r), 0)),
        ("box-dim-over-256", _with(p, "box_dim", rng.randrange(1, r) if r > 1 else 0, rng.choice([257, 300, 512]))),
        ("rank-zero", replace(p, rank=0, global_dim=(), global_strides=(), box_dim=(), element_strides=())),
    ]
    if r > 1:
        i = rng.randrange(r - 1)
        out += [
            ("stride-not-16", _with(p, "global_strides", i, p.global_strides[i] + rng.choice([1, 2, 4, 8]))),
            ("stride-2^40", _with(p, "global_strides", i, (1 << 40) + 16 * rng.randint(1, 1000))),
            ("element-stride-zero", _with(p, "element_strides", rng.randrange(1, r), 0)),
            ("element-stride-over-8", _with(p, "element_strides", rng.randrange(1, r), rng.choice([9, 12, 16]))),
        ]
    if p.swizzle == Swizzle.NONE and esize < 16:
        bad0 = p.box_dim[0] + rng.choice([1, 2, 3]) if esize > 1 else 16 * rng.randint(0, 15) + rng.choice([1, 5, 8])
        if (bad0 * esize) % 16 and bad0 <= 256:
            out.append(("box-inner-16b", _with(p, "box_dim", 0, bad0)))
    if p.swizzle != Swizzle.NONE and 2 * p.box_dim[0] <= 256:
        out.append(("swizzle-span", _with(p, "box_dim", 0, 2 * p.box_dim[0])))
    elif p.swizzle == Swizzle.NONE:
        span = rng.choice([32, 64, 128])
        wide = (span + 16) // esize
        if wide <= 256 and (wide * esize) % 16 == 0:
            sw = {32: Swizzle.B32, 64: Swizzle.B64, 128: Swizzle.B128}[span]
            out.append(("swizzle-span", replace(_with(p, "box_dim", 0, wide), swizzle=int(sw))))
    if r < 3:
        out.append(("rank-interleave", replace(p, interleave=int(Interleave.B16))))
    return out


def random_cases(seed: int = 20261122, count: int = 240, buffer_bytes: int = 64 << 20,
                 invalid_share: float = 0.45) -> list[Case]:
    """`count` counted cases, a mix of valid and singly-broken parameter sets, reproducible by seed."""
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        p = _valid_case(rng, buffer_bytes)
        if rng.random() < invalid_share:
            rule, bad = rng.choice(_mutations(rng, p))
            cases.append(Case(f"rand{n:03d}-{rule}", bad))
        else:
            cases.append(Case(f"rand{n:03d}-valid", p))
    return cases


def seed002_cases() -> list[Case]:
    """Seed 002's create_tma_desc_2d_bf16, as called for Q/K tiles (option B) and whole tensors (option A)."""
    base = 0  # offset into the buffer
    out = [
        Case("seed002-Q-T128-HD128-tile128x16", seed002_params(128, 128, 128, 16, global_address=base)),
        Case("seed002-Q-T128-HD128-tile128x16-sw128", seed002_params(128, 128, 128, 16, "128b", base)),
        Case("seed002-K-s512-HD256-tile128x16", seed002_params(512, 256, 128, 16, global_address=base)),
        Case("seed002-K-whole-s512-HD128", seed002_params(512, 128, 512, 128, global_address=base)),
        Case("seed002-Q-whole-T128-HD512", seed002_params(128, 512, 128, 512, global_address=base)),
        Case("seed002-Q-whole-T128-HD128-sw128", seed002_params(128, 128, 128, 128, "128b", base)),
    ]
    out.append(Case("seed002-decode-T1-tile128x16", seed002_params(1, 128, 128, 16, global_address=base),
                    counted=False, question="is a box taller than the tensor (T=1 decode, tile 128) accepted?"))
    return out


def probe_cases() -> list[Case]:
    """Questions the documentation leaves open; the answers refine the model, they are not scored."""
    bf16 = int(DataType.BFLOAT16)
    p = TensorMapParams(bf16, 2, 0, (64, 128), (128,), (64, 64), (1, 1), 0, int(Swizzle.B128), 0, 0)
    q = []

    def probe(name: str, params: TensorMapParams, question: str) -> None:
        q.append(Case(f"probe-{name}", params, counted=False, question=question))

    probe("box-over-dim", replace(p, global_dim=(64, 16)), "box taller than the tensor")
    probe("inner-below-span", replace(p, box_dim=(32, 64)), "64-byte inner box with SWIZZLE_128B")
    probe("inner-16-sw128", replace(p, box_dim=(8, 64)), "16-byte inner box with SWIZZLE_128B")
    probe("stride-overlap", replace(p, global_strides=(64,)), "globalStrides[0] smaller than a row")
    probe("stride-descending", TensorMapParams(bf16, 3, 0, (64, 8, 8), (4096, 128), (64, 8, 8), (1, 1, 1), 0, 3, 0, 0),
          "stride of dim 2 smaller than dim 1's")
    probe("stride-zero", replace(p, global_strides=(0,)), "a zero (broadcast) stride")
    probe("stride-exactly-2^40", replace(p, global_strides=(1 << 40,)), "stride == 2^40 (doc: < 2^40)")
    probe("dim-exactly-2^32", replace(p, global_dim=(64, 1 << 32)), "globalDim == 2^32 (doc: <= 2^32)")
    probe("elemstride0-zero", replace(p, element_strides=(0, 1)), "elementStrides[0] = 0 with INTERLEAVE_NONE")
    probe("elemstride0-nine", replace(p, element_strides=(9, 1)), "elementStrides[0] = 9 with INTERLEAVE_NONE")
    probe("oob-nan-int", replace(p, dtype=int(DataType.UINT16), oob_fill=1), "NaN OOB fill with an integer type")
    for sw in (Swizzle.B128_ATOM_32B, Swizzle.B128_ATOM_32B_FLIP_8B, Swizzle.B128_ATOM_64B):
        probe(f"swizzle-{int(sw)}", replace(p, swizzle=int(sw)), f"{sw.name} on this GPU")
    probe("u4-align8b", TensorMapParams(int(DataType.U4_16_ALIGN8B), 2, 0, (256, 64), (128,), (256, 16), (1, 1), 0, 0,
                                        0, 0), "16U4_ALIGN8B on this GPU")
    probe("u4-align16b", TensorMapParams(int(DataType.U4_16_ALIGN16B), 2, 0, (256, 64), (256,), (128, 16), (1, 1), 0,
                                         0, 0, 0), "16U4_ALIGN16B on this GPU")
    probe("u6-align16b", TensorMapParams(int(DataType.U6_16_ALIGN16B), 2, 0, (256, 64), (256,), (128, 16), (1, 1), 0,
                                         0, 0, 0), "16U6_ALIGN16B on this GPU")
    probe("interleave16-rank3", TensorMapParams(bf16, 3, 0, (8, 64, 64), (16, 1024), (8, 32, 8), (1, 1, 1),
                                                int(Interleave.B16), 0, 0, 0), "a plain INTERLEAVE_16B map")
    probe("interleave32-sw32", TensorMapParams(bf16, 3, 0, (16, 64, 64), (32, 2048), (16, 32, 8), (1, 1, 1),
                                               int(Interleave.B32), int(Swizzle.B32), 0, 0),
          "a plain INTERLEAVE_32B + SWIZZLE_32B map")
    probe("interleave32-sw128", TensorMapParams(bf16, 3, 0, (16, 64, 64), (32, 2048), (16, 32, 8), (1, 1, 1),
                                                int(Interleave.B32), int(Swizzle.B128), 0, 0),
          "INTERLEAVE_32B with SWIZZLE_128B (doc: must be 32B)")
    probe("box-256KiB", TensorMapParams(int(DataType.FLOAT32), 3, 0, (256, 256, 4), (1024, 262144),
                                        (32, 256, 4), (1, 1, 1), 0, 0, 0, 0), "a box far larger than shared memory")
    probe("rank-6", TensorMapParams(bf16, 6, 0, (64, 2, 2, 2, 2), (128, 256, 512, 1024), (64, 2, 2, 2, 2),
                                    (1, 1, 1, 1, 1), 0, 0, 0, 0), "tensorRank 6 (arrays hold 5)")
    return q


@dataclass(frozen=True)
class Outcome:
    case: Case
    model_ok: bool
    rules: tuple[str, ...]
    driver_ok: bool | None
    driver_name: str
    params: TensorMapParams  # as sent: globalAddress rebased onto the runner's buffer

    @property
    def agree(self) -> bool:
        return self.driver_ok is not None and self.driver_ok == self.model_ok

    def line(self) -> str:
        verdict = "valid" if self.model_ok else "invalid (" + ", ".join(self.rules) + ")"
        return f"{self.case.name}: model {verdict}; driver {self.driver_name}"


def run(cases: list[Case], encode: Callable[[TensorMapParams], tuple[bool, str]], base: int = 0) -> list[Outcome]:
    """Validate each case with the model and encode it with `encode` (address rebased onto `base`).

    `encode` returns (ok, name); it may raise, which counts as a harness failure (driver_ok None).
    """
    out = []
    for case in cases:
        p = replace(case.params, global_address=base + case.params.global_address)
        errors = tuple(pr.code for pr in validate(p) if pr.severity == "error")
        try:
            ok, name = encode(p)
        except Exception as exc:  # noqa: BLE001 - recorded, not hidden
            ok, name = None, f"harness error: {type(exc).__name__}: {exc}"
        out.append(Outcome(case, not errors, errors, ok, name, p))
    return out


def summary_line(outcomes: list[Outcome]) -> str:
    counted = [o for o in outcomes if o.case.counted]
    agree = sum(o.agree for o in counted)
    valid = sum(o.model_ok for o in counted)
    return f"tma agreement: {agree}/{len(counted)} agree (valid {valid}, invalid {len(counted) - valid})"
