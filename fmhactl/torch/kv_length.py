"""A cached launch that takes a new KV length in place: decode steps over a growing cache.

A decode step's cache grows by one key, so its K/V shapes and strides change every call. The
split-KV decode kernels (fmhactl.torch.decode) never depended on them; the prefill family's
LaunchPlan (fmhactl.torch.fastpath) did, through its TMA maps and its parameter block, so a
growing cache would build a new plan every step (the general path's host cost, ~190 us). Where
the family takes a decode step (decode.family_from_keys: MHA over a large cache), such a plan is
also kept under a key without the KV length (fastpath.call_key with_kv_length=False), and a call
whose K/V differ from the ones the plan holds rewrites only what depends on them: seq_k, the K/V
strides and the two maps (encoded again at the new shape; the launch geometry of the sm90 launcher
does not depend on them). What the general path would refuse (strides a tile load cannot read, a
map the validator rejects) returns False: that call takes the general path, which says why.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import torch

from fmhactl.errors import FmhactlError
from fmhactl.torch import launch as _launch
from fmhactl.torch.inputs import to_bshd

INT32_MAX = 2**31 - 1


def kv_free_part(k: torch.Tensor, v: torch.Tensor, layout: str) -> tuple:
    """K's and V's entries of fastpath.call_key without what a KV length changes (the sequence
    length, and every stride but the head dim's)."""
    seq = 2 if layout == "bhsd" else 1
    kshape, vshape = tuple(k.shape), tuple(v.shape)
    return kshape[:seq] + kshape[seq + 1:], k.stride(-1), vshape[:seq] + vshape[seq + 1:], v.stride(-1)


def kv_state(k: torch.Tensor, v: torch.Tensor) -> tuple:
    """What a plan's block and maps were last written for."""
    return k.shape, k.stride(), v.shape, v.stride()


@dataclass(eq=False)
class KvRefresh:
    """How a plan of the sm90 launcher rewrites its K/V part (the caller holds the plan's lock)."""

    layout: str
    box_rows: int  # the K/V maps' box rows: the plan's KV tile
    map_offsets: tuple[int, int]  # byte offsets of K's and V's maps in the plan's map struct
    slot_indices: tuple[int, int]  # K's and V's entries in plan.map_slots / plan.map_addresses
    state: tuple  # kv_state() of the call the plan was last written for
    refreshes: int = 0

    def apply(self, plan, k: torch.Tensor, v: torch.Tensor, state: tuple) -> bool:
        """Write this call's KV length, K/V strides and maps into `plan`; False: the general path."""
        from fmhactl.runtime.tma_maps import encode

        views = [to_bshd(t, self.layout) for t in (k, v)]
        if views[0].shape != views[1].shape or any(_launch.needs_copy("sm90", t) for t in views):
            return False
        seq_k = views[0].shape[1]
        if not 1 <= seq_k <= INT32_MAX:
            return False
        try:
            maps = [encode(t, self.box_rows) for t in views]
        except FmhactlError:
            return False
        p = plan.params
        p.seq_k = seq_k
        p.k_batch_stride, p.k_seq_stride, p.k_head_stride = views[0].stride()[:3]
        p.v_batch_stride, p.v_seq_stride, p.v_head_stride = views[1].stride()[:3]
        base = ctypes.addressof(plan.maps)
        for offset, slot, tmap, view in zip(self.map_offsets, self.slot_indices, maps, views):
            ctypes.memmove(base + offset, ctypes.addressof(tmap), ctypes.sizeof(tmap))
            plan.map_addresses[slot] = view.data_ptr()
        self.state = state
        self.refreshes += 1
        return True
