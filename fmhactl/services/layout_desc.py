"""Descriptor services: decode/encode/edit of the UMMA, wgmma and instruction descriptors (all
from the field tables), and which tile elements a descriptor makes an MMA read."""

from __future__ import annotations

from fmhactl.records import envelope

from dataclasses import dataclass

from fmhactl.layout import smem as _smem
from fmhactl.layout.bitfields import BitTable, FieldRow
from fmhactl.layout.common import LayoutError, Problem, errors_of, parse_int
from fmhactl.layout.fields import INSTR_DESC, SMEM_DESC, WGMMA_DESC
from fmhactl.services.layout_limits import _range
from fmhactl.services.layout_smem import SmemTile

# ---------------------------------------------------------------------------------------------
# Descriptors: UMMA SMEM descriptor, wgmma descriptor, instruction descriptor (spec §4, §6)

DESCRIPTOR_KINDS = {"smem": SMEM_DESC, "wgmma": WGMMA_DESC, "idesc": INSTR_DESC}


@dataclass(frozen=True)
class DescriptorView:
    kind: str  # "smem", "wgmma" or "idesc"
    value: int
    bits: int
    fields: tuple[FieldRow, ...]
    problems: tuple[Problem, ...]
    summary: str

    @property
    def hex(self) -> str:
        return f"0x{self.value:0{self.bits // 4}x}"

    @property
    def ok(self) -> bool:
        return not errors_of(list(self.problems))

    def as_dict(self) -> dict[str, object]:
        return {**envelope(f"fmhactl.layout.{'idesc' if self.kind == 'idesc' else 'desc'}", 2), "kind": self.kind,
                "value": self.hex, "bits": self.bits, "ok": self.ok, "summary": self.summary,
                "fields": [f.as_dict() for f in self.fields], "problems": [p.as_dict() for p in self.problems]}


def descriptor_table(kind: str) -> BitTable:
    try:
        return DESCRIPTOR_KINDS[kind]
    except KeyError:
        raise LayoutError(f"unknown descriptor kind {kind!r} (one of {', '.join(DESCRIPTOR_KINDS)})") from None


def parse_word(text: str | int, kind: str, what: str | None = None) -> int:
    """A descriptor value from user text ("0x4000404000010000", "1234"): exit 2 naming the rule."""
    table = descriptor_table(kind)
    what = what or table.name
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        s = str(text).strip()
        if not s:
            raise LayoutError(f"{what}: empty value (write it in hex, e.g. 0x{1 << (table.bits - 2):x})")
        if len(s) > 2 + table.bits:
            raise LayoutError(f"{what}: {s[:24]!r}... is too long for a {table.bits}-bit word")
        value = parse_int(s, what)
    if not 0 <= value <= table.limit:
        raise LayoutError(f"{what}: {value:#x} does not fit in {table.bits} bits" if value >= 0
                          else f"{what}: {value} is negative; a descriptor is an unsigned {table.bits}-bit word")
    return value


def decode_descriptor(kind: str, value: str | int, major: str | None = None) -> DescriptorView:
    """The field table and named problems of a descriptor (kind: smem, wgmma or idesc)."""
    from fmhactl.layout import descriptors, idesc, wgmma

    word = parse_word(value, kind)
    table = descriptor_table(kind)
    if kind == "smem":
        d = descriptors.decode_smem_desc(word, major)
        swz = d.swizzle
        summary = (f"start {d.start} B, LBO {d.lbo} B, SBO {d.sbo} B, {swz.name if swz else 'invalid layout'}"
                   + ("; valid for tcgen05.mma" if d.ok else ""))
        problems = d.problems
    elif kind == "wgmma":
        if major is not None:
            raise LayoutError("--major applies to SM100 (tcgen05) descriptors only")
        w = wgmma.decode_wgmma_desc(word)
        swz = w.swizzle
        summary = f"start {w.start} B, LBO {w.lbo} B, SBO {w.sbo} B, {swz.name if swz else 'invalid layout'}"
        problems = w.problems
    else:
        if major is not None:
            raise LayoutError("--major applies to shared-memory descriptors, not the instruction descriptor")
        i = idesc.decode(word)
        f = i.as_dict()
        summary = (f"kind::{i.kind} {i.m}x{i.n}x{i.k} {f['a_format']}x{f['b_format']} -> {f['d_format']}, "
                   f"A {f['a_major']}-major, B {f['b_major']}-major")
        problems = i.problems
    bad = {p.code for p in problems if p.severity == "error"}
    return DescriptorView(kind, word, table.bits, tuple(table.rows(word, bad)), tuple(problems), summary)


