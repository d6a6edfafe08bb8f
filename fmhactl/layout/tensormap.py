"""A validator for cuTensorMapEncodeTiled parameters that names every rule a call breaks.

Spec §8.1 (CUDA Driver API 13.4 requirements, rows 1-13). The driver only ever answers
CUDA_ERROR_INVALID_VALUE; `check_rules` says which documented requirement fails. Parameters are
the driver's own: sizes innermost first, `global_strides` has rank-1 byte strides (dimension 0's
is implicit), enums by value or CUDA name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from math import ceil, prod

from fmhactl.layout.common import LayoutError, Problem, parse_int


class DataType(IntEnum):
    UINT8 = 0
    UINT16 = 1
    UINT32 = 2
    INT32 = 3
    UINT64 = 4
    INT64 = 5
    FLOAT16 = 6
    FLOAT32 = 7
    FLOAT64 = 8
    BFLOAT16 = 9
    FLOAT32_FTZ = 10
    TFLOAT32 = 11
    TFLOAT32_FTZ = 12
    U4_16_ALIGN8B = 13  # CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B
    U4_16_ALIGN16B = 14  # CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B
    U6_16_ALIGN16B = 15  # CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B


class Interleave(IntEnum):
    NONE = 0
    B16 = 1
    B32 = 2


class Swizzle(IntEnum):
    NONE = 0
    B32 = 1
    B64 = 2
    B128 = 3
    B128_ATOM_32B = 4
    B128_ATOM_32B_FLIP_8B = 5
    B128_ATOM_64B = 6


class L2Promotion(IntEnum):
    NONE = 0
    L2_64B = 1
    L2_128B = 2
    L2_256B = 3


class OobFill(IntEnum):
    NONE = 0
    NAN_REQUEST_ZERO_FMA = 1


# Memory bits per element (packed types: 16 values in 8 or 16 bytes, dims count single values).
ELEMENT_BITS = {
    DataType.UINT8: 8, DataType.UINT16: 16, DataType.UINT32: 32, DataType.INT32: 32, DataType.UINT64: 64,
    DataType.INT64: 64, DataType.FLOAT16: 16, DataType.FLOAT32: 32, DataType.FLOAT64: 64, DataType.BFLOAT16: 16,
    DataType.FLOAT32_FTZ: 32, DataType.TFLOAT32: 32, DataType.TFLOAT32_FTZ: 32, DataType.U4_16_ALIGN8B: 4,
    DataType.U4_16_ALIGN16B: 8, DataType.U6_16_ALIGN16B: 8,
}
FLOAT_TYPES = {DataType.FLOAT16, DataType.FLOAT32, DataType.FLOAT64, DataType.BFLOAT16, DataType.FLOAT32_FTZ,
               DataType.TFLOAT32, DataType.TFLOAT32_FTZ}
PACKED_TYPES = {DataType.U4_16_ALIGN8B, DataType.U4_16_ALIGN16B, DataType.U6_16_ALIGN16B}
ALIGN16B_TYPES = {DataType.U4_16_ALIGN16B, DataType.U6_16_ALIGN16B}
SWIZZLE_SPAN = {Swizzle.B32: 32, Swizzle.B64: 64, Swizzle.B128: 128, Swizzle.B128_ATOM_32B: 128,
                Swizzle.B128_ATOM_32B_FLIP_8B: 128, Swizzle.B128_ATOM_64B: 128}
SMEM_REPEAT = {Swizzle.B32: 256, Swizzle.B64: 512, Swizzle.B128: 1024, Swizzle.B128_ATOM_32B: 1024,
               Swizzle.B128_ATOM_32B_FLIP_8B: 1024, Swizzle.B128_ATOM_64B: 1024}

@dataclass(frozen=True)
class ParamField:
    """One cuTensorMapEncodeTiled parameter, declared once (spec §8.1): the range rules, the CLI
    options' help, the JSON/TUI field view and the TMA form all read these entries."""

    name: str  # the driver's parameter name
    attr: str  # TensorMapParams attribute
    option: str  # the `fmhactl tma check` flag
    meaning: str
    lo: int | None = None  # every entry in lo..hi (inclusive)
    hi: int | None = None
    enum: type[IntEnum] | None = None
    array: bool = False

    @property
    def allowed(self) -> str:
        if self.enum is not None:
            return ", ".join(f"{int(e)} {e.name}" for e in self.enum)
        if self.lo is not None and self.hi is not None:
            return self.span + (" per entry" if self.array else "")
        return "any"

    @property
    def span(self) -> str:
        return f"{self.lo}..{_pow2(self.hi)}" if self.lo is not None and self.hi is not None else "any"

    def out_of_range(self, values: tuple[int, ...]) -> list[str]:
        """Entries outside lo..hi, as "name[i] = v" (the -range rules' details)."""
        assert self.lo is not None and self.hi is not None
        return [f"{self.name}[{i}] = {v}" if self.array else f"{self.name} is {v}"
                for i, v in enumerate(values) if not self.lo <= v <= self.hi]


