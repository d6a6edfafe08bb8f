"""Which kernel serves an attention call: decided per call from the GPU, overridable.

Pure Python over the registry (no torch, no CUDA), so the choice is testable on a CPU.

Order of preference per GPU generation (first registered variant that supports the call wins):
  sm_100 (Blackwell): the native SM100 tcgen05 family;
  sm_90 (Hopper): the native SM90 family (sm90_persistent at hd 64/128, sm90_pingpong, then
                  sm90_pipelined; sm90_persistent_m192 first for an hd64 call of at least
                  M192_MIN_SEQ_Q queries, causal or not; sm90_pingpong first for a plain
                  non-causal call at hd 65..128 over at least PINGPONG_MIN_SEQ_K keys), picked up by registry
                  name as soon as kernels/family.toml declares them;
  a head dim no native variant takes (80, 96, 160, ...) is zero-padded to the smallest head dim
  one does take for this call (`padded_head_dim`): exact, and far faster than `ref`; on a variant
  declaring `tma_head_dim_fill` (the sm90 launcher's) the padding is the TMA loads' zero fill, no
  copies (`tma_fill`, `kernel_head_dim`), where no row of the call can be keyless;
  anything else, or no family variant supports the call at any head dim: `ref`.
The SM100 family on a Hopper GPU runs only through the tcgen05 *emulation*, a debugging tool
orders of magnitude slower than native: it is used only when named explicitly as an override.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass

from fmhactl.config import AttnConfig
from fmhactl.registry import Variant

BACKEND_ENV = "FMHACTL_TORCH_BACKEND"
TMA_FILL_ENV = "FMHACTL_TORCH_TMA_FILL"  # "0": every padded head dim is padded by copies (A/B timing)
REFERENCE = "ref"

PREFERENCES: dict[int, tuple[str, ...]] = {
    10: ("sm100_tma_s2_tmem", "sm100_tma_s2_smem", "sm100_tma_tmem", "sm100_direct_tmem", "sm100_direct_smem"),
    # The `_feat` variants and sm90_mqa_gather after the plain ones: a plain call keeps its kernel,
    # a call with window/sinks/K = V (hd <= 256) gets a `_feat` one, top-k or hd512 the gather kernel.
    9: ("sm90_persistent", "sm90_pingpong", "sm90_pipelined", "sm90_persistent_feat", "sm90_pingpong_feat",
        "sm90_mqa_gather"),
}
# T = 1 over one shared K = V at hd512 (DeepSeek-V4's decode) with at least this many (batch x KV
# head) query rows: sm90_mqa_decode (wgmma, 64 heads a CTA) ahead of sm90_mqa_gather. Measured on
# the H100 in one call under the decode split rule (notes/features/session12/README.md, call 2):
# top-k 512 b1/b4/b16/b64 26.1/26.8/26.8/35.2 us against the gather kernel's 24.8/22.9/32.5/49.4;
# window 128 16.9-18.5 against 18.4-30.4 at every batch. A range of neither kind (causal or dense
# over the cache) was not timed there: it keeps session 11's bound.
WGMMA_DECODE_MIN_ROWS = 64
WGMMA_DECODE_MIN_ROWS_TOPK = 16
WGMMA_DECODE_MIN_ROWS_WINDOW = 1


def wgmma_decode_min_rows(cfg: AttnConfig) -> int:
    """The (batch x KV head) rows from which a T = 1 call tries sm90_mqa_decode first."""
    if cfg.topk:
        return WGMMA_DECODE_MIN_ROWS_TOPK
    if cfg.window_left >= 0:
        return WGMMA_DECODE_MIN_ROWS_WINDOW
    return WGMMA_DECODE_MIN_ROWS


# sm90_persistent_m192 (FA3's 192-row tile at hd64) computes a row for ~0.87x of sm90_persistent's
# time. Since session 15 a consumer WG whose 64 rows all lie past seq_q skips its work (pass_tile),
# so the last tile costs the rows it has, not 192. Measured on the H100 (kernel median, m192
# against sm90_persistent, hd64, cuDNN/kernel in brackets):
#   non-causal (notes/op-session15/call3-pass): b16 h16 S1k 167.2 against 172.2 us (0.955 against
#   0.92-0.93); b32 S512 97.1 against 98.8-100.3; b8 S2k 291 against 314; b16 S576 66.7 against
#   76.5; S4k 1044 against 1205; b4 S8k 2147 against 2411; but b32 h12 S197 33.7 against 29.1;
#   causal, since session 18's 192-row tiles end at seq_q (the spare WGs in the lightest tile) and
#   skip the KV tiles a WG's rows mask whole (notes/op-session18/call3): b16 S1k 108.8-109.7 against
#   121.7-121.8 (0.98 against 0.87), b32 S512 78.2-79.1 against 85.3-85.4 (0.90 against 0.82), b16
#   S1000 109.1 (once 132.0) against 122.8-123.8, b16 S576 50.7-52.2 against 59.1-59.3, b8 S2k
#   167-169 against 187, b8 S4k 558-564 against 631-632. (Before it, S1k lost: 130.6 against 120.1.)
# So from this many queries on, causal or not.
M192_MIN_SEQ_Q = 512


def fills_192_row_tiles(cfg: AttnConfig) -> bool:
    """Whether a call should try the 192-row tile first (sm90_persistent_m192, or its `_feat`
    namesake for a call with window, sinks, K = V or key ranges): at least M192_MIN_SEQ_Q
    queries, causal or not. Their head dims (64 only) and features are the variants' own
    (kernels/family.toml): `choose` skips them elsewhere."""
    return cfg.seq_q >= M192_MIN_SEQ_Q


# sm90_pingpong (one CTA per 128-row tile) runs a long non-causal KV loop at hd128 2-3% faster than
# sm90_persistent, whose tile claims, double Q and staged O pay off on short KV loops and causal
# schedules instead. Kernel medians, non-causal hd128, same call (cuDNN/kernel in brackets):
#   H100, session 17 call 10 (notes/op-session17): S8k 1.078 against 1.045-1.053; GQA 32:8 S4k
#   1.095-1.097 against 1.038-1.070.
#   H200, session 21 call 2 (notes/op-session21): b4 S8k 3420/3419/3421 us against 3534/3506/3534
#   (1.03-1.08 against 1.03-1.05); GQA 32:8 S4k 3475/3498/3429 against 3535/3569/3535; b8 S4k
#   1558/1679/1556 against 1626/1732/1558. Not where the KV loop is short: b32 S512 170-178 against
#   142-144; nor causal: b8 S4k 950-997 against 907-931.
PINGPONG_MIN_SEQ_K = 4096


def prefers_pingpong(cfg: AttnConfig) -> bool:
    """Whether a call should try sm90_pingpong ahead of sm90_persistent: plain (no feature),
    non-causal, at a head dim the d128 kernel runs (65..128, padded ones included), a full query
    tile and at least PINGPONG_MIN_SEQ_K keys."""
    return (not cfg.causal and not cfg.features and 64 < cfg.head_dim <= 128 and cfg.seq_q >= 128
            and cfg.seq_k >= PINGPONG_MIN_SEQ_K)


def tried_first(cc: tuple[int, int], cfg: AttnConfig) -> tuple[tuple[str, str], ...]:
    """(variant, the measured rule) that go ahead of PREFERENCES' order for this call, in the order
    tried: preferences() puts them first and backend_for's reason names the rule."""
    if int(cc[0]) != 9:
        return ()
    first: list[tuple[str, str]] = []
    if cfg.seq_q == 1 and cfg.batch * cfg.heads_kv >= wgmma_decode_min_rows(cfg):
        # it declines what it cannot run (hd512 and K = V only)
        first.append(("sm90_mqa_decode", "wgmma decode first: T = 1 over at least "
                      f"{wgmma_decode_min_rows(cfg)} batch x KV-head rows"))
    if fills_192_row_tiles(cfg):
        first.append(("sm90_persistent_m192_feat" if cfg.features else "sm90_persistent_m192",
                      f"192-row tile first: at least {M192_MIN_SEQ_Q} queries"))
    if prefers_pingpong(cfg):
        first.append(("sm90_pingpong", "ping-pong first: a plain non-causal call over at least "
                      f"{PINGPONG_MIN_SEQ_K} keys"))
    return tuple(first)


