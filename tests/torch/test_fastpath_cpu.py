"""The cached launch path's bookkeeping on a CPU: a LaunchPlan fills the parameter block as the
general path's make_params does, moves a tensor map only when its operand moved, claims the tile
counter per stream, and refuses misaligned addresses; the call key separates what the checks read.
The driver is a recorder (no GPU here); the GPU tests run the real thing."""

from __future__ import annotations

import ctypes

import pytest
import torch

from fmhactl.config import AttnConfig
from fmhactl.runtime.driver import unpack_head
from fmhactl.runtime.params import FmhaParams, make_params
from fmhactl.runtime.tma_maps import Sm90TmaMaps
from fmhactl.torch import fastpath
from fmhactl.torch.op import _dispatcher_needed


class RecordingDriver:
    def __init__(self) -> None:
        self.launches: list[tuple] = []
        self.moves: list[tuple[int, int]] = []

    def launch(self, function, grid, block, dynamic_smem, stream, kernel_params) -> None:
        """Copy the parameter block as the driver would (the kernel's first by-value argument)."""
        first = ctypes.cast(kernel_params, ctypes.POINTER(ctypes.c_void_p))[0]
        copied = FmhaParams.from_buffer_copy(ctypes.string_at(first, ctypes.sizeof(FmhaParams)))
        self.launches.append((function, grid, block, dynamic_smem, stream, copied))

    def enqueue(self, head, stream, kernel_params) -> None:
        """RawDriver.enqueue: the plan's launch_head() unpacked, then as launch()."""
        self.launch(*unpack_head(head), stream, kernel_params)

    def replace_address(self, tensor_map: int, address: int) -> None:
        self.moves.append((tensor_map, address))


def _plan(q, k, v, *, with_maps: bool, counter=None):
    cfg = AttnConfig(batch=q.shape[0], heads=q.shape[2], heads_kv=k.shape[2], seq_q=q.shape[1], seq_k=k.shape[1],
                     head_dim=q.shape[3], dtype="bf16", causal=True)
    out = torch.empty(q.shape, dtype=q.dtype)
    params = make_params(cfg, q, k, v, out, None, scale=0.125)
    maps = Sm90TmaMaps() if with_maps else None
    slots = ()
    if maps is not None:
        slots = tuple((ctypes.addressof(maps) + getattr(Sm90TmaMaps, name).offset, i)
                      for i, name in enumerate(("q", "k", "v", "o")))
    kept = [params] + ([maps] if maps is not None else [])
    kernel_params = (ctypes.c_void_p * len(kept))(*[ctypes.addressof(a) for a in kept])
    return fastpath.LaunchPlan(
        variant="sm90_persistent", device_index=0, function=1234, grid=(132, 1, 1), block=(384, 1, 1),
        dynamic_smem=200000, params=params, maps=maps, map_slots=slots, map_addresses=[0] * len(slots),
        out_size=tuple(out.shape), out_stride=tuple(out.stride()), lse_size=None, dtype=q.dtype,
        device=torch.device("cpu"), align_mask=15, counter_for=counter, stream=7, kernel_params=kernel_params)


@pytest.fixture
def driver(monkeypatch):
    monkeypatch.setattr(fastpath, "_raw_stream", lambda device_index: 7)
    return RecordingDriver()


def _bshd(b, s, h, d=64):
    return torch.randn(b, s, h, d).to(torch.bfloat16)


def test_run_writes_this_calls_addresses_and_keeps_the_rest(driver):
    q, k, v = _bshd(2, 17, 8), _bshd(2, 33, 2), _bshd(2, 33, 2)
    plan = _plan(q, k, v, with_maps=False)
    for _ in range(2):
        q2, k2, v2 = _bshd(2, 17, 8), _bshd(2, 33, 2), _bshd(2, 33, 2)
        out, lse = plan.run(q2, k2, v2, driver)
        assert lse is None and out.shape == q2.shape and out.dtype == q2.dtype
        block = driver.launches[-1][5]
        want = make_params(AttnConfig(batch=2, heads=8, heads_kv=2, seq_q=17, seq_k=33, head_dim=64, causal=True),
                           q2, k2, v2, out, None, scale=0.125)
        assert bytes(block) == bytes(want)
    assert [launch[:5] for launch in driver.launches] == [(1234, (132, 1, 1), (384, 1, 1), 200000, 7)] * 2


def test_maps_move_only_when_their_operand_moved(driver):
    q, k, v = _bshd(1, 16, 4), _bshd(1, 16, 4), _bshd(1, 16, 4)
    plan = _plan(q, k, v, with_maps=True)
    plan.run(q, k, v, driver)
    first = list(driver.moves)
    assert [address for _, address in first[:3]] == [q.data_ptr(), k.data_ptr(), v.data_ptr()]
    assert len(first) == 4  # the new output's map too
    driver.moves.clear()
    plan.run(q, k, v, driver)  # same q/k/v: only O (freshly allocated) may move
    assert all(tmap == plan.map_slots[3][0] for tmap, _ in driver.moves)
    driver.moves.clear()
    k2 = _bshd(1, 16, 4)
    plan.run(q, k2, v, driver)
    assert (plan.map_slots[1][0], k2.data_ptr()) in driver.moves
    assert plan.map_addresses[:3] == [q.data_ptr(), k2.data_ptr(), v.data_ptr()]


