"""Pictures of an SM100 plan for `fmhactl layout plan` (and the TUI): TMEM columns of one SM with
its co-resident CTAs (S, P inside S, O), the SMEM carve-up per K/V stage, as text, records and SVG.

Pure functions of an Sm100Plan; no terminal or file handling here.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape

from fmhactl.plans.sm100 import TMEM_COLUMNS, Sm100Plan

COLUMNS_PER_CHAR = 8  # the text ruler: 512 columns in 64 characters


@dataclass(frozen=True)
class Region:
    """A range of TMEM columns [start, end) of one CTA's allocation, or of SMEM bytes."""

    name: str
    start: int
    end: int
    meaning: str


def tmem_regions(plan: Sm100Plan) -> list[Region]:
    """S, P (inside S) and O of one CTA, relative to its allocation base; then the unused rest."""
    regions = [Region("S", plan.col_s, plan.col_s + plan.block_n,
                      f"QK accumulator: 128 rows x {plan.block_n} keys, fp32")]
    if not plan.p_in_smem:
        regions.append(Region("P", plan.col_p, plan.col_p + plan.p_columns,
                              f"softmax P, 16-bit pairs, written over the S columns already read "
                              f"(keys c..c+31 -> columns c/2..c/2+15); PV's TS A operand"))
    split = f", head-dim columns d0..d0+{plan.d_part - 1} of {plan.head_dim}" if plan.d_passes > 1 else ""
    regions.append(Region("O", plan.col_o, plan.col_o + plan.d_part,
                          f"PV accumulator: 128 rows x {plan.d_part}, fp32{split}"))
    if plan.tmem_alloc > plan.tmem_columns:
        regions.append(Region("-", plan.tmem_columns, plan.tmem_alloc,
                              "allocated, unused (allocations are powers of two)"))
    return regions


def smem_regions(plan: Sm100Plan) -> list[Region]:
    o = plan.offsets
    regions = [Region("Q", o["Q"], o["K"], f"128 x {plan.head_dim} SW128, K-major")]
    for s in range(plan.stages):
        regions.append(Region(f"K{s}", o["K"] + s * plan.k_bytes, o["K"] + (s + 1) * plan.k_bytes,
                              f"stage {s}: {plan.block_n} keys x {plan.head_dim} SW128, K-major"))
    for s in range(plan.stages):
        regions.append(Region(f"V{s}", o["V"] + s * plan.v_bytes, o["V"] + (s + 1) * plan.v_bytes,
                              f"stage {s}: {plan.block_n} keys x {plan.d_part} SW128, MN-major"))
    if plan.p_in_smem:
        regions.append(Region("P", o["P"], o["barriers"], "softmax P, 128 x BlockN SW128 K-major (SS MMA A)"))
    regions.append(Region("bar", o["barriers"], o["tmem_slot"], f"{plan.barrier_count} mbarriers"))
    regions.append(Region("slot", o["tmem_slot"], o["end"], "TMEM address written by tcgen05.alloc"))
    if plan.smem_padding:
        regions.append(Region("pad", plan.smem_needed, plan.smem_bytes,
                              f"padding: keeps SMEM from admitting more than {plan.ctas_per_sm} CTA(s)/SM"))
    return regions


def ruler(plan: Sm100Plan) -> str:
    """One SM's 512 TMEM columns, COLUMNS_PER_CHAR per character, co-resident CTAs side by side."""
    chars = []
    for col in range(0, TMEM_COLUMNS, COLUMNS_PER_CHAR):
        cta, rel = divmod(col, plan.tmem_alloc)
        if cta >= plan.ctas_per_sm:
            chars.append(" ")
            continue
        mark = "-"
        for region in tmem_regions(plan):
            if region.start <= rel < region.end and region.name != "-":
                mark = region.name
                if region.name == "P":
                    break
        chars.append(mark if cta % 2 == 0 else mark.lower())
    return "".join(chars)


def plan_lines(variant: str, plan: Sm100Plan, requested: int | None = None) -> list[str]:
    """The text picture: arithmetic, ruler, regions, SMEM per stage, residency."""
    padded = (f" (head dim {requested} runs this entry, zero-padded)" if requested and requested != plan.head_dim
              else "")
    lines = [f"{variant} at head dim {plan.head_dim}{padded}: BlockM {plan.block_m}, BlockN {plan.block_n}, "
             f"{plan.stages} K/V stage(s), P in {'SMEM' if plan.p_in_smem else 'TMEM (inside S)'}"
             + (f", O in {plan.d_passes} passes over D (one CTA each)" if plan.d_passes > 1 else "")]
    reason = plan.limit_reason()
    if reason:
        lines.append(f"UNSUPPORTED: {reason}")
        return lines
    lines.append(f"TMEM: {plan.column_arithmetic()}")
    lines.append(f"one SM's 512 columns ({COLUMNS_PER_CHAR} per character; upper case CTA 0, lower case CTA 1, "
                 f"P drawn over the S it replaces):")
    lines.append("|" + ruler(plan) + "|")
    for region in tmem_regions(plan):
        lines.append(f"  {region.name:<4} columns {region.start:>3}..{region.end - 1:<3}  {region.meaning}")
    lines.append(f"SMEM: {plan.smem_bytes} B dynamic ({plan.smem_needed} needed)")
    for region in smem_regions(plan):
        lines.append(f"  {region.name:<4} bytes {region.start:>6}..{region.end - 1:<6}  {region.meaning}")
    lines.append(f"residency: {plan.residency_note()}")
    return lines


