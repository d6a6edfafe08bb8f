"""One attention problem: the shape, dtype and mask of a single kernel launch."""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields

from fmhactl.errors import BadInput

DTYPES = ("bf16", "f16")
INT32_MAX = 2**31 - 1
# A variant that indexes in 32 bits (kernels/family.toml without `index64 = true`) takes no Q/O or
# K/V tensor of more elements than this: Variant.unsupported_reason refuses past it, per variant.
INDEX32_MAX_ELEMENTS = INT32_MAX
# Every kernel, 64-bit indexing or not: no tensor past 2^40 elements (2 TiB of 16-bit values, more
# than any GPU holds). It keeps the kernels' 32-bit counts of tiles and rows (a persistent kernel's
# tile index, a split workspace's row count) far from int32 at every head dim they take.
MAX_TENSOR_ELEMENTS = 2**40

# Short keys accepted by --shape, mapped to field names.
_ALIASES = {
    "b": "batch", "batch": "batch",
    "h": "heads", "hq": "heads", "heads": "heads",
    "hkv": "heads_kv", "heads_kv": "heads_kv", "kv_heads": "heads_kv",
    "t": "seq_q", "sq": "seq_q", "seq_q": "seq_q",
    "s": "seq_k", "sk": "seq_k", "seq_k": "seq_k", "s_k": "seq_k",
    "d": "head_dim", "hd": "head_dim", "head_dim": "head_dim",
    "dtype": "dtype", "causal": "causal",
    # The attention features (docs/features.md).
    "wl": "window_left", "window_left": "window_left",
    "wr": "window_right", "window_right": "window_right",
    "sink": "sink", "sinks": "sink",
    "topk": "topk", "top_k": "topk",
    "kvshared": "kv_shared", "kv_shared": "kv_shared",
    "kvr": "key_ranges", "key_ranges": "key_ranges",
}
# Fields given as bare flags in --shape ("causal", "sink", "kvshared", "kvr"); "=0/1/true/false" also works.
_FLAG_FIELDS = ("causal", "sink", "kv_shared", "key_ranges")
MAX_TOPK = 65536  # entries per query row (a list may repeat and pad, so it may exceed seq_k)
UNBOUNDED = -1  # window_left / window_right: no limit on that side