def test_tile_counter_follows_the_stream(driver, monkeypatch):
    q = _bshd(1, 16, 4)
    streams = iter([7, 9, 9])
    monkeypatch.setattr(fastpath, "_raw_stream", lambda device_index: next(streams))
    plan = _plan(q, q, q, with_maps=False, counter=lambda stream: 1000 + stream)
    plan.params.tile_counter = 1007
    got = []
    for _ in range(3):
        plan.run(q, q, q, driver)
        got.append((driver.launches[-1][4], driver.launches[-1][5].tile_counter))
    assert got == [(7, 1007), (9, 1009), (9, 1009)]


def test_misaligned_base_address_takes_the_general_path(driver):
    full = _bshd(1, 16, 4, 72)
    q = full[..., 1:65]  # 2-byte offset: a tile load cannot start there
    plan = _plan(_bshd(1, 16, 4), _bshd(1, 16, 4), _bshd(1, 16, 4), with_maps=False)
    assert plan.run(q, q, q, driver) is None and not driver.launches


def test_call_key_separates_what_the_checks_read(monkeypatch):
    from fmhactl.torch import backends

    q = _bshd(1, 16, 4)
    base = fastpath.call_key(q, q, q, True, None, False, "bshd")
    assert fastpath.call_key(q.clone(), q, q, True, None, False, "bshd") == base  # addresses are not in it
    assert fastpath.call_key(q, q, q, False, None, False, "bshd") != base
    assert fastpath.call_key(q, q, q, True, 0.1, False, "bshd") != base
    assert fastpath.call_key(q, q, q, True, None, True, "bshd") != base
    assert fastpath.call_key(q.transpose(1, 2), q, q, True, None, False, "bshd") != base
    assert fastpath.call_key(q.half(), q, q, True, None, False, "bshd") != base
    assert fastpath.call_key(q, _bshd(1, 17, 4), q, True, None, False, "bshd") != base
    with backends.use_backend("ref"):
        assert fastpath.call_key(q, q, q, True, None, False, "bshd") != base


def test_cpu_tensors_are_not_served_and_get_the_one_line_error():
    q = _bshd(1, 16, 4)
    assert fastpath.attention(q, q, q, True, None, False, "bshd") is None
    import fmhactl.torch as ft

    with pytest.raises(ft.AttentionInputError, match="need CUDA tensors"):
        ft.attention(q, q, q, layout="bshd")


def test_dispatcher_is_kept_when_something_watches_the_call():
    from torch.utils._python_dispatch import TorchDispatchMode

    q = _bshd(1, 16, 4)
    assert not _dispatcher_needed(q, q, q)
    g = q.clone().requires_grad_()
    assert _dispatcher_needed(g, q, q)
    with torch.no_grad():
        assert not _dispatcher_needed(g, q, q)

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Watch():
        assert _dispatcher_needed(q, q, q)
    with torch.autograd.profiler.profile():
        assert _dispatcher_needed(q, q, q)
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        fake = mode.from_tensor(q)
    assert _dispatcher_needed(fake, fake, fake)


class _AddressDriver:
    """replace_address writes the address where _fake_encode puts it (the first 8 bytes), or not."""

    def __init__(self, works: bool) -> None:
        self.works = works

    def replace_address(self, tensor_map: int, address: int) -> None:
        if self.works:
            ctypes.c_uint64.from_address(tensor_map).value = address


def _fake_encode(params):
    from fmhactl.runtime.tma_maps import TmaMap

    tmap = TmaMap()
    tmap.opaque[0] = params.global_address
    tmap.opaque[1] = params.global_dim[1]
    return tmap


@pytest.mark.parametrize("works", [True, False])
def test_replace_address_is_checked_once_against_a_fresh_encoding(monkeypatch, works):
    from fmhactl.runtime import tma_maps

    monkeypatch.setattr(tma_maps, "encode_params", _fake_encode)
    state = {"enabled": True, "driver": _AddressDriver(works), "why_off": None, "replace_checked": False}
    monkeypatch.setattr(fastpath, "_state", state)
    fastpath._check_replace_address(_bshd(1, 16, 4))
    assert state["replace_checked"] and state["enabled"] is works
    assert (state["why_off"] is None) is works
    if not works:
        assert "did not reproduce a fresh encoding" in fastpath.status()["off_reason"]


def test_a_check_that_cannot_run_turns_the_cached_path_off(monkeypatch):
    from fmhactl.runtime import tma_maps

    def refuse(params):
        raise RuntimeError("no driver here")

    monkeypatch.setattr(tma_maps, "encode_params", refuse)
    state = {"enabled": True, "driver": _AddressDriver(True), "why_off": None, "replace_checked": False}
    monkeypatch.setattr(fastpath, "_state", state)
    fastpath._check_replace_address(_bshd(1, 16, 4))
    assert not state["enabled"] and "could not run: RuntimeError: no driver here" in state["why_off"]


def test_enqueue_passes_what_launch_passes():
    """RawDriver.enqueue(launch_head(...)) hands cuLaunchKernel the values launch() does, in order."""
    from fmhactl.runtime.driver import RawDriver, launch_head

    calls = []
    raw = object.__new__(RawDriver)  # no libcuda here: the bound entry point is a recorder
    raw._launch = lambda *args: calls.append(args) or 0
    raw.launch(0x7F0012345678, (132, 2, 3), (384, 1, 1), 200000, 7, 0x1000)
    raw.enqueue(launch_head(0x7F0012345678, (132, 2, 3), (384, 1, 1), 200000), 7, 0x1000)
    by_launch, by_enqueue = calls
    assert [getattr(a, "value", a) for a in by_enqueue] == list(by_launch)
    assert [type(a) for a in by_enqueue[:8]] == [ctypes.c_void_p] + [ctypes.c_uint] * 7  # the argtypes' own