def feature_lines(plan: Sm100Plan, features: tuple[str, ...]) -> list[str]:
    """What each attention feature the variant builds (docs/features.md) does to this plan."""
    declared = [f for f in ("window", "sink", "topk", "kv_shared") if f in features]
    if not declared or not plan.supported:
        return []
    lines = [f"features: {', '.join(declared)} (runtime flags of FmhaParams; docs/features.md)"]
    if "window" in declared:
        lines.append("  window    TMEM/SMEM unchanged; masked per key, and the KV tiles wholly outside a CTA's "
                     "rows' windows are neither loaded nor multiplied")
    if "sink" in declared:
        lines.append("  sink      TMEM/SMEM unchanged; one fp32 logit per head joins the epilogue's normaliser and LSE")
    if "topk" in declared:
        lines.append(f"  topk      TMEM/SMEM unchanged; a top-k launch's {plan.block_m} rows are the query heads of one "
                     f"token of one KV head (rows past the group: padding, never written), Q ({plan.q_bytes} B) copied "
                     f"by the load warp, and each stage's {plan.block_n} list slots gathered by it with 16-B cp.async "
                     f"into the SW128 layout (K {plan.k_bytes} B + V {plan.v_bytes} B per stage; dropped slots are zero "
                     f"rows, masked in the softmax)")
    if "kv_shared" in declared:
        k_atom = plan.block_n * 128
        lines.append(f"  kv_shared with kv_shared=1 the V stages ({plan.stages} x {plan.v_bytes} B) stay idle: only K "
                     f"is loaded ({plan.k_bytes} B per stage instead of {plan.k_bytes + plan.v_bytes}) and PV reads "
                     f"V's columns d0..d0+{plan.d_part - 1} from the K stage (SW128 atom d0/64, {k_atom} B each)")
    return lines


def plan_records(variant: str, plan: Sm100Plan) -> tuple[dict, list[dict]]:
    """--json: the plan as metadata, one record per region (TMEM relative to the CTA's base)."""
    meta = {"variant": variant, **plan.to_dict()}
    records = ([{"memory": "tmem", "name": r.name, "start": r.start, "end": r.end, "meaning": r.meaning}
                for r in tmem_regions(plan)] if plan.supported else [])
    records += [{"memory": "smem", "name": r.name, "start": r.start, "end": r.end, "meaning": r.meaning}
                for r in smem_regions(plan)] if plan.supported else []
    return meta, records


_COLOURS = {"S": "#7aa6d8", "P": "#f2b04c", "O": "#8cc68c", "-": "#dddddd", "Q": "#c9a0dc", "bar": "#999999",
            "slot": "#777777", "pad": "#eeeeee"}


def plan_svg(variant: str, plan: Sm100Plan) -> str:
    """The TMEM strip of one SM (co-resident CTAs) and the SMEM strip of one CTA."""
    width, left, strip = 1040, 20, 36
    scale = (width - 2 * left) / TMEM_COLUMNS
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="260" font-family="monospace" '
           f'font-size="11">',
           f'<text x="{left}" y="18" font-size="13">{escape(plan_lines(variant, plan)[0])}</text>']
    if not plan.supported:
        out.append(f'<text x="{left}" y="40" fill="#b00">{escape(plan.limit_reason() or "")}</text></svg>')
        return "\n".join(out) + "\n"
    out.append(f'<text x="{left}" y="40">TMEM, one SM: {escape(plan.column_arithmetic())}</text>')
    y = 50
    for cta in range(plan.ctas_per_sm):
        base = cta * plan.tmem_alloc
        for r in tmem_regions(plan):
            # P is drawn as the lower half-height band inside S: it overwrites those S columns.
            top, height = (y + strip / 2, strip / 2) if r.name == "P" else (y, strip)
            x = left + (base + r.start) * scale
            out.append(f'<rect x="{x:.1f}" y="{top:.1f}" width="{(r.end - r.start) * scale:.1f}" height="{height}" '
                       f'fill="{_COLOURS.get(r.name, "#ccc")}" stroke="#333"><title>{escape(r.meaning)}</title></rect>')
            out.append(f'<text x="{x + 3:.1f}" y="{top + 12:.1f}">{r.name}{cta} {r.start + base}</text>')
    out.append(f'<rect x="{left}" y="{y}" width="{TMEM_COLUMNS * scale:.1f}" height="{strip}" fill="none" '
               f'stroke="#000"/>')
    y += strip + 40
    out.append(f'<text x="{left}" y="{y - 8}">SMEM, one CTA: {plan.smem_bytes} B; {escape(plan.residency_note())}'
               f'</text>')
    sscale = (width - 2 * left) / max(plan.smem_bytes, 1)
    for r in smem_regions(plan):
        x = left + r.start * sscale
        colour = _COLOURS.get(r.name.rstrip("0123456789"), "#a0c4ff" if r.name.startswith("K") else "#ffd6a5")
        out.append(f'<rect x="{x:.1f}" y="{y}" width="{max((r.end - r.start) * sscale, 1):.1f}" height="{strip}" '
                   f'fill="{colour}" stroke="#333"><title>{escape(r.meaning)}</title></rect>')
        if (r.end - r.start) * sscale > 24:
            out.append(f'<text x="{x + 3:.1f}" y="{y + 14}">{escape(r.name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
