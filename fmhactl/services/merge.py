"""`fmhactl merge`: combine attention results of KV segments through their LSE.

Two modes, one op (fmhactl.torch.merge.merge_by_lse):
- files: each segment a torch file holding {"out": (b, t, h, d), "lse": fp32 (b, h, t)}; the merged
  pair is written to `out` in the same form;
- demo: random inputs for a --shape (features included), the keys split into contiguous segments,
  each segment's attention from the torch reference (the sinks join segment 0 only), merged, and
  compared with attention over all keys at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fmhactl.errors import BadInput, MissingEnvironment

MAX_SEGMENT_FILE_BYTES = 4 * 2**30
MAX_DEMO_SCORES = 2**26  # b*h*t*s of the demo (CPU, fp64): a few seconds at most
MAX_DEMO_SEGMENTS = 64


@dataclass
class MergeOutcome:
    mode: str  # "files" or "demo"
    segments: int
    shape: list[int]  # (batch, seq_q, heads, dim) of the merged out
    rows_without_keys: int  # rows whose merged LSE is -inf
    written_to: str | None = None
    config: str | None = None  # demo: the --shape it ran
    max_abs_err_out: float | None = None  # demo: merged vs attention over all keys
    max_abs_err_lse: float | None = None
    tolerance: float | None = None
    passed: bool = True
    boundaries: list[int] = field(default_factory=list)  # demo: first key of each segment

    def to_dict(self) -> dict:
        return asdict(self)


def _torch():
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        raise MissingEnvironment("fmhactl merge needs torch (pip install torch)") from None
    return torch


def _load_segment(path_text: str, index: int):
    from fmhactl.paths import is_file
    from fmhactl.schemas import shown

    torch = _torch()
    path = Path(path_text)
    if not is_file(path, "merge: segment file"):
        raise BadInput(f"merge: segment file {shown(path_text)} not found")
    if path.stat().st_size > MAX_SEGMENT_FILE_BYTES:
        raise BadInput(f"merge: segment file {shown(path_text)} is larger than {MAX_SEGMENT_FILE_BYTES} bytes")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged or foreign file
        raise BadInput(f"merge: segment file {shown(path_text)} is not a torch file of tensors "
                       f"({type(exc).__name__})") from None
    if not isinstance(data, dict) or set(data) != {"out", "lse"}:
        raise BadInput(f"merge: segment file {shown(path_text)} must hold a dict with exactly the keys "
                       "'out' and 'lse'")
    return data["out"], data["lse"]


def merge_files(paths: Sequence[str], out: str) -> MergeOutcome:
    """Merge the segment files and write {"out", "lse"} to `out`."""
    from fmhactl.paths import check_output_path, create_parent
    from fmhactl.torch.merge import MAX_SEGMENTS, merge_by_lse

    if len(paths) < 1:
        raise BadInput("merge: give at least one segment file (or --demo)")
    if len(paths) > MAX_SEGMENTS:
        raise BadInput(f"merge: {len(paths)} segment files; at most {MAX_SEGMENTS}")
    target = check_output_path(Path(out), "--out")
    torch = _torch()
    loaded = [_load_segment(p, i) for i, p in enumerate(paths)]
    merged, lse = merge_by_lse([o for o, _ in loaded], [l for _, l in loaded])
    torch.save({"out": merged, "lse": lse}, create_parent(target, "--out"))
    return MergeOutcome(mode="files", segments=len(paths), shape=list(merged.shape),
                        rows_without_keys=int(torch.isneginf(lse).sum()), written_to=str(target))


def merge_demo(shape: str, segments: int, seed: int = 0) -> MergeOutcome:
    """Split the keys of `shape` into `segments` contiguous parts, merge, compare with the whole."""
    from fmhactl.config import parse_shape
    from fmhactl.runtime.features import make_feature_inputs
    from fmhactl.schemas import int_in_range
    from fmhactl.torch.merge import merge_by_lse
    from fmhactl.verify.reference import attention_for

    cfg = parse_shape(shape)
    int_in_range(segments, "--segments", 1, min(MAX_DEMO_SEGMENTS, cfg.seq_k))
    int_in_range(seed, "--seed", 0, 2**62)
    scores = cfg.batch * cfg.heads * cfg.seq_q * cfg.seq_k
    if scores > MAX_DEMO_SCORES:
        raise BadInput(f"merge --demo: shape {cfg.key} has {scores} scores; the CPU demo takes at most "
                       f"{MAX_DEMO_SCORES} (b*h*t*s)")
    torch = _torch()
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(cfg.batch, cfg.seq_q, cfg.heads, cfg.head_dim, generator=gen, dtype=torch.float64)
    k = torch.randn(cfg.batch, cfg.seq_k, cfg.heads_kv, cfg.head_dim, generator=gen, dtype=torch.float64)
    v = k if cfg.kv_shared else torch.randn(k.shape, generator=gen, dtype=torch.float64)
    features = make_feature_inputs(cfg, seed, device="cpu")
    bounds = [round(i * cfg.seq_k / segments) for i in range(segments + 1)]
    outs, lses = [], []
    for i in range(segments):
        keys = torch.zeros(cfg.seq_k, dtype=torch.bool)
        keys[bounds[i]:bounds[i + 1]] = True
        out_i, lse_i = attention_for(cfg, q, k, v, features, compute_dtype=torch.float64, key_mask=keys,
                                     with_sinks=i == 0)
        outs.append(out_i.float())
        lses.append(lse_i.float())
    merged, lse = merge_by_lse(outs, lses)
    whole, whole_lse = attention_for(cfg, q, k, v, features, compute_dtype=torch.float64)
    err_out = float((merged.double() - whole).abs().max())
    finite = torch.isfinite(whole_lse)
    if not torch.equal(torch.isneginf(lse), torch.isneginf(whole_lse)):
        err_lse = float("inf")  # a row one side says saw nothing and the other does not
    else:
        err_lse = float((lse.double() - whole_lse).abs()[finite].max()) if bool(finite.any()) else 0.0
    # fp32 segments: a few ulps of the largest magnitude involved.
    scale = max(1.0, float(whole.abs().max()), float(whole_lse[finite].abs().max()) if bool(finite.any()) else 1.0)
    tolerance = 16 * float(torch.finfo(torch.float32).eps) * scale
    return MergeOutcome(mode="demo", segments=segments, shape=list(merged.shape),
                        rows_without_keys=int(torch.isneginf(lse).sum()), config=cfg.shape_text(),
                        max_abs_err_out=err_out, max_abs_err_lse=err_lse, tolerance=tolerance,
                        passed=err_out <= tolerance and err_lse <= tolerance, boundaries=bounds[:-1])
