"""The Descriptors and TMA screens' views: the field tables of a descriptor word (edit one field),
and a cuTensorMapEncodeTiled call checked by the model and, on request, the driver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fmhactl.errors import BadInput
from fmhactl.services.layout_views import Problem
from fmhactl.tui.backend import parse_int

# --------------------------------------------------------------------------------------------
# Descriptors: the field tables of fmhactl.layout.fields through services.layout
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FieldRow:
    name: str
    label: str
    lo: int
    width: int
    raw: int
    shown: str
    bad: bool
    meaning: str
    allowed: str
    edit_text: str  # what the editor starts from: the value in its unit, or the enum's name


@dataclass
class DescriptorView:
    kind: str
    value: int
    bits: int
    fields: list[FieldRow]
    problems: list[Problem]
    verdict: str


def parse_descriptor_text(kind: str, text: str) -> int:
    """A hex (or decimal) descriptor value; the error names the descriptor and the rule."""
    from fmhactl.services import layout as svc

    stripped = str(text).strip()
    if stripped and not stripped.lower().startswith(("0x", "0b", "0o", "-")) and \
            any(ch in "abcdefABCDEF" for ch in stripped):
        stripped = "0x" + stripped  # pasted hex without its prefix
    return svc.parse_word(stripped, kind)


def descriptor_view(kind: str, value: int, major: str | None = None) -> DescriptorView:
    """Decode with the same service (fields, checks, messages) as `fmhactl layout ... decode`."""
    from fmhactl.services import layout as svc

    d = svc.decode_descriptor(kind, value, major if kind == "smem" else None)
    table = svc.descriptor_table(kind)
    labels = {f.name: f.short for f in table.fields}
    allowed = {f.name: f.allowed for f in table.fields}
    rows = [FieldRow(f.name, labels.get(f.name, f.name), f.lo, f.width, f.raw, f.display, f.bad, f.meaning,
                     f.allowed, str(allowed[f.name].get(f.raw, f.raw)) if allowed.get(f.name) else str(f.value))
            for f in d.fields]
    verdict = ("valid: " if d.ok else "INVALID: ") + d.summary
    return DescriptorView(kind, d.value, d.bits, rows, list(d.problems), verdict)


def set_descriptor_field(kind: str, value: int, field_index: int, text: str) -> int:
    """The value with one field replaced. `text` is the field's value in its natural unit (bytes for
    addresses, N or M for the shape fields), a name of an enum value (128B, bf16, MN), or raw:N."""
    from fmhactl.services import layout as svc

    table = svc.descriptor_table(kind)
    view = svc.decode_descriptor(kind, value)
    if not 0 <= field_index < len(view.fields):
        raise BadInput(f"no field {field_index}")
    name = view.fields[field_index].name
    f = table.field(name)
    t = text.strip()
    if not t:
        raise BadInput(f"{f.meaning}: empty value")
    if t.lower().startswith("raw:"):
        raw = parse_int(t[4:], f.meaning)
    elif f.allowed is not None and not t.lstrip("-").isdigit():
        by_name = {str(v).lower(): k for k, v in f.allowed.items()}
        word = t.split("(")[-1].rstrip(")").strip().lower() if "(" in t else t.lower()
        if word not in by_name:
            raise BadInput(f"{f.meaning}: {t!r} is not one of {f.allowed_text()}")
        raw = by_name[word]
    else:
        number = t.split()[0].removesuffix("B").removeprefix("N=").removeprefix("M=")
        raw = f.raw_of(parse_int(number, f.meaning)) if f.allowed is None else parse_int(number, f.meaning)
    return svc.edit_descriptor(kind, value, name, raw).value


# --------------------------------------------------------------------------------------------
# TMA tensor maps (fmhactl.services.tma)
# --------------------------------------------------------------------------------------------

TMA_FIELDS = (("dtype", "tensorDataType", "bf16"), ("rank", "tensorRank", "3"),
              ("dims", "globalDim (innermost first)", "128,128,1"),
              ("strides", "globalStrides (bytes, rank-1)", "256,32768"), ("box", "boxDim", "16,128,1"),
              ("elem_strides", "elementStrides", "1,1,1"), ("swizzle", "swizzle", "none"),
              ("interleave", "interleave", "none"), ("l2", "l2Promotion", "none"), ("oob", "oobFill", "none"),
              ("address", "globalAddress", "0x7f0000000000"))


@dataclass
class TmaView:
    c_call: str
    rules: list[tuple[str, str, str, str, str]]  # rule, param, requirement, status, detail
    valid: bool
    summary: str
    params: Any


def _int_list(text: str, what: str) -> list[int]:
    from fmhactl.services.layout_views import parse_int_list

    return parse_int_list(text, what)


def tma_params(form: dict[str, str]) -> Any:
    from fmhactl.services import tma as svc

    get = lambda key: form.get(key, "").strip()  # noqa: E731
    missing = [key for key in ("dtype", "dims", "box") if not get(key)]
    if missing:
        raise BadInput(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} empty: "
                       "dtype, dims and box are required")
    return svc.tensor_map_params(get("dtype"), _int_list(get("dims"), "dims"),
                                 _int_list(get("strides"), "strides") if get("strides") else None,
                                 _int_list(get("box"), "box"),
                                 _int_list(get("elem_strides"), "element strides") if get("elem_strides") else None,
                                 parse_int(get("rank"), "rank") if get("rank") else None,
                                 parse_int(get("address"), "address") if get("address") else None,
                                 get("interleave") or "none", get("swizzle") or "none", get("l2") or "none",
                                 get("oob") or "none")


def tma_view(form: dict[str, str]) -> TmaView:
    """The rules of `fmhactl tma check`, each with its status for these parameters, and its verdict
    in the CLI's words (fmhactl.present.report_tma.verdict_lines; the long driver hint left out)."""
    from fmhactl.present.report_tma import verdict_lines
    from fmhactl.services import tma as svc

    p = tma_params(form)
    check = svc.check_tensor_map(p)
    lines = [line for line in verdict_lines(check, None) if line.startswith(("VALID", "INVALID", "one load"))]
    return TmaView(check.c_call, [(r.rule, r.param, r.statement, r.status, r.detail) for r in check.rules],
                   check.valid, "\n".join(lines), p)


def tma_ask_driver(form: dict[str, str]) -> str:
    """The real driver's verdict beside the model's, as `tma check --driver` words it (needs a GPU)."""
    from fmhactl.present.report_tma import verdict_lines
    from fmhactl.services import tma as svc

    params = tma_params(form)
    return verdict_lines(svc.check_tensor_map(params), svc.driver_verdict(params))[-1]
