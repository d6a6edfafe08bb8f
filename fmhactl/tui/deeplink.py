"""`fmhactl tui --screen NAME [options]`: turn the matching CLI command's options into a screen's
preset, checked before the app starts (bad input: one line, exit 2). No Textual import here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fmhactl.errors import BadInput
from fmhactl.tui import backend
from fmhactl.tui.views import descriptors as descriptors_views
from fmhactl.tui.views import mapping as mapping_views
from fmhactl.tui.views import smem as smem_views
from fmhactl.tui.views import tmem as tmem_views

SCREENS = ("tmem", "accum", "smem", "descriptors", "tma", "map", "checkpoints", "results")
ALIASES = {"accumulator": "accum", "desc": "descriptors", "descriptor": "descriptors", "idesc": "descriptors",
           "mapping": "map", "dump": "checkpoints", "ckpt": "checkpoints", "checkpoint": "checkpoints"}
# Which options each screen understands (the CLI command it mirrors in brackets).
OPTIONS = {
    "tmem": {"shape", "num", "warp", "pack", "taddr", "cell", "plan", "head_dim"},  # layout tmem
    "accum": {"m", "n", "dtmem", "cta_group"},  # layout accum
    "smem": {"major", "swizzle", "rows", "cols", "dtype", "lbo", "sbo", "base", "element", "kb", "desc"},  # layout smem
    "descriptors": {"kind", "value", "major"},  # layout idesc|desc decode VALUE
    "tma": {"dtype", "rank", "dims", "strides", "box", "elem_strides", "swizzle", "interleave", "l2", "oob",
            "address"},  # tma check
    "map": {"src", "dst", "m", "n", "dtype"},  # layout map --from --to
    "checkpoints": {"dump"},
    "results": {"kind", "variant", "status", "mode", "grid"},  # results
}


@dataclass(frozen=True)
class DeepLink:
    screen: str
    options: dict[str, Any]


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise BadInput(f"--size {text!r}: write COLUMNSxROWS, e.g. 120x40") from None
    if not (40 <= w <= 500 and 10 <= h <= 300):
        raise BadInput(f"--size {text!r}: columns must be 40..500 and rows 10..300")
    return w, h


def _pair(text: str, what: str) -> tuple[int, int]:
    return backend.parse_pair(text, what)


def build(screen: str, given: dict[str, Any]) -> DeepLink:
    """Validate the options for `screen` (None values are 'not given') and map them to its preset."""
    name = ALIASES.get(screen.lower(), screen.lower())
    if name not in SCREENS:
        raise BadInput(f"--screen {screen!r}: unknown screen (one of {', '.join(SCREENS)})")
    given = {k: v for k, v in given.items() if v is not None and v is not False}
    extra = sorted(set(given) - OPTIONS[name])
    if extra:
        flags = ", ".join("--" + k.replace("_", "-") for k in extra)
        verb = "does" if len(extra) == 1 else "do"
        raise BadInput(f"{flags} {verb} not apply to --screen {name} (it takes "
                       f"{', '.join('--' + k.replace('_', '-') for k in sorted(OPTIONS[name]))})")
    o: dict[str, Any] = {}
    g = given.get
    if name == "tmem":
        o.update({k: given[k] for k in ("shape", "num", "warp", "pack") if k in given})
        if "taddr" in given:
            addr = backend.parse_int(given["taddr"], "--taddr")
            o["lane_base"], o["col_base"] = addr >> 16, addr & 0xFFFF
        if "cell" in given:
            o["cell"] = _pair(given["cell"], "--cell")
        if "plan" in given:
            o.update(plan=True, variant=given["plan"])
        if "head_dim" in given:
            o["head_dim"] = given["head_dim"]
        probe = {k: o[k] for k in ("shape", "num", "warp", "pack", "lane_base", "col_base") if k in o}
        if not o.get("plan"):
            tmem_views.tmem_view(**probe)
        else:
            tmem_views.tmem_plan(o["variant"], o.get("head_dim", 128))
    elif name == "accum":
        o.update({k: given[k] for k in ("m", "n", "cta_group") if k in given})
        if "dtmem" in given:
            o["col"] = backend.parse_int(given["dtmem"], "--dtmem") & 0xFFFF
        tmem_views.accum_view(o.get("m", 128), o.get("n", 64), o.get("cta_group", 1), o.get("col", 0))
    elif name == "smem":
        o.update({k: given[k] for k in ("major", "swizzle", "rows", "cols", "dtype", "kb") if k in given})
        for key in ("lbo", "sbo", "base"):
            if key in given:
                o[key] = backend.parse_int(given[key], f"--{key}")
        if "desc" in given:
            o["descriptor"] = descriptors_views.parse_descriptor_text("smem", given["desc"])
        if "element" in given:
            o["element"] = _pair(given["element"], "--element")
        view = smem_views.smem_view(**{k: v for k, v in o.items()})
        if "element" in o:
            smem_views.smem_element_cell(view, *o["element"])
    elif name == "descriptors":
        kind = str(g("kind", "idesc"))
        o["kind"] = kind
        if "value" in given:
            o["value"] = given["value"]
            descriptors_views.descriptor_view(kind, descriptors_views.parse_descriptor_text(kind, given["value"]))
        if "major" in given:
            o["major"] = given["major"]
    elif name == "tma":
        o.update({k: str(v) for k, v in given.items()})
        form = {key: default for key, _, default in descriptors_views.TMA_FIELDS}
        form.update(o)
        descriptors_views.tma_params(form)
    elif name == "map":
        if "src" in given or "dst" in given:
            o.update(mapping_views.map_specs(str(g("src", "tmem:32x32b:num=8")), str(g("dst", "smem:K:128B"))))
        o.update({k: given[k] for k in ("m", "n", "dtype") if k in given})
        mapping_views.map_view(**o)
    elif name == "checkpoints":
        o["dump"] = str(given["dump"]) if "dump" in given else None
        if o["dump"] is not None:
            try:
                mapping_views.load_dump_view(o["dump"])  # checked before the app starts, like any input
            except BadInput as exc:
                raise BadInput(f"--dump: {exc}") from None
    elif name == "results":
        o["filter"] = " ".join(f"{k}={given[k]}" for k in ("kind", "variant", "status", "mode") if k in given)
        if "grid" in given:
            o["grid"] = given["grid"]
            o["filter"] = (o["filter"] + f" grid={given['grid']}").strip()
        backend.parse_filter(o["filter"])
    return DeepLink(name, o)