def _pow2(v: int) -> str:
    return f"2^{v.bit_length() - 1}" if v > 4096 and v & (v - 1) == 0 else (
        f"2^{(v + 1).bit_length() - 1}-1" if v > 4096 and (v + 1) & v == 0 else str(v))


TENSOR_MAP_FIELDS: tuple[ParamField, ...] = (
    ParamField("tensorDataType", "dtype", "--dtype", "element type", enum=DataType),
    ParamField("tensorRank", "rank", "--rank", "number of dimensions", 1, 5),
    ParamField("globalAddress", "global_address", "--address", "start of the tensor (16-B aligned; 32 B for "
               "INTERLEAVE_32B and the *_ALIGN16B types)"),
    ParamField("globalDim", "global_dim", "--dims", "elements per dimension, innermost first", 1, 1 << 32,
               array=True),
    ParamField("globalStrides", "global_strides", "--strides", "byte strides of dimensions 1..rank-1 (multiples of "
               "16, or 32)", 0, (1 << 40) - 1, array=True),
    ParamField("boxDim", "box_dim", "--box", "elements per dimension of one load", 1, 256, array=True),
    ParamField("elementStrides", "element_strides", "--elem-strides", "traversal step per dimension", 1, 8,
               array=True),
    ParamField("interleave", "interleave", "--interleave", "interleaved layout", enum=Interleave),
    ParamField("swizzle", "swizzle", "--swizzle", "shared-memory swizzle of the box", enum=Swizzle),
    ParamField("l2Promotion", "l2_promotion", "--l2", "L2 promotion size", enum=L2Promotion),
    ParamField("oobFill", "oob_fill", "--oob", "out-of-bounds fill", enum=OobFill),
    ParamField("tensorMap", "map_address", "--map-address", "address of the CUtensorMap object (64-B aligned)"),
)
PARAM = {f.name: f for f in TENSOR_MAP_FIELDS}


_PREFIX = {DataType: "CU_TENSOR_MAP_DATA_TYPE_", Interleave: "CU_TENSOR_MAP_INTERLEAVE_",
           Swizzle: "CU_TENSOR_MAP_SWIZZLE_", L2Promotion: "CU_TENSOR_MAP_L2_PROMOTION_",
           OobFill: "CU_TENSOR_MAP_FLOAT_OOB_FILL_"}
_SHORT = {
    DataType: {"u8": 0, "u16": 1, "u32": 2, "s32": 3, "i32": 3, "u64": 4, "s64": 5, "i64": 5, "f16": 6, "fp16": 6,
               "half": 6, "f32": 7, "fp32": 7, "float": 7, "f64": 8, "fp64": 8, "double": 8, "bf16": 9,
               "f32_ftz": 10, "tf32": 11, "tf32_ftz": 12, "16u4_align8b": 13, "16u4_align16b": 14,
               "16u6_align16b": 15},
    Interleave: {"16b": 1, "32b": 2, "none": 0},
    Swizzle: {"none": 0, "32b": 1, "64b": 2, "128b": 3, "128b_atom_32b": 4, "128b_atom_32b_flip_8b": 5,
              "128b_atom_64b": 6},
    L2Promotion: {"none": 0, "64b": 1, "l2_64b": 1, "128b": 2, "l2_128b": 2, "256b": 3, "l2_256b": 3},
    OobFill: {"none": 0, "nan": 1, "nan_request_zero_fma": 1, "zero": 0},
}


def cuda_name(enum_value: IntEnum) -> str:
    """The CUDA spelling, e.g. CU_TENSOR_MAP_DATA_TYPE_BFLOAT16."""
    name = enum_value.name
    if isinstance(enum_value, DataType) and enum_value in PACKED_TYPES:
        name = {13: "16U4_ALIGN8B", 14: "16U4_ALIGN16B", 15: "16U6_ALIGN16B"}[int(enum_value)]
    if isinstance(enum_value, (Interleave, Swizzle)) and name != "NONE":
        name = name[1:] + "B" if name[1:].isdigit() else name[1:].replace("_ATOM", "B_ATOM", 1)
    return _PREFIX[type(enum_value)] + name