def preferences(cc: tuple[int, int], cfg: AttnConfig) -> tuple[str, ...]:
    """The native family of capability cc in the order tried for this call."""
    first = tuple(name for name, _ in tried_first(cc, cfg))
    return first + tuple(n for n in PREFERENCES.get(int(cc[0]), ()) if n not in first)


# A call with attention features (docs/features.md) that no kernel covers runs the torch reference
# in fp32 (fmhactl.torch.features.fallback): slow, never silently wrong.
FALLBACK = "torch"


@dataclass(frozen=True)
class Backend:
    """The kernel a call runs: variant, the arch it is built for, and how it executes."""

    variant: str
    arch: str
    mode: str  # native | emulated | fallback
    reason: str  # why this one (shown by backend_for)
    # The head dim the kernel runs at when the call's own is zero-padded to it (no native variant
    # takes the call's head dim, this one does); None: the call's own head dim.
    padded_head_dim: int | None = None
    # The zero padding is the kernel's TMA zero fill (Variant.tma_head_dim_fill): the wider entry
    # runs on tensor maps over the caller's own tensors, no copies (`kernel_head_dim`). False with a
    # padded_head_dim: the op copies q/k/v zero-padded (fmhactl.torch.padding).
    tma_fill: bool = False

    def __str__(self) -> str:
        return f"{self.variant} ({self.arch}, {self.mode}): {self.reason}"