def edit_descriptor(kind: str, value: str | int, field_name: str, raw: int) -> DescriptorView:
    """The descriptor with one field's raw contents replaced (the TUI's field editor)."""
    table = descriptor_table(kind)
    return decode_descriptor(kind, table.with_raw(parse_word(value, kind), field_name, raw))


def encode_smem_descriptor(start: int, lbo: int, sbo: int, swizzle: str = "none", base_offset: int = 0,
                           lbo_mode: int = 0) -> DescriptorView:
    from fmhactl.layout.descriptors import encode_smem_desc

    return decode_descriptor("smem", encode_smem_desc(start, lbo, sbo, swizzle, base_offset, lbo_mode))


def encode_wgmma_descriptor(start: int, lbo: int, sbo: int, swizzle: str = "none",
                            base_offset: int = 0) -> DescriptorView:
    from fmhactl.layout.wgmma import encode_wgmma_desc

    return decode_descriptor("wgmma", encode_wgmma_desc(start, lbo, sbo, swizzle, base_offset))


def encode_instr_descriptor(a: str = "bf16", b: str | None = None, d: str = "f32", m: int = 128, n: int = 256,
                            a_major: str = "K", b_major: str = "K", neg_a: bool = False,
                            neg_b: bool = False) -> DescriptorView:
    from fmhactl.layout import idesc

    return decode_descriptor("idesc", idesc.encode(a, b, d, m, n, a_major, b_major, neg_a, neg_b))


@dataclass(frozen=True)
class AddressedElement:
    """Operand element (mn, k) of one MMA, the byte the descriptor makes it read, and what is there."""

    mn: int
    k: int
    addr: int
    bank: int
    hit: tuple[int, int] | None  # the tile element stored at that byte (None: nothing of the tile)
    expected: tuple[int, int]  # the tile element the MMA should read: (mn, k0 + k)

    @property
    def correct(self) -> bool:
        return self.hit == self.expected

    def as_dict(self) -> dict[str, object]:
        return {"mn": self.mn, "k": self.k, "addr": self.addr, "bank": self.bank,
                "hit": list(self.hit) if self.hit else None, "expected": list(self.expected),
                "correct": self.correct}


@dataclass(frozen=True)
class DescriptorReach:
    descriptor: DescriptorView
    k0: int
    elements: tuple[AddressedElement, ...]

    @property
    def wrong(self) -> int:
        return sum(1 for e in self.elements if not e.correct)

    def as_dict(self) -> dict[str, object]:
        return {**envelope("fmhactl.layout.reach", 1), "descriptor": self.descriptor.as_dict(), "k0": self.k0,
                "wrong": self.wrong, "elements": [e.as_dict() for e in self.elements]}


def descriptor_reach(tile: SmemTile, descriptor: str | int, k0: int = 0) -> DescriptorReach:
    """Which tile elements one MMA reads through `descriptor` when it consumes K columns k0.. of the
    tile. Editing start/LBO/SBO/layout/base offset moves the hits; a descriptor built from full-head-
    dim coordinates instead of the MMA's local k (seed 000's `full_d` bug) shows every hit wrong."""
    view = decode_descriptor("smem", descriptor, tile.layout.major)
    e = tile.layout.elem_bytes
    mma_k = _smem.MMA_K_BYTES // e
    _range("k0", k0, 0, tile.cols - 1)
    if view.problems and not view.ok:
        return DescriptorReach(view, k0, ())
    fields = {f.name: f.value for f in view.fields}
    from fmhactl.layout.swizzle import swizzle_from_umma_code

    swz = swizzle_from_umma_code(fields["layout"])
    assert swz is not None
    out = []
    for mn in range(tile.rows):
        for k in range(min(mma_k, tile.cols - k0)):
            try:
                addr = _smem.desc_offset(tile.layout.major, swz, mn, k, e, fields["lbo"], fields["sbo"],
                                         fields["start"])
            except LayoutError:
                continue
            out.append(AddressedElement(mn, k, addr, _smem.bank_of(addr), tile.element_at(addr), (mn, k0 + k)))
    return DescriptorReach(view, k0, tuple(out))