def parse_enum(kind: type[IntEnum], text: str | int) -> IntEnum:
    """Accept a value (9), a short name (bf16, 128B) or the CUDA name (CU_TENSOR_MAP_DATA_TYPE_BFLOAT16)."""
    if isinstance(text, int):
        value = text
    else:
        key = str(text).strip()
        upper = key.upper()
        if upper.startswith(_PREFIX[kind]):
            key = upper[len(_PREFIX[kind]):]
        lowered = key.lower()
        by_cuda = {cuda_name(e)[len(_PREFIX[kind]):].lower(): int(e) for e in kind}
        if lowered in _SHORT[kind]:
            value = _SHORT[kind][lowered]
        elif lowered in by_cuda:
            value = by_cuda[lowered]
        else:
            try:
                value = int(key, 0)
            except ValueError:
                names = ", ".join(sorted(by_cuda))
                raise LayoutError(f"unknown {kind.__name__} {text!r} (one of {names}, or its number)") from None
    try:
        return kind(value)
    except ValueError:
        raise LayoutError(f"{kind.__name__} value {value} is not a CUDA enum value "
                          f"(0..{max(int(e) for e in kind)})") from None


@dataclass(frozen=True)
class TensorMapParams:
    dtype: int
    rank: int
    global_address: int
    global_dim: tuple[int, ...]
    global_strides: tuple[int, ...]
    box_dim: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: int = 0
    swizzle: int = 0
    l2_promotion: int = 0
    oob_fill: int = 0
    map_address: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {"tensorDataType": self.dtype, "tensorRank": self.rank, "globalAddress": hex(self.global_address),
                "globalDim": list(self.global_dim), "globalStrides": list(self.global_strides),
                "boxDim": list(self.box_dim), "elementStrides": list(self.element_strides),
                "interleave": self.interleave, "swizzle": self.swizzle, "l2Promotion": self.l2_promotion,
                "oobFill": self.oob_fill,
                "tensorMap": None if self.map_address is None else hex(self.map_address)}

    def c_call(self) -> str:
        """The call as C source, for bug reports."""
        def enum(kind: type[IntEnum], v: int) -> str:
            try:
                return cuda_name(kind(v))
            except ValueError:
                return f"({kind.__name__}){v}"
        arr = lambda xs: "{" + ", ".join(str(x) for x in xs) + "}"  # noqa: E731
        return (f"cuTensorMapEncodeTiled(&map, {enum(DataType, self.dtype)}, {self.rank}, "
                f"(void*){hex(self.global_address)}, "
                f"dims={arr(self.global_dim)}, strides={arr(self.global_strides)}, box={arr(self.box_dim)}, "
                f"elementStrides={arr(self.element_strides)}, {enum(Interleave, self.interleave)}, "
                f"{enum(Swizzle, self.swizzle)}, {enum(L2Promotion, self.l2_promotion)}, "
                f"{enum(OobFill, self.oob_fill)})")


@dataclass(frozen=True)
class RuleResult:
    rule: str  # stable id, e.g. "box-dim-range"
    param: str  # the driver's parameter name
    statement: str  # the documented requirement
    status: str  # "ok", "violated", "warning", "n/a"
    detail: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "param": self.param, "statement": self.statement, "status": self.status,
                "detail": self.detail}


@dataclass
class _Checker:
    p: TensorMapParams
    results: list[RuleResult] = field(default_factory=list)

    def add(self, rule: str, param: str, statement: str, bad: list[str] | None, applies: bool = True,
            severity: str = "violated") -> None:
        if not applies:
            self.results.append(RuleResult(rule, param, statement, "n/a"))
        elif bad:
            self.results.append(RuleResult(rule, param, statement, severity, "; ".join(bad)))
        else:
            self.results.append(RuleResult(rule, param, statement, "ok"))


def _enum_or_none(kind: type[IntEnum], v: int) -> IntEnum | None:
    try:
        return kind(v)
    except ValueError:
        return None