class NoBackend(ValueError):
    """No kernel can run this call (the message names the input and the rule)."""


_override: str | None = None


def set_backend(name: str | None) -> None:
    """Force a variant for every call (None: automatic). An SM100 variant on sm_90 means emulation."""
    global _override
    _override = name or None


# os.environ.get of an unset name costs about 0.5 µs (Mapping.get raises and catches KeyError), on
# every op call (the cached path keys on the override). CPython's os.environ (os._Environ, since
# 3.2) keeps its items encoded in the dict `_data`, which every assignment, deletion or clear()
# through os.environ updates: reading that dict gives os.environ.get's answer in about 30 ns.
# Anything else (os.environ replaced, another implementation) reads os.environ as before.
_ENVIRON = os.environ
_ENVIRON_DATA = getattr(_ENVIRON, "_data", None)
_ENVIRON_KEY = None
if isinstance(_ENVIRON_DATA, dict) and hasattr(_ENVIRON, "encodekey") and hasattr(_ENVIRON, "decodevalue"):
    _ENVIRON_KEY = _ENVIRON.encodekey(BACKEND_ENV)


def current_override() -> str | None:
    if _override:
        return _override
    if os.environ is _ENVIRON and _ENVIRON_KEY is not None:
        raw = _ENVIRON_DATA.get(_ENVIRON_KEY)
        return None if raw is None else _ENVIRON.decodevalue(raw) or None
    return os.environ.get(BACKEND_ENV) or None


@contextlib.contextmanager
def use_backend(name: str | None) -> Iterator[None]:
    """Within the block, calls use `name` (None: automatic)."""
    global _override
    previous = _override
    _override = name or None
    try:
        yield
    finally:
        _override = previous


def _arch_of(cc: tuple[int, int]) -> str | None:
    from fmhactl.runtime.modes import gpu_arch

    return gpu_arch(cc)


def _runnable(variant: Variant, cc: tuple[int, int], allow_emulation: bool) -> tuple[str, str] | str:
    """(arch, mode) this variant runs as on a GPU of capability cc, or why it cannot."""
    arch = _arch_of(cc)
    if arch is None:
        return f"no build target for compute capability {cc[0]}.{cc[1]}"
    if arch in variant.archs:
        return arch, "native"
    if arch in variant.emulated_on:
        if allow_emulation:
            return arch, "emulated"
        return f"{variant.name} would run emulated on {arch} (name it explicitly to debug with the emulation)"
    return f"{variant.name} has no {arch} build (archs: {', '.join(variant.archs)})"


def _native(cc: tuple[int, int], cfg: AttnConfig, registry: dict[str, Variant],
            skipped: list[str] | None = None) -> Backend | None:
    """The first native family variant that runs cfg as it is, or None (each refusal appended to
    skipped as "name: why")."""
    for name in preferences(cc, cfg):
        variant = registry.get(name)
        if variant is None:
            continue
        where = _runnable(variant, cc, allow_emulation=False)
        why = where if isinstance(where, str) else variant.unsupported_reason(cfg)
        if why:
            if skipped is not None:
                skipped.append(f"{name}: {why}")
            continue
        assert not isinstance(where, str)
        rule = dict(tried_first(cc, cfg)).get(name)
        return Backend(name, where[0], where[1],
                       f"native family for sm_{cc[0]}{cc[1]}" + (f" ({rule})" if rule else ""))
    return None


def _wider_head_dims(cc: tuple[int, int], cfg: AttnConfig, registry: dict[str, Variant]) -> list[int]:
    """Head dims above cfg's that some native variant for cc declares, ascending."""
    dims: set[int] = set()
    for name in preferences(cc, cfg):
        variant = registry.get(name)
        if variant is None:
            continue
        dims.update(variant.head_dims or range(variant.head_dim_multiple, variant.max_head_dim + 1,
                                               variant.head_dim_multiple))
    return sorted(d for d in dims if d > cfg.head_dim)


def kernel_head_dim(backend: Backend, head_dim: int) -> int:
    """The head dim of the entry, tile plan and launch geometry that run a call of head_dim on
    backend with the caller's own tensors: the wider one under TMA zero fill, else head_dim (copy
    padding hands the kernel tensors already padded to the wider one)."""
    return backend.padded_head_dim if backend.tma_fill and backend.padded_head_dim else head_dim


