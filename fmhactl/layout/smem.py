"""Canonical shared-memory operand layouts of UMMA (tcgen05.mma) and GMMA (wgmma).

Spec §5: `desc_offset` is what one descriptor means (element (mn, k) -> byte address, §5.2),
`swizzle_addr` the XOR on absolute addresses (§5.3) and `TileLayout` a whole operand tile as TMA
writes it, with the descriptor of every MMA k-block (§5.5). Rows index M (or N), columns index K,
whatever the major-ness; "K-major" means K is contiguous.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from fmhactl.layout.common import SMEM_LIMIT, LayoutError, Problem, canonical_dtype, dtype_bytes
from fmhactl.layout.canonical import CORE_BYTES, _unswizzled, desc_offset
from fmhactl.layout.descriptors import element_address, encode_smem_desc  # noqa: F401 - re-exported
from fmhactl.layout.swizzle import (  # noqa: F401 - re-exported: the swizzle arithmetic lives in swizzle.py
    NONE,
    SMEM_BANKS,
    SW32,
    SW64,
    SW128,
    SW128_BASE32B,
    SWIZZLES,
    SwizzleMode,
    bank_of,
    parse_major,
    parse_swizzle,
    swizzle_addr,
    swizzle_from_umma_code,
    swizzle_from_wgmma_code,
)

CORE_ROWS = 8
MMA_K_BYTES = 32  # every kind::f16/tf32 MMA consumes 256 bits of K


def canonical_offset(major: str, swizzle: str | SwizzleMode, row: int, k: int, dtype_bytes: int,
                     lbo: int, sbo: int, start: int = 0) -> int:
    """Alias of `desc_offset` under the name the brief uses (row = M/N index)."""
    return desc_offset(major, swizzle, row, k, dtype_bytes, lbo, sbo, start)


class ElementPlace(NamedTuple):
    row: int
    k: int
    addr: int  # physical (swizzled) absolute byte address
    logical: int  # address before the swizzle XOR
    core_row: int  # core matrix (8 rows x 16 B) coordinates in the canonical layout
    core_col: int
    bank: int

    @property
    def chunk(self) -> int:
        """16-byte chunk of the 128-byte line the element physically lands in."""
        return (self.addr // 16) % 8

    def as_dict(self) -> dict[str, int]:
        return {"row": self.row, "k": self.k, "addr": self.addr, "logical_addr": self.logical,
                "core_row": self.core_row, "core_col": self.core_col, "bank": self.bank, "chunk": self.chunk}

    def json_line(self) -> str:
        return (f'{{"row": {self.row}, "k": {self.k}, "addr": {self.addr}, "logical_addr": {self.logical}, '
                f'"core_row": {self.core_row}, "core_col": {self.core_col}, "bank": {self.bank}, '
                f'"chunk": {(self.addr >> 4) & 7}}}')


@dataclass(frozen=True)
class MmaSlice:
    """The descriptor fields of the MMA that consumes k-block `kb` (K = 32 bytes of elements)."""

    kb: int
    k0: int
    start: int
    lbo: int
    sbo: int
    swizzle: SwizzleMode

    def descriptor(self) -> int:
        return encode_smem_desc(self.start, self.lbo, self.sbo, self.swizzle)


@dataclass(frozen=True)
class TileLayout:
    """One operand tile in shared memory: rows (M or N) x cols (K) elements in a canonical layout.

    `k_atom_stride` (K-major swizzled only) is the byte distance between swizzle-atom columns along
    K; the descriptor does not encode it: each MMA's start address steps over it.
    """

    major: str
    swizzle: SwizzleMode
    rows: int
    cols: int
    elem_bytes: int
    lbo: int
    sbo: int
    k_atom_stride: int = 0
    base: int = 0
    dtype: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def mma_k(self) -> int:
        return MMA_K_BYTES // self.elem_bytes

    @property
    def elems_per_core_row(self) -> int:
        return CORE_BYTES // self.elem_bytes

    def _check(self, row: int, k: int) -> None:
        if not (0 <= row < self.rows and 0 <= k < self.cols):
            raise LayoutError(f"element ({row}, {k}) outside the {self.rows} x {self.cols} tile")

    def logical_offset(self, row: int, k: int) -> int:
        self._check(row, k)
        e = self.elem_bytes
        if self.major == "K" and self.swizzle.swizzled:
            per_atom = self.swizzle.width // e
            return _unswizzled("K", self.swizzle, row, k % per_atom, e, self.lbo, self.sbo,
                               self.base + (k // per_atom) * self.k_atom_stride)
        return _unswizzled(self.major, self.swizzle, row, k, e, self.lbo, self.sbo, self.base)

    def offset(self, row: int, k: int) -> int:
        """Physical (swizzled) absolute byte address of element (row, k)."""
        if 0 <= row < self.rows and 0 <= k < self.cols:
            return self._table[row][k]
        return self.swizzle.apply(self.logical_offset(row, k))  # raises with a message

    @cached_property
    def _table(self) -> list[list[int]]:
        """All physical addresses, row by row (built once: the map and bank tools look up thousands)."""
        apply = self.swizzle.apply
        origin = self.logical_offset(0, 0)
        # every canonical layout is a sum of a row term and a k term before the swizzle
        row_part = [self.logical_offset(r, 0) for r in range(self.rows)]
        k_part = [self.logical_offset(0, k) - origin for k in range(self.cols)]
        return [[apply(rp + kp) for kp in k_part] for rp in row_part]

    def place(self, row: int, k: int) -> ElementPlace:
        logical = self.logical_offset(row, k)
        addr = self.swizzle.apply(logical)
        t = self.elems_per_core_row
        core = (row // 8, k // t) if self.major == "K" else (row // t, k // 8)
        return ElementPlace(row, k, addr, logical, core[0], core[1], bank_of(addr))

    def places(self) -> list[ElementPlace]:
        """Every element, row by row (built from per-row and per-k terms: tens of thousands are cheap)."""
        origin = self.logical_offset(0, 0)
        row_part = [self.logical_offset(r, 0) for r in range(self.rows)]
        k_part = [self.logical_offset(0, k) - origin for k in range(self.cols)]
        t = self.elems_per_core_row
        apply, make = self.swizzle.apply, tuple.__new__
        k_major = self.major == "K"
        out = []
        for r, rp in enumerate(row_part):
            for k, kp in enumerate(k_part):
                logical = rp + kp
                addr = apply(logical)
                core = (r >> 3, k // t) if k_major else (r // t, k >> 3)
                out.append(make(ElementPlace, (r, k, addr, logical, core[0], core[1], (addr >> 2) & 31)))
        return out

    @cached_property
    def _inverse(self) -> dict[int, tuple[int, int]]:
        return {a: (r, k) for r, row in enumerate(self._table) for k, a in enumerate(row)}

    def element_at(self, addr: int) -> tuple[int, int] | None:
        """Inverse map: the element whose first byte is at physical address `addr` (None if none)."""
        return self._inverse.get(addr)

    def footprint(self) -> int:
        """Bytes from the tile base to one past its last element."""
        return max(self._inverse) + self.elem_bytes - self.base

    def problems(self) -> list[Problem]:
        out: list[Problem] = []
        if self.base % CORE_BYTES:
            out.append(Problem("base-align", f"tile base 0x{self.base:x} is not 16-byte aligned"))
        elif self.swizzle.swizzled and self.base % self.swizzle.repeat:
            out.append(Problem("base-repeat", f"tile base 0x{self.base:x} is not a multiple of "
                               f"{self.swizzle.repeat} B: "
                               f"the {self.swizzle.name} pattern then starts mid-phase (descriptor base_offset "
                               f"would be {(self.base >> 7) & 7}, whose hardware meaning is undocumented)", "warning"))
        if len(self._inverse) != self.rows * self.cols:
            out.append(Problem("overlap", f"LBO/SBO make {self.rows * self.cols - len(self._inverse)} elements "
                               f"share an address with another"))
        if self.base + self.footprint() > SMEM_LIMIT:
            out.append(Problem("smem-limit", f"tile ends at byte {self.base + self.footprint()}, past 227 KiB",
                               "warning"))
        return out

    def mma_slices(self) -> list[MmaSlice]:
        """Descriptor fields of each MMA along K (spec §5.5)."""
        out = []
        e, swz = self.elem_bytes, self.swizzle
        for kb in range(-(-self.cols // self.mma_k)):
            k0 = kb * self.mma_k
            if self.major == "K":
                if swz.swizzled:
                    per_atom = swz.width // e
                    start = self.base + (k0 // per_atom) * self.k_atom_stride + (k0 % per_atom) * e
                else:
                    start = self.base + (k0 // self.elems_per_core_row) * self.lbo
            else:
                group = 4 if swz is SW128_BASE32B else 8
                step = self.sbo if swz.swizzled else self.lbo
                if k0 % group:
                    raise LayoutError(f"MMA k-block {kb} starts at k={k0}, inside a {group}-row group")
                start = self.base + (k0 // group) * step
            out.append(MmaSlice(kb, k0, start, self.lbo, self.sbo, swz))
        return out


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise LayoutError(message)


def make_tile(major: str, swizzle: str | SwizzleMode, rows: int, cols: int, dtype: str = "bf16",
              lbo: int | None = None, sbo: int | None = None, k_atom_stride: int | None = None,
              base: int = 0) -> TileLayout:
    """A tile with the dense strides TMA produces (or the given LBO/SBO, in bytes).

    Defaults: K-major swizzled: SBO = 8 rows x width, LBO = 16 (ignored by hardware), next K atom
    column after all rows. MN-major swizzled: LBO = all K rows x width (one TMA box), SBO = 8 (4 for
    128B_base32B) rows x width. No swizzle: core matrices MN-first (SBO or LBO = 128 B between
    neighbours along M/N), as CuTe's tile_to_shape lays them out.
    """
    major = parse_major(major)
    swz = parse_swizzle(swizzle)
    name = canonical_dtype(dtype)
    e = dtype_bytes(name)
    _need(rows > 0 and cols > 0, "rows and cols must be positive")
    _need(e in (1, 2, 4), f"canonical layouts hold 1-, 2- or 4-byte elements; {name} has {e}")
    t = CORE_BYTES // e
    notes: list[str] = []
    if major == "K":
        _need(swz is not SW128_BASE32B, "128B_base32B is MN-major only (CUTLASS static_assert)")
        _need(rows % 8 == 0, f"K-major tiles need rows in multiples of 8 (core matrix height); got {rows}")
        if swz.swizzled:
            _need((cols * e) % swz.width == 0,
                  f"K-major {swz.name}: the K extent ({cols} x {e} B = {cols * e} B) must be a multiple of the "
                  f"{swz.width}-byte swizzle row; use a narrower swizzle for narrow K tiles")
            sbo = 8 * swz.width if sbo is None else sbo
            lbo = 16 if lbo is None else lbo
            k_atom_stride = rows * swz.width if k_atom_stride is None else k_atom_stride
            notes.append("LBO is ignored for swizzled K-major layouts (CUTLASS writes 16 B, DeepGEMM 0)")
        else:
            _need(cols % t == 0, f"K-major none: K extent must be a multiple of {t} elements (16 B); got {cols}")
            sbo = 128 if sbo is None else sbo
            lbo = (rows // 8) * 128 if lbo is None else lbo
    else:
        if swz is SW128_BASE32B:
            _need(rows % (128 // e) == 0, f"MN-major 128B_base32B needs rows in multiples of {128 // e}")
            _need(cols % 4 == 0, "MN-major 128B_base32B needs K in multiples of 4")
            lbo = cols * 128 if lbo is None else lbo
            sbo = 4 * 128 if sbo is None else sbo
        elif swz.swizzled:
            _need(rows % (swz.width // e) == 0,
                  f"MN-major {swz.name}: rows must be a multiple of {swz.width // e} ({swz.width} B); got {rows}")
            _need(cols % 8 == 0, f"MN-major tiles need K in multiples of 8; got {cols}")
            lbo = cols * swz.width if lbo is None else lbo
            sbo = 8 * swz.width if sbo is None else sbo
        else:
            _need(rows % t == 0, f"MN-major none: rows must be a multiple of {t} (16 B); got {rows}")
            _need(cols % 8 == 0, f"MN-major tiles need K in multiples of 8; got {cols}")
            sbo = 128 if sbo is None else sbo
            lbo = (rows // t) * 128 if lbo is None else lbo
    for what, v in (("LBO", lbo), ("SBO", sbo), ("base", base)):
        _need(v >= 0 and v % 16 == 0, f"{what} must be a non-negative multiple of 16 bytes; got {v}")
    return TileLayout(major, swz, rows, cols, e, lbo, sbo, k_atom_stride or 0, base, name, tuple(notes))