def check_rules(p: TensorMapParams) -> list[RuleResult]:
    """Every documented requirement with its status for these parameters."""
    c = _Checker(p)
    dtype = _enum_or_none(DataType, p.dtype)
    inter = _enum_or_none(Interleave, p.interleave)
    swz = _enum_or_none(Swizzle, p.swizzle)
    bits = ELEMENT_BITS.get(dtype) if dtype is not None else None
    rank_ok = not PARAM["tensorRank"].out_of_range((p.rank,))

    if p.map_address is None:
        c.add("map-align", "tensorMap", "address aligned to 64 bytes", None, applies=False)
    else:
        c.add("map-align", "tensorMap", "address aligned to 64 bytes",
              [f"0x{p.map_address:x} is {p.map_address % 64} bytes past a 64-byte boundary "
               "(declare the CUtensorMap alignas(64), or take cuda.h's type)"] if p.map_address % 64 else None)
        c.add("map-align-128", "tensorMap", "128-byte alignment preferred (CUtensorMap struct doc)",
              [f"0x{p.map_address:x} is 64- but not 128-byte aligned"] if p.map_address % 64 == 0
              and p.map_address % 128 else None, severity="warning")
    c.add("data-type", "tensorDataType", "a CUtensorMapDataType value (0..15)",
          None if dtype is not None else [f"{p.dtype} is not a CUtensorMapDataType"])
    c.add("rank-range", "tensorRank", f"tensorRank in {PARAM['tensorRank'].span}",
          PARAM["tensorRank"].out_of_range((p.rank,)))
    c.add("rank-interleave", "tensorRank", "tensorRank >= 3 when interleave != NONE",
          [f"tensorRank {p.rank} with {cuda_name(inter)}"] if inter not in (None, Interleave.NONE) and p.rank < 3
          else None, applies=inter not in (None, Interleave.NONE))
    lengths = []
    for name, seq, want in (("globalDim", p.global_dim, p.rank), ("globalStrides", p.global_strides, p.rank - 1),
                            ("boxDim", p.box_dim, p.rank), ("elementStrides", p.element_strides, p.rank)):
        if rank_ok and len(seq) != max(want, 0):
            lengths.append(f"{name} has {len(seq)} entries, tensorRank {p.rank} needs {max(want, 0)}")
    c.add("array-lengths", "globalDim/globalStrides/boxDim/elementStrides",
          "rank entries each (rank-1 strides: dimension 0's stride is implicit)", lengths, applies=rank_ok)

    need32 = inter == Interleave.B32 or dtype in ALIGN16B_TYPES
    align = 32 if need32 else 16
    c.add("address-align", "globalAddress",
          "16-byte aligned (32 with INTERLEAVE_32B or the *_ALIGN16B types)",
          [f"0x{p.global_address:x} is {p.global_address % align} bytes past a {align}-byte boundary"]
          if p.global_address % align else None)

    c.add("global-dim-range", "globalDim", f"every entry in {PARAM['globalDim'].span}",
          PARAM["globalDim"].out_of_range(p.global_dim))
    if dtype in PACKED_TYPES and p.global_dim:
        mult = 2 if dtype == DataType.U4_16_ALIGN8B else 128
        c.add("global-dim-packed", "globalDim", f"globalDim[0] a multiple of {mult} for {cuda_name(dtype)}",
              [f"globalDim[0] = {p.global_dim[0]}"] if p.global_dim[0] % mult else None)

    smult = 32 if need32 else 16
    bad = [f"globalStrides[{i}] = {s}" + (f" (= {s % smult} mod {smult})" if s % smult else " (>= 2^40)")
           for i, s in enumerate(p.global_strides) if s % smult or PARAM["globalStrides"].out_of_range((s,))]
    c.add("global-stride", "globalStrides", f"every entry a multiple of {smult} in {PARAM['globalStrides'].span}",
          bad)
    if bits is not None and p.global_strides and p.global_dim and rank_ok:
        warn = []
        row = ceil(p.global_dim[0] * bits / 8)
        if p.global_strides[0] < row:
            warn.append(f"globalStrides[0] = {p.global_strides[0]} < globalDim[0] x element size = {row}: rows overlap")
        for i in range(1, min(len(p.global_strides), len(p.global_dim) - 1)):
            span = p.global_strides[i - 1] * p.global_dim[i]
            if p.global_strides[i] < span:
                warn.append(f"globalStrides[{i}] = {p.global_strides[i]} < globalStrides[{i - 1}] x globalDim[{i}] "
                            f"= {span}: dimension {i + 1} overlaps dimension {i}")
        c.add("stride-padding", "globalStrides",
              "each stride covers the previous dimension (the doc's padding formula; not known to be enforced)",
              warn, severity="warning")

    c.add("box-dim-range", "boxDim", f"every entry in {PARAM['boxDim'].span}", PARAM["boxDim"].out_of_range(p.box_dim))
    inner = p.box_dim[0] * bits / 8 if bits is not None and p.box_dim else None
    c.add("box-inner-16b", "boxDim", "boxDim[0] x element size a multiple of 16 bytes when interleave is NONE",
          [f"boxDim[0] x element size = {inner:g} bytes"] if inner is not None and inner % 16 else None,
          applies=inter == Interleave.NONE and inner is not None)
    if dtype in ALIGN16B_TYPES:
        c.add("box-packed", "boxDim", f"boxDim[0] == 128 for {cuda_name(dtype)}",
              [f"boxDim[0] = {p.box_dim[0]}"] if p.box_dim and p.box_dim[0] != 128 else None)

    bad = []
    for i, e in enumerate(p.element_strides):
        if PARAM["elementStrides"].out_of_range((e,)):
            note = " (ignored by TMA when interleave is NONE, but the driver doc still requires 1..8)" \
                if i == 0 and inter == Interleave.NONE else ""
            bad.append(f"elementStrides[{i}] = {e}{note}")
    c.add("element-stride-range", "elementStrides", f"every entry in {PARAM['elementStrides'].span}", bad)

    c.add("interleave-enum", "interleave", "NONE, 16B or 32B", None if inter is not None
          else [f"{p.interleave} is not a CUtensorMapInterleave"])
    c.add("swizzle-enum", "swizzle", "a CUtensorMapSwizzle value (0..6)", None if swz is not None
          else [f"{p.swizzle} is not a CUtensorMapSwizzle"])
    c.add("interleave32-swizzle", "swizzle", "INTERLEAVE_32B requires SWIZZLE_32B",
          [f"swizzle is {cuda_name(swz) if swz is not None else p.swizzle}"] if swz != Swizzle.B32 else None,
          applies=inter == Interleave.B32)
    span = SWIZZLE_SPAN.get(swz) if swz is not None else None
    c.add("swizzle-span", "boxDim/swizzle",
          "inner box bytes (boxDim[0] x element size) <= swizzle span (32/64/128) when interleave is NONE",
          [f"inner box is {inner:g} bytes, {cuda_name(swz)} spans {span}"] if span and inner and inner > span
          else None, applies=inter == Interleave.NONE and span is not None and inner is not None)
    if dtype == DataType.U6_16_ALIGN16B:
        allowed = {Swizzle.NONE, Swizzle.B128, Swizzle.B128_ATOM_32B, Swizzle.B128_ATOM_64B}
        c.add("packed-swizzle", "swizzle", "16U6_ALIGN16B: NONE, 128B, 128B_ATOM_32B, 128B_ATOM_64B (store only)",
              [f"{cuda_name(swz) if swz is not None else p.swizzle} not allowed"] if swz not in allowed else None)
        c.add("packed-interleave", "interleave", "16U6_ALIGN16B requires INTERLEAVE_NONE",
              [f"interleave is {p.interleave}"] if inter != Interleave.NONE else None)
    if dtype == DataType.U4_16_ALIGN16B:
        allowed = {Swizzle.NONE, Swizzle.B128, Swizzle.B128_ATOM_32B}
        c.add("packed-swizzle", "swizzle", "16U4_ALIGN16B: NONE, 128B, 128B_ATOM_32B (loads only)",
              [f"{cuda_name(swz) if swz is not None else p.swizzle} not allowed"] if swz not in allowed else None)
    c.add("l2-enum", "l2Promotion", "NONE, L2_64B, L2_128B or L2_256B",
          None if _enum_or_none(L2Promotion, p.l2_promotion) is not None
          else [f"{p.l2_promotion} is not a CUtensorMapL2promotion"])
    oob = _enum_or_none(OobFill, p.oob_fill)
    c.add("oob-enum", "oobFill", "NONE or NAN_REQUEST_ZERO_FMA",
          None if oob is not None else [f"{p.oob_fill} is not a CUtensorMapFloatOOBfill"])
    c.add("oob-nan-float", "oobFill", "NAN_REQUEST_ZERO_FMA only for floating-point, non-packed types",
          [f"{cuda_name(dtype) if dtype is not None else p.dtype} is not a floating-point type"]
          if dtype not in FLOAT_TYPES else None, applies=oob == OobFill.NAN_REQUEST_ZERO_FMA)
    sm100_only = []
    if swz in (Swizzle.B128_ATOM_32B, Swizzle.B128_ATOM_32B_FLIP_8B, Swizzle.B128_ATOM_64B):
        sm100_only.append(f"{cuda_name(swz)}")
    if dtype in PACKED_TYPES:
        sm100_only.append(f"{cuda_name(dtype)}")
    c.add("arch-sm100", "tensorDataType/swizzle", "types and swizzles new with SM100 (support on sm_90 undocumented)",
          [f"{', '.join(sm100_only)} may be refused on sm_90"] if sm100_only else None, severity="warning")
    return c.results