def may_have_keyless_rows(cfg: AttnConfig) -> bool:
    """Whether a row of cfg can see no key: causal with more queries than keys, a window, key
    ranges or top-k lists. The SM90 kernel writes such a tile's O with plain stores of all D
    columns (store_zero_rows), which would overrun a narrower caller's rows under TMA zero fill."""
    return (cfg.causal and cfg.seq_q > cfg.seq_k) or cfg.windowed or cfg.key_ranges or cfg.topk > 0


def _tma_fill(variant: Variant | None, cfg: AttnConfig, head_dim: int) -> bool:
    """Whether variant runs cfg on its head_dim entry through TMA zero fill: it declares the fill,
    no row can be keyless, every 64-column box of the wider entry holds a column of the call's (a
    box wholly past the row is left to copy padding: not measured), and FMHACTL_TORCH_TMA_FILL is
    not "0" (read when a call's plan is made: set it before the first call)."""
    from fmhactl.runtime.tma_maps import SWIZZLE_ATOM_ELEMENTS

    return (variant is not None and variant.tma_head_dim_fill and not may_have_keyless_rows(cfg)
            and head_dim - cfg.head_dim < SWIZZLE_ATOM_ELEMENTS and os.environ.get(TMA_FILL_ENV, "1") != "0")


def _padded(cc: tuple[int, int], cfg: AttnConfig, registry: dict[str, Variant]) -> Backend | None:
    """The native variant for cfg with its head dim zero-padded to the smallest one a native
    variant serves (the same rules: features, causal, GQA, limits), or None. Exact: zero columns
    add nothing to QK^T and give zero output columns, which the op drops (the softmax scale stays
    the call's, 1/sqrt of the unpadded head dim by default). The padding is the kernel's TMA zero
    fill where the variant declares it and the call allows it (`_tma_fill`), else copies."""
    for head_dim in _wider_head_dims(cc, cfg, registry):
        native = _native(cc, dataclasses.replace(cfg, head_dim=head_dim), registry)
        if native is None:
            continue
        if _tma_fill(registry.get(native.variant), cfg, head_dim):
            how = f"head dim {cfg.head_dim} run on the d{head_dim} kernel (TMA zero fill)"
            return dataclasses.replace(native, padded_head_dim=head_dim, tma_fill=True,
                                       reason=f"{how}: {native.reason}")
        return dataclasses.replace(native, padded_head_dim=head_dim,
                                   reason=f"head dim {cfg.head_dim} padded to {head_dim}: {native.reason}")
    return None


def choose(cc: tuple[int, int], cfg: AttnConfig, registry: dict[str, Variant],
           override: str | None = None) -> Backend:
    """The backend for one call on a GPU of capability cc; raises NoBackend with the reason.

    A named override runs exactly what was named (never padded). Otherwise: the first native
    variant that takes the call, else the first that takes it zero-padded to a wider head dim
    (Backend.padded_head_dim), else `ref` (or the torch fallback for features no kernel has)."""
    if override:
        variant = registry.get(override)
        if variant is None:
            raise NoBackend(f"backend override {override!r} is not a variant in kernels/family.toml "
                            f"(known: {', '.join(sorted(v for v in registry if not registry[v].selftest))})")
        where = _runnable(variant, cc, allow_emulation=True)
        if isinstance(where, str):
            raise NoBackend(f"backend override {override!r}: {where}")
        why = variant.unsupported_reason(cfg)
        if why:
            raise NoBackend(f"backend override {override!r} cannot run {cfg.key}: {why}")
        return Backend(variant.name, where[0], where[1], "override")
    skipped: list[str] = []
    native = _native(cc, cfg, registry, skipped)
    if native is not None:
        return native
    padded = _padded(cc, cfg, registry)
    if padded is not None:
        return padded
    variant = registry.get(REFERENCE)
    if variant is None:
        raise NoBackend("no 'ref' variant in kernels/family.toml")
    where = _runnable(variant, cc, allow_emulation=False)
    if isinstance(where, str):
        raise NoBackend(where)
    why = variant.unsupported_reason(cfg)
    if why and cfg.features:
        reason = "; ".join(skipped) if skipped else f"no native family for sm_{cc[0]}{cc[1]}"
        return Backend(FALLBACK, where[0], "fallback", f"no kernel has {', '.join(cfg.features)} here ({reason})")
    if why:
        raise NoBackend(f"{cfg.key}: {why}")
    family = PREFERENCES.get(int(cc[0]))
    if not family:
        reason = f"no native family for sm_{cc[0]}{cc[1]}"
    elif skipped:
        reason = "native family cannot run it (" + "; ".join(skipped) + ")"
    else:
        reason = f"no native sm_{cc[0]}x variant in kernels/family.toml yet ({', '.join(family)})"
    return Backend(REFERENCE, where[0], where[1], reason)
