"""The op's cached launch path: per call, only what differs between calls.

A call is keyed by everything the op's checks and its kernel choice read: shapes, strides, dtypes
and devices of q, k, v, the flags, the scale and the backend override, and for a call with
attention features (fmhactl.torch.features) the window bounds, kv_shared and the shapes, strides,
dtypes and devices of sinks, topk_idx and key_ranges (so the top-k length too). The first call with a key
runs the full checks (fmhactl.torch.inputs), chooses the backend, builds and loads the kernel and
makes a LaunchPlan: the parameter block with sizes, strides, scale and mask filled in, the launch
geometry, the SMEM attribute set, and the TMA descriptors encoded once. A later call with that key
checks the three base addresses' alignment (O(1)), allocates the outputs, writes five pointers into
the block (one more for each of sinks, top-k lists and key ranges; under kv_shared V's is K's), moves each descriptor
whose operand moved (cuTensorMapReplaceAddress), and enqueues the kernel with one driver call on
the current stream. A launcher's second by-value argument is the plan's: TMA maps, or
sm90_mqa_gather's GatherSplit (its split-K workspace and merge counters are per (device, stream),
re-read when the call's stream differs from the last one's, like the persistent tile counter).
Nothing synchronises the host.

A decode-sized plain call (seq_q <= decode.MAX_SEQ_Q) that the decode kernels leave to the family
(decode.family_from_keys) or decline builds a plan that is also kept under a key without the KV
length (call_key with_kv_length=False): a growing cache's next step finds it there, and the plan rewrites
seq_k, the K/V strides and their maps in place (kv_length.KvRefresh) instead of a new plan a step.

A call whose head dim no native kernel takes (backends.choose pads it) keys a LaunchPlan of the
wider kernel under TMA zero fill (Backend.tma_fill: tensor maps over the call's own tensors, O
allocated at its head dim; no copies), unless the decode kernels would take the padded call.
Otherwise it keys a PaddedPlan: each call pads q/k/v (one pad kernel each) and goes through this
path again at the padded head dim, whose own plan (or decode plan) launches; the output's first
columns are copied out (fmhactl.torch.padding).

Calls the plan cannot serve return None and take the general path in fmhactl.torch.op: emulated
backends (they read results back after each launch), tensors that must be copied first (strides
or base addresses a tile-loading kernel cannot read; non-contiguous sinks, topk_idx or
key_ranges), feature calls no kernel covers (the torch fallback), an empty query, another current
device, or no usable libcuda (the fast path then reports why in `status()`).
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from fmhactl.plans.launch import SPLIT_PLANNERS
from fmhactl.runtime.driver import launch_head
from fmhactl.torch import backends, decode, kv_length, padding
from fmhactl.torch import features as _features
from fmhactl.torch import launch as _launch
from fmhactl.torch.inputs import capability, check_inputs, choose_backend, config_of, to_bshd

ENABLE_ENV = "FMHACTL_TORCH_FAST"  # "0" turns the cached path off (every call takes the general path)
MAX_PLANS = 4096  # distinct call signatures kept; the cache is cleared past this (decode grows seq_k by one a step)
_NOT_SERVED = None  # a cached "this signature takes the general path"

# Tensor maps per launcher, in the order of the map struct's fields: which of (q, k, v, o) each reads.
_MAP_OPERANDS = {"sm90": (0, 1, 2, 3), "sm100": (0, 1, 2)}


@dataclass(eq=False)
class LaunchPlan:
    """One call signature's launch, settled once; `run` fills in this call's addresses."""

    variant: str
    device_index: int
    function: int
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_smem: int
    params: ctypes.Structure
    maps: ctypes.Structure | None
    map_slots: tuple[tuple[int, int], ...]  # (host address of the map, operand index in (q, k, v, o))
    map_addresses: list[int]  # the global address each map holds now
    out_size: tuple[int, ...]
    out_stride: tuple[int, ...]
    lse_size: tuple[int, ...] | None  # None: the call wants no LSE
    dtype: torch.dtype
    device: torch.device
    align_mask: int  # base addresses & align_mask must be 0 (tile loads need 16 bytes)
    counter_for: Callable[[int], int] | None  # stream -> its tile counter's address (persistent kernels)
    stream: int
    kernel_params: ctypes.Array = field(repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    with_sinks: bool = False  # the block's sinks pointer is this call's (fp32, contiguous by the key)
    with_topk: bool = False  # the block's topk_idx pointer is this call's (int32, contiguous by the key)
    with_key_ranges: bool = False  # the block's key_ranges pointer is this call's (int32, contiguous by the key)
    with_features: bool = False  # made for a call with attention features (status()["feature_plans"])
    kv_shared: bool = False  # V is read from K: the block's v pointer (and V's map) is k's address
    split_for: Callable[[int], ctypes.Structure] | None = None  # stream -> sm90_gather's GatherSplit
    launches: int = 0  # calls this plan enqueued (status()["plan_launches"] sums them)
    tma_fill: bool = False  # a wider head dim's kernel on the call's narrower tensors (TMA zero fill)
    kv: kv_length.KvRefresh | None = None  # set: a call with other K/V shapes or strides is rewritten in place
    # fixed per plan, made once: cuLaunchKernel's first eight arguments as ready ctypes objects
    # (RawDriver.enqueue) and the address of the kernel's argument array
    head: tuple = field(init=False, repr=False)
    kernel_params_address: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.head = launch_head(self.function, self.grid, self.block, self.dynamic_smem)
        self.kernel_params_address = ctypes.addressof(self.kernel_params)

    def run(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, driver, sinks: torch.Tensor | None = None,
            topk_idx: torch.Tensor | None = None, key_ranges: torch.Tensor | None = None) -> tuple | None:
        """(out, lse or None) for this call, or None when its addresses need the general path.
        sinks/topk_idx/key_ranges: this call's, present exactly when the plan's key says so."""
        qp, kp = q.data_ptr(), k.data_ptr()
        vp = kp if self.kv_shared else v.data_ptr()
        if (qp | kp | vp) & self.align_mask:
            return None
        sp = sinks.data_ptr() if self.with_sinks else 0
        tp = topk_idx.data_ptr() if self.with_topk else 0
        rp = key_ranges.data_ptr() if self.with_key_ranges else 0
        if (sp | tp | rp) & 3:  # 4-byte elements read one by one: an address off the element is not theirs
            return None
        out = torch.empty_strided(self.out_size, self.out_stride, dtype=self.dtype, device=self.device)
        lse = None
        if self.lse_size is not None:
            lse = torch.empty(self.lse_size, dtype=torch.float32, device=self.device)
        op = out.data_ptr()
        stream = _raw_stream(self.device_index)
        with self.lock:
            if self.kv is not None:
                state = kv_length.kv_state(k, v)
                if state != self.kv.state and not self.kv.apply(self, k, v, state):
                    return None
            p = self.params
            p.q, p.k, p.v, p.o = qp, kp, vp, op
            if lse is not None:
                p.lse = lse.data_ptr()
            if self.with_sinks:
                p.sinks = sp
            if self.with_topk:
                p.topk_idx = tp
            if self.with_key_ranges:
                p.key_ranges = rp
            if self.map_slots:
                addresses = (qp, kp, vp, op)
                for i, (tmap, operand) in enumerate(self.map_slots):
                    address = addresses[operand]
                    if address != self.map_addresses[i]:
                        driver.replace_address(tmap, address)
                        self.map_addresses[i] = address
            if stream != self.stream and (self.counter_for is not None or self.split_for is not None):
                if self.counter_for is not None:
                    p.tile_counter = self.counter_for(stream)
                if self.split_for is not None:
                    split = self.split_for(stream)
                    ctypes.memmove(ctypes.addressof(self.maps), ctypes.addressof(split), ctypes.sizeof(split))
                self.stream = stream
            driver.enqueue(self.head, stream, self.kernel_params_address)
            self.launches += 1
        return out, lse


@dataclass(frozen=True)
class PaddedPlan:
    """A signature whose head dim no native kernel takes (backends.choose padded it): each call pads
    q/k/v to head_dim and takes this path again with the padded tensors, so the padded head dim's
    own cached plan (or decode plan) serves it (fmhactl.torch.padding)."""

    head_dim: int

    def run(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float | None,
            return_lse: bool, layout: str, f: _features.Features) -> tuple | None:
        def padded(qp, kp, vp, s):
            return attention(qp, kp, vp, causal, s, return_lse, "bshd", f)

        return padding.run_padded(q, k, v, self.head_dim, scale, layout, f.kv_shared, padded)


_plans: dict[tuple, LaunchPlan | PaddedPlan | None] = {}
# Decode-sized plain calls: the plans that take a new KV length in place, by call_key(with_kv_length=False)
# (looked up when the full key misses: a growing cache's next step).
_kv_plans: dict[tuple, LaunchPlan] = {}
_build_lock = threading.Lock()
_state: dict[str, object] = {"enabled": os.environ.get(ENABLE_ENV, "1") != "0", "driver": None, "why_off": None,
                             "replace_checked": False}


def set_enabled(enabled: bool) -> None:
    """Turn the cached path on or off for this process (off: every call takes the general path)."""
    _state["enabled"] = bool(enabled)


def status() -> dict:
    """Whether the cached path serves calls, how many signatures it holds, and why it is off if it is."""
    plans = list(_plans.values())
    launch_plans = [p for p in plans if isinstance(p, LaunchPlan)]
    return {"enabled": bool(_state["enabled"]), "plans": len(launch_plans),
            "general_path_signatures": sum(p is None for p in plans), "off_reason": _state["why_off"],
            "feature_plans": sum(p.with_features for p in launch_plans),
            "plan_launches": sum(p.launches for p in launch_plans),
            "padded_signatures": sum(isinstance(p, PaddedPlan) for p in plans),
            "tma_fill_plans": sum(p.tma_fill for p in launch_plans),
            "padded_copies": padding.copies(),
            "decode_launches": decode.launches(),
            "kv_length_refreshes": sum(p.kv.refreshes for p in launch_plans if p.kv is not None)}


def clear() -> None:
    """Forget every plan (they hold loaded-kernel handles and descriptor copies)."""
    with _build_lock:
        _plans.clear()
        _kv_plans.clear()
    decode.clear()


def _raw_stream(device_index: int) -> int:
    return torch.cuda.current_stream(device_index).cuda_stream


def _current_device() -> int:
    return torch.cuda.current_device()


if hasattr(torch._C, "_cuda_getCurrentRawStream"):  # CUDA builds: the stream handle without a Stream object
    _raw_stream = torch._C._cuda_getCurrentRawStream  # noqa: F811
if hasattr(torch._C, "_cuda_getDevice"):
    _current_device = torch._C._cuda_getDevice  # noqa: F811


def _driver():
    """The ctypes driver, made on first use; None (and the reason in status()) when libcuda cannot be bound."""
    if _state["driver"] is None and _state["why_off"] is None:
        from fmhactl.runtime.driver import RawDriver

        try:
            _state["driver"] = RawDriver()
        except (OSError, AttributeError) as exc:
            _state["why_off"] = f"libcuda could not be bound through ctypes: {exc}"
    return _state["driver"]


def _tensor_key(t: torch.Tensor | None) -> tuple | None:
    return None if t is None else (t.shape, t.stride(), t.dtype, t.get_device())


def call_key(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float | None,
             return_lse: bool, layout: str, f: _features.Features = _features.NONE,
             with_kv_length: bool = True) -> tuple:
    """Everything the checks and the kernel choice read (addresses and the stream excluded). A call
    with features adds one entry: window bounds, kv_shared, the layouts of sinks, topk_idx and
    key_ranges (or None). with_kv_length=False: K/V's sequence length and strides left out
    (kv_length.kv_free_part), the key of a plan that takes a new KV length in place."""
    kv = (k.shape, k.stride(), v.shape, v.stride()) if with_kv_length else kv_length.kv_free_part(k, v, layout)
    key = (q.shape, q.stride(), *kv, q.dtype, k.dtype, v.dtype,
           q.get_device(), k.get_device(), v.get_device(), causal, scale, return_lse, layout,
           backends.current_override())
    if f is _features.NONE or not f.any:  # the identity test first: Features.any costs ~60 ns more
        return key
    return key + ((f.window_left, f.window_right, f.kv_shared, _tensor_key(f.sinks), _tensor_key(f.topk_idx),
                   _tensor_key(f.key_ranges)),)


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float | None,
              return_lse: bool, layout: str, f: _features.Features = _features.NONE, *,
              out_bshd: bool = False) -> tuple | None:
    """(out, lse or None) through a cached plan, or None when this call takes the general path.
    f: the call's attention features (fmhactl.torch.features.make), none by default; out_bshd:
    out as (batch, seq_q, heads, dim) whatever the layout (for bhsd the transpose of the layout's
    out: the decode kernels allocate it so, the other plans transpose their view).

    Raises AttentionInputError for bad input (the same line the general path gives)."""
    if not (_state["enabled"] and q.is_cuda and k.is_cuda and v.is_cuda):
        return None
    featured = f is not _features.NONE and f.any
    decode_sized = False
    if featured:
        if any(t is not None and type(t) is not torch.Tensor for t in (f.sinks, f.topk_idx, f.key_ranges)):
            return None
    elif q.dim() == 4 and q.shape[2 if layout == "bhsd" else 1] <= decode.MAX_SEQ_Q:
        decode_sized = True
        driver = _state["driver"]
        if driver is None:  # made on first use (or None: the reason is in status())
            driver = _driver()
        if driver is not None:
            served = decode.attention(q, k, v, causal, scale, return_lse, layout, driver, _current_device(),
                                      _raw_stream, out_bshd=out_bshd)
            if served is not None:
                return served
    key = call_key(q, k, v, causal, scale, return_lse, layout, f)
    plan = _plans.get(key, False)
    if plan is False and decode_sized and k.dim() == 4:
        kv_key = call_key(q, k, v, causal, scale, return_lse, layout, with_kv_length=False)
        plan = _kv_plans.get(kv_key, False)
        if plan is False:
            plan = _build(key, q, k, v, causal, scale, return_lse, layout, f)
            if isinstance(plan, LaunchPlan) and plan.kv is not None:
                with _build_lock:
                    if len(_kv_plans) >= MAX_PLANS:
                        _kv_plans.clear()
                    _kv_plans[kv_key] = plan
    elif plan is False:
        plan = _build(key, q, k, v, causal, scale, return_lse, layout, f)
    if isinstance(plan, PaddedPlan):
        served = plan.run(q, k, v, causal, scale, return_lse, layout, f)
    elif plan is None or _current_device() != plan.device_index:
        return None
    elif featured:
        served = plan.run(q, k, v, _state["driver"], f.sinks, f.topk_idx, f.key_ranges)
    else:
        served = plan.run(q, k, v, _state["driver"])  # a plain call's are all None
    if out_bshd and served is not None and layout == "bhsd":
        return served[0].transpose(1, 2), served[1]
    return served


def padded_decode(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, key_ranges: torch.Tensor, shift: int,
                  causal: bool, scale: float | None) -> torch.Tensor | None:
    """(batch, seq_q, heads, dim) of a padded batch (bhsd inputs) in one decode launch, or None.

    key_ranges: (batch, 2) int32 on q's device, each row's valid keys [start, end); causal queries
    see keys j <= i + shift; a query that sees no key gets zeros."""
    if not (_state["enabled"] and q.is_cuda and k.is_cuda and v.is_cuda) or q.dim() != 4:
        return None
    if q.shape[2] > decode.PADDED_MAX_SEQ_Q or _driver() is None:
        return None
    served = decode.attention(q, k, v, causal, scale, False, "bhsd", _state["driver"], _current_device(), _raw_stream,
                              key_ranges, shift, decode.PADDED_MAX_SEQ_Q, out_bshd=True)
    return None if served is None else served[0]


def _build(key: tuple, q, k, v, causal: bool, scale: float | None, return_lse: bool, layout: str,
           f: _features.Features = _features.NONE):
    p = check_inputs(q, k, v, layout, scale)  # bad input raises here, and is never cached
    if f.any:
        _features.check_features(f, p, q, k, v, causal, layout)  # read only what the key holds
    with _build_lock:
        if key in _plans:
            return _plans[key]
        plan = _make_plan(p, q, k, v, causal, scale, return_lse, layout, f)
        if len(_plans) >= MAX_PLANS:
            _plans.clear()
        if plan is not None or _current_device() == q.get_device():
            _plans[key] = plan  # a refusal made on another current device is not the signature's
        return plan


def _make_plan(p, q, k, v, causal: bool, scale: float | None, return_lse: bool, layout: str,
               f: _features.Features = _features.NONE):
    from fmhactl.runtime import driver as cuda_driver
    from fmhactl.runtime.features import FeatureInputs
    from fmhactl.runtime.params import default_scale

    if p.seq_q == 0 or _current_device() != q.get_device():
        return _NOT_SERVED
    if any(t is not None and not t.is_contiguous() for t in (f.sinks, f.topk_idx, f.key_ranges)):
        return _NOT_SERVED  # the general path copies them (contiguity is the key's: its strides)
    backend = choose_backend(q, p, causal, f)
    if backend.padded_head_dim and backend.mode == "native" and not _fills_here(backend, p, q, f):
        return PaddedPlan(backend.padded_head_dim)
    if backend.mode != "native" or _driver() is None:
        return _NOT_SERVED  # emulated, or the torch fallback of a feature call no kernel covers
    variant = _launch.registry()[backend.variant]
    views = [to_bshd(t, layout) for t in (q, k, v)]
    if f.kv_shared:
        views[2] = views[1]  # V is read from K (as the general path does)
    if any(_launch.needs_copy(variant.launcher, t) for t in views):
        return _NOT_SERVED  # strides (or this call's addresses) a tile-loading kernel cannot read
    cfg = config_of(p, q.dtype, causal, f)
    device = q.device
    out_bshd = torch.empty((p.batch, p.seq_q, p.heads, p.head_dim), dtype=q.dtype, device=device)
    out = out_bshd.transpose(1, 2) if layout == "bhsd" else out_bshd
    lse = torch.empty((p.batch, p.heads, p.seq_q), dtype=torch.float32, device=device) if return_lse else None
    executor = _launch.executor(q.get_device())
    job = _launch.job_for(backend, cfg)  # job.config: the kernel's head dim (wider under TMA zero fill)
    extra = FeatureInputs(sinks=f.sinks, topk_idx=f.topk_idx, key_ranges=f.key_ranges) if f.any else None
    fn, shape, args = executor.launch_args(job, job.config, *views, out_bshd, lse,
                                           scale=default_scale(cfg) if scale is None else scale, features=extra)
    cuda_driver.allow_dynamic_smem(fn, shape.dynamic_smem)
    params = args[0]
    maps = type(args[1]).from_buffer_copy(args[1]) if len(args) > 1 else None  # ours to patch
    split_for = None
    if variant.launcher in SPLIT_PLANNERS:  # GatherSplit: its workspace is the stream's (Executor.gather_split)
        def split_for(s: int, _executor=executor, _job=job, _cfg=job.config):
            return _executor.gather_split(_job, _cfg, s)
    slots: tuple[tuple[int, int], ...] = ()
    if maps is not None and variant.launcher in _MAP_OPERANDS and _maps_are_real(maps):
        names = [name for name, _ in maps._fields_]
        slots = tuple((ctypes.addressof(maps) + getattr(type(maps), name).offset, operand)
                      for name, operand in zip(names, _MAP_OPERANDS[variant.launcher]))
        _check_replace_address(views[0])
        if not _state["enabled"]:
            return _NOT_SERVED
    kv = None
    if slots and variant.launcher == "sm90" and p.seq_q <= decode.MAX_SEQ_Q and not f.any and not backend.tma_fill:
        kv_slots = tuple(i for i, (_, operand) in enumerate(slots) if operand in (1, 2))  # K's, then V's
        kv = kv_length.KvRefresh(layout, job.tile_plan.block_n, (type(maps).k.offset, type(maps).v.offset),
                                 kv_slots, kv_length.kv_state(k, v))
    kept = [params] + ([maps] if maps is not None else [])
    kernel_params = (ctypes.c_void_p * len(kept))(*[ctypes.addressof(a) for a in kept])
    addresses = [t.data_ptr() for t in (*views, out_bshd)]
    stream = _raw_stream(q.get_device())
    counter = None
    if params.tile_counter:
        def counter(s: int, _executor=executor, _job=job) -> int:
            return _executor.tile_counter(_job, s).data_ptr()
    plan = LaunchPlan(
        variant=backend.variant, device_index=q.get_device(), function=int(fn), grid=tuple(shape.grid),
        block=tuple(shape.block), dynamic_smem=shape.dynamic_smem, params=params, maps=maps, map_slots=slots,
        map_addresses=[addresses[operand] for _, operand in slots], out_size=tuple(out.shape),
        out_stride=tuple(out.stride()), lse_size=tuple(lse.shape) if lse is not None else None, dtype=q.dtype,
        device=device, align_mask=0 if variant.launcher == "ref" else 15, counter_for=counter, stream=stream,
        kernel_params=kernel_params, with_sinks=f.sinks is not None, with_topk=f.topk_idx is not None,
        with_key_ranges=f.key_ranges is not None,
        kv_shared=f.kv_shared, split_for=split_for, with_features=f.any, tma_fill=backend.tma_fill, kv=kv)
    return plan


def _fills_here(backend: backends.Backend, p, q, f: _features.Features) -> bool:
    """Whether this path runs a padded call through the kernel's TMA zero fill: the backend may
    (Backend.tma_fill) and the padded call would not come to the decode kernels, which a plain call
    of few queries tries first (they stay faster there, so it keeps the copy padding)."""
    if not backend.tma_fill:
        return False
    return f.any or not decode.takes_padded(p.seq_q, backend.padded_head_dim, capability(q.device), q.dtype)


def _maps_are_real(maps: ctypes.Structure) -> bool:
    """SM100 variants that load without TMA get a zeroed map struct: nothing to move."""
    return any(ctypes.string_at(ctypes.addressof(maps), ctypes.sizeof(maps)))


def _check_replace_address(operand: torch.Tensor) -> None:
    """Once per process: a descriptor moved with cuTensorMapReplaceAddress must equal one encoded at
    the new address, byte for byte; otherwise the cached path turns itself off (status() says why)."""
    if _state["replace_checked"]:
        return
    import dataclasses

    from fmhactl.runtime.tma_maps import encode_params, map_params

    try:
        params = map_params(operand, 64)
        moved_to = params.global_address + (1 << 16)
        moved = encode_params(params)
        _state["driver"].replace_address(ctypes.addressof(moved), moved_to)
        same = bytes(moved) == bytes(encode_params(dataclasses.replace(params, global_address=moved_to)))
    except Exception as exc:  # noqa: BLE001 - the check must never fail the call it runs in
        same, why = False, f"the cuTensorMapReplaceAddress check could not run: {type(exc).__name__}: {exc}"
    else:
        why = "cuTensorMapReplaceAddress did not reproduce a fresh encoding"
    if not same:
        _state["enabled"] = False
        _state["why_off"] = why.splitlines()[0]
    _state["replace_checked"] = True