def validate(p: TensorMapParams) -> list[Problem]:
    """Violations (severity "error") and warnings, each named by its rule id."""
    out = []
    for r in check_rules(p):
        if r.status == "violated":
            out.append(Problem(r.rule, f"{r.param}: {r.statement} - {r.detail}"))
        elif r.status == "warning":
            out.append(Problem(r.rule, f"{r.param}: {r.detail}", "warning"))
    return out


def is_valid(p: TensorMapParams) -> bool:
    return not any(pr.severity == "error" for pr in validate(p))


@dataclass(frozen=True)
class BoxSummary:
    element_bits: int
    inner_box_bytes: float
    elements_per_dim: tuple[int, ...]
    box_bytes: int
    smem_alignment: int

    def as_dict(self) -> dict[str, object]:
        return {"element_bits": self.element_bits, "inner_box_bytes": self.inner_box_bytes,
                "elements_per_dim": list(self.elements_per_dim), "box_bytes": self.box_bytes,
                "smem_alignment": self.smem_alignment}


def box_summary(p: TensorMapParams) -> BoxSummary | None:
    """What one TMA load with this map moves (the expect-tx byte count is always the full box)."""
    try:
        dtype = DataType(p.dtype)
        swz = Swizzle(p.swizzle)
    except ValueError:
        return None
    if not p.box_dim or len(p.element_strides) != len(p.box_dim) or 0 in p.element_strides:
        return None
    bits = ELEMENT_BITS[dtype]
    per_dim = tuple(b if i == 0 and p.interleave == Interleave.NONE else ceil(b / e)
                    for i, (b, e) in enumerate(zip(p.box_dim, p.element_strides)))
    return BoxSummary(bits, p.box_dim[0] * bits / 8, per_dim, int(prod(per_dim) * bits // 8),
                      max(128, SMEM_REPEAT.get(swz, 128)))


def make_params(dtype: str | int, global_dim: list[int], global_strides: list[int], box_dim: list[int],
                element_strides: list[int] | None = None, rank: int | None = None, global_address: int = 0,
                interleave: str | int = 0, swizzle: str | int = 0, l2_promotion: str | int = 0,
                oob_fill: str | int = 0, map_address: int | None = None) -> TensorMapParams:
    """Parameters from friendly spellings; nothing is validated beyond parsing the enums' names.

    Unknown enum numbers are kept (the validator names them); unknown names are refused.
    """
    def enum_value(kind: type[IntEnum], v: str | int) -> int:
        try:
            return parse_int(v)
        except LayoutError:
            return int(parse_enum(kind, v))
    r = len(global_dim) if rank is None else rank
    es = list(element_strides) if element_strides is not None else [1] * len(box_dim)
    return TensorMapParams(enum_value(DataType, dtype), r, global_address, tuple(global_dim), tuple(global_strides),
                           tuple(box_dim), tuple(es), enum_value(Interleave, interleave),
                           enum_value(Swizzle, swizzle), enum_value(L2Promotion, l2_promotion),
                           enum_value(OobFill, oob_fill), map_address)


def seed002_params(rows: int = 128, cols: int = 128, tile_rows: int = 128, tile_cols: int = 16,
                   swizzle: str | int = "none", global_address: int = 0x7F0000000000) -> TensorMapParams:
    """create_tma_desc_2d_bf16 from seed 002: a 3-D view {cols, rows, 1} of a row-major bf16 matrix."""
    return make_params("bf16", [cols, rows, 1], [cols * 2, cols * 2 * rows], [tile_cols, tile_rows, 1], [1, 1, 1],
                       rank=3, global_address=global_address, swizzle=swizzle)