@dataclass(frozen=True)
class AttnConfig:
    batch: int = 1
    heads: int = 1
    heads_kv: int = 0  # 0 means "same as heads"
    seq_q: int = 128
    seq_k: int = 128
    head_dim: int = 128
    dtype: str = "bf16"
    causal: bool = False
    # Features (docs/features.md). Window: keys j with i+off-window_left <= j <= i+off+window_right
    # (off = seq_k - seq_q, bottom-right aligned as causal), -1 unbounded; causal is window_right 0.
    window_left: int = UNBOUNDED
    window_right: int = UNBOUNDED
    sink: bool = False  # a per-head fp32 logit joins the softmax denominator (and the LSE) only
    topk: int = 0  # >0: each query row attends the keys of its int32 index list (-1 padded)
    kv_shared: bool = False  # K and V are one buffer (V = K)
    key_ranges: bool = False  # each batch row sees only its keys [start, end) (a padded batch)

    def __post_init__(self) -> None:
        if self.heads_kv == 0:
            object.__setattr__(self, "heads_kv", self.heads)
        for name in ("batch", "heads", "heads_kv", "seq_q", "seq_k", "head_dim"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise BadInput(f"{name} must be a positive integer, got {_shown(value)}")
            if value > INT32_MAX:
                raise BadInput(f"{name} must be at most {INT32_MAX} (int32), got {value}")
        if self.heads % self.heads_kv:
            raise BadInput(f"heads ({self.heads}) must be a multiple of heads_kv ({self.heads_kv})")
        if self.dtype not in DTYPES:
            raise BadInput(f"dtype must be one of {', '.join(DTYPES)}, got {_shown(self.dtype)}")
        for name in _FLAG_FIELDS:
            if not isinstance(getattr(self, name), bool):
                raise BadInput(f"{name} must be true or false, got {_shown(getattr(self, name))}")
        self._check_features()
        if self.max_tensor_elements > MAX_TENSOR_ELEMENTS:
            raise BadInput(f"shape {self.key}: a tensor of {self.max_tensor_elements} elements exceeds "
                           f"{MAX_TENSOR_ELEMENTS} (2^40, the ceiling for every kernel)")

    def _check_features(self) -> None:
        for name in ("window_left", "window_right"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not UNBOUNDED <= value <= INT32_MAX:
                raise BadInput(f"{name} must be -1 (unbounded) or an integer from 0 to {INT32_MAX}, "
                               f"got {_shown(value)}")
        if self.causal and self.window_right > 0:
            raise BadInput(f"window_right {self.window_right} contradicts causal (causal is window_right=0): "
                           "give one of them")
        if not isinstance(self.topk, int) or isinstance(self.topk, bool) or not 0 <= self.topk <= MAX_TOPK:
            raise BadInput(f"topk must be an integer from 0 (dense) to {MAX_TOPK}, got {_shown(self.topk)}")

    @property
    def max_tensor_elements(self) -> int:
        """Elements of the largest operand: Q and O (batch, seq_q, heads, head_dim) or K and V."""
        q_elems = self.batch * self.seq_q * self.heads * self.head_dim
        kv_elems = self.batch * self.seq_k * self.heads_kv * self.head_dim
        return max(q_elems, kv_elems)

    @property
    def windowed(self) -> bool:
        return self.window_left != UNBOUNDED or self.window_right != UNBOUNDED

    @property
    def right_bound(self) -> int:
        """Keys right of the diagonal a row sees (-1 unbounded): causal and window_right combined."""
        return 0 if self.causal else self.window_right

    @property
    def features(self) -> tuple[str, ...]:
        """The feature names this config needs (kernels/family.toml `features` must list each)."""
        wanted = {"window": self.windowed, "sink": self.sink, "topk": self.topk > 0, "kv_shared": self.kv_shared,
                  "key_ranges": self.key_ranges}
        return tuple(name for name, used in wanted.items() if used)

    def _feature_parts(self) -> list[tuple[str, str]]:
        """(key suffix, --shape text) of each feature this config sets, in one order."""
        parts = []
        if self.windowed:
            sides = (("wl", self.window_left), ("wr", self.window_right))
            parts.append((f"w{self.window_left}_{self.window_right}",
                          ",".join(f"{name}={value}" for name, value in sides if value != UNBOUNDED)))
        if self.sink:
            parts.append(("sink", "sink"))
        if self.topk:
            parts.append((f"topk{self.topk}", f"topk={self.topk}"))
        if self.kv_shared:
            parts.append(("kvs", "kvshared"))
        if self.key_ranges:
            parts.append(("kvr", "kvr"))
        return parts

    @property
    def key(self) -> str:
        """Stable, human-readable identity used in results and NVTX ranges."""
        kv = "" if self.heads_kv == self.heads else f"kv{self.heads_kv}"
        mask = "-causal" if self.causal else ""
        return (f"b{self.batch}h{self.heads}{kv}-t{self.seq_q}s{self.seq_k}"
                f"-d{self.head_dim}-{self.dtype}{mask}" + "".join(f"-{key}" for key, _ in self._feature_parts()))

    def shape_text(self) -> str:
        """The --shape text that parse_shape turns back into this config."""
        return (f"b={self.batch},h={self.heads},hkv={self.heads_kv},t={self.seq_q},s={self.seq_k},"
                f"d={self.head_dim},dtype={self.dtype}" + (",causal" if self.causal else "")
                + "".join(f",{text}" for _, text in self._feature_parts()))

    def visible_range(self, row: int) -> tuple[int, int]:
        """The keys [lo, hi] query row `row` sees under causal and the window (top-k lists and key
        ranges aside); empty when hi < lo."""
        offset = self.seq_k - self.seq_q
        lo = 0 if self.window_left == UNBOUNDED else max(0, row + offset - self.window_left)
        right = self.right_bound
        hi = self.seq_k - 1 if right == UNBOUNDED else min(self.seq_k - 1, row + offset + right)
        return lo, hi

    def visible_keys(self, row: int) -> int:
        """How many keys query row `row` sees under causal and the window (top-k lists aside)."""
        lo, hi = self.visible_range(row)
        return max(0, hi - lo + 1)

    def flops_in_ranges(self, key_ranges) -> float:
        """flops with each batch row's keys cut to its [start, end) (a kvr config's drawn ranges,
        a sequence of (start, end)): 4·H·D per visible (query, key) pair, as `flops` counts them."""
        pairs = 0
        for start, end in key_ranges:
            for row in range(self.seq_q):
                lo, hi = self.visible_range(row)
                pairs += max(0, min(hi, int(end) - 1) - max(lo, int(start)) + 1)
        return 4.0 * self.heads * self.head_dim * pairs

    @property
    def flops(self) -> float:
        """4·B·H·T·S·D, causal counted over the unmasked part as FlashAttention counts it. Key
        ranges (kvr) are drawn per run, so they are not counted here: see flops_in_ranges."""
        dense = 4.0 * self.batch * self.heads * self.seq_q * self.seq_k * self.head_dim
        if self.topk:  # every list entry is one term (docs/features.md), visible or not
            return dense * self.topk / self.seq_k
        if not self.causal and not self.windowed:
            return dense
        # Bottom-right aligned: query i sees keys j <= i + (S - T), within its window.
        seen = sum(self.visible_keys(i) for i in range(self.seq_q))
        return dense * seen / (self.seq_q * self.seq_k)

    def to_dict(self) -> dict:
        """The fields; feature fields only when set, so a plain config's dict (and every stored
        row's config and record hash) is what it was before the features existed."""
        data = asdict(self)
        for name, default in _FEATURE_DEFAULTS.items():
            if data[name] == default:
                del data[name]
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> "AttnConfig":
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise BadInput(f"unknown config field(s): {', '.join(sorted(unknown))}")
        return cls(**data)


_FEATURE_DEFAULTS = {"window_left": UNBOUNDED, "window_right": UNBOUNDED, "sink": False, "topk": 0,
                     "kv_shared": False, "key_ranges": False}


def head_dim_pow2(head_dim: int) -> int:
    """The `{head_dim_pow2}` of entry-name patterns (kernels/family.toml, a project's
    fmhactl.toml): the next power of two >= 64, the entry a kernel that zero-pads the head dim
    compiles for it (d=96 runs the d128 entry)."""
    return max(64, 1 << (head_dim - 1).bit_length())


def _shown(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…'"


MAX_SHAPE_TEXT = 400


def parse_shape(text: str) -> AttnConfig:
    """Parse 'b=2,h=8,hkv=2,t=128,s=512,d=128,dtype=bf16,causal' into a config.

    Feature fields: wl=/wr= (window left/right, -1 unbounded), sink, topk=K, kvshared, kvr (per-batch key
    ranges: verify draws them, fmhactl/runtime/features.py).

    Every key at most once (aliases count as the same key), every integer positive and within
    int32, hkv a divisor of h (hkv=0 is refused: leave hkv out for "same as h").
    """
    if len(text) > MAX_SHAPE_TEXT:
        raise BadInput(f"--shape is {len(text)} characters long; a shape has at most {MAX_SHAPE_TEXT}")
    if not text.replace(" ", "").replace(",", ""):
        raise BadInput("--shape is empty: give at least one field, e.g. d=128 (b,h,hkv,t,s,d,dtype,causal)")
    values: dict[str, object] = {}
    for raw in text.replace(" ", "").split(","):
        if not raw:
            continue
        name, sep, value = raw.partition("=")
        field = _ALIASES.get(name.lower())
        if field is None:
            raise BadInput(f"unknown shape field {_shown(name)} in --shape {_shown(text)} "
                           f"(use b,h,hkv,t,s,d,dtype,causal,wl,wr,sink,topk,kvshared,kvr)")
        if field in values:
            raise BadInput(f"shape field {_shown(name)} given twice in --shape {_shown(text)}")
        if field not in _FLAG_FIELDS and not sep:
            raise BadInput(f"shape field {_shown(name)} needs a value ({name}=...) in --shape {_shown(text)}")
        if field in _FLAG_FIELDS:
            values[field] = _parse_bool(value, field) if sep else True
        elif field == "dtype":
            values[field] = value
        else:
            if not re.fullmatch(r"[+-]?[0-9]{1,12}", value):
                raise BadInput(f"{name} must be an integer in --shape, got {_shown(value)}")
            values[field] = int(value)
            if field in ("window_left", "window_right", "topk"):
                continue  # their own ranges: AttnConfig._check_features
            if values[field] <= 0:
                raise BadInput(f"{field} must be a positive integer, got {values[field]} in --shape")
    return AttnConfig(**values)  # type: ignore[arg-type]


def _parse_bool(value: str, field: str = "causal") -> bool:
    lowered = value.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise BadInput(f"{field} must be true or false, got {_shown(value)}")
