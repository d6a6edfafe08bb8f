"""A step model of `exchange_free_schedule.patch`'s protocol (sm90_mqa_decode with no S exchange),
under random interleavings: the producer, the memory system landing its copies, each consumer
warpgroup's in-order wgmma groups retiring at random times, and the named barriers between the
warpgroups. It is the committed test's model (tests/sm90/test_mqa_decode.py, run_protocol) grown
with the new schedule's parts; when the patch lands it belongs there.

It asserts that:
- no interleaving deadlocks;
- a stage is refilled only after both warpgroups released it and no wgmma of either still reads it;
- each wgmma reads a stage whose block landed;
- an owner reads S only after its QK^T retired;
- a P buffer is rewritten only when no P V in flight reads it;
- a slot is rewritten only after the other warpgroup read it, and read only once it holds the block wanted;
- a named barrier is never arrived at twice before its sync.

    python3 notes/op-session31/exchange_free_protocol.py     # exit 0: every block count, 40 seeds each
"""

from __future__ import annotations

import random
import sys

STAGES = 4


class Barrier:
    """An mbarrier of `count` arrivals (one agent stands for a warpgroup's or the producer's threads)."""

    def __init__(self, count: int) -> None:
        self.count, self.pending, self.phases = count, 0, 0

    def arrive(self) -> None:
        self.pending += 1
        if self.pending == self.count:
            self.pending, self.phases = 0, self.phases + 1

    def passes(self, parity: int) -> bool:
        return (self.phases & 1) != parity


class Named:
    """A named barrier used by one arriving warpgroup and one syncing warpgroup (bar.arrive /
    bar.sync, 256 threads): a second arrive before the sync would complete a phase with the
    arriver's threads alone."""

    def __init__(self) -> None:
        self.arrived, self.synced = 0, 0

    def arrive(self) -> None:
        assert self.arrived == self.synced, "named barrier arrived at twice before its sync"
        self.arrived += 1

    def ready(self) -> bool:
        return self.arrived > self.synced


def run(nblocks: int, seed: int) -> None:
    rng = random.Random(seed)
    full = [Barrier(1) for _ in range(STAGES)]
    empty = [Barrier(2) for _ in range(STAGES)]
    q_full = Barrier(1)
    copies: list[int] = []  # the producer's copies in issue order (-1: Q)
    landed = 0
    content = [None] * STAGES
    released = [set() for _ in range(STAGES)]  # warpgroups that released the stage's current block
    inflight = [[], []]  # per warpgroup: its wgmma groups in commit order, (kind, block)
    ready, free = [Named(), Named()], [Named(), Named()]
    slot = [None, None]  # block whose P / m / alpha a warpgroup's slot holds
    slot_read = [True, True]  # whether the other warpgroup read it

    def land() -> None:
        nonlocal landed
        g = copies[landed]
        landed += 1
        (q_full if g < 0 else full[g % STAGES]).arrive()

    def producer():
        copies.append(-1)
        yield
        for blk in range(nblocks):
            s = blk % STAGES
            while not empty[s].passes(((blk // STAGES) & 1) ^ 1):
                yield
            assert empty[s].phases == blk // STAGES, "empty parity aliased"
            for groups in inflight:
                assert all(b % STAGES != s for _, b in groups), "stage refilled while a wgmma reads it"
            content[s] = blk
            released[s] = set()
            copies.append(blk)
            yield
        while landed < len(copies):
            yield

    def wait(me: int, n: int):
        while len(inflight[me]) > n:
            yield

    def commit(me: int, kind: str, blk: int) -> None:
        s = blk % STAGES
        assert content[s] == blk and copies.index(blk) < landed, f"{kind} of {blk} reads a stage before its rows landed"
        inflight[me].append((kind, blk))

    def release(me: int, blk: int) -> None:  # arrive on empty of stage blk - 2
        if blk >= 2:
            old = blk - 2
            assert all(b != old for _, b in inflight[me]), "stage released while this warpgroup's wgmma reads it"
            s = old % STAGES
            assert content[s] == old and me not in released[s]
            released[s].add(me)
            empty[s].arrive()

    def issue_qk(me: int, blk: int):
        if blk < nblocks:
            s = blk % STAGES
            while not full[s].passes((blk // STAGES) & 1):
                yield
            commit(me, "QK", blk)

    def apply(me: int, blk: int, buffer: str):
        # the rare rescale waits for everything first (modelled on a coin)
        if rng.random() < 0.1:
            yield from wait(me, 0)
        commit(me, "PV" + buffer, blk)

    def own_block(me: int, blk: int):
        yield from wait(me, 0)
        assert ("QK", blk) not in inflight[me], "S read before its QK^T retired"
        release(me, blk)
        assert all(kind != "PVown" for kind, _ in inflight[me]), "own P rewritten under a P V that reads it"
        yield  # softmax
        if blk >= 2:
            while not free[me].ready():
                yield
            free[me].synced += 1
        assert slot_read[me], "slot rewritten before the other warpgroup read it"
        slot[me], slot_read[me] = blk, False
        ready[me].arrive()
        yield from apply(me, blk, "own")

    def other_block(me: int, blk: int):
        other = 1 - me
        yield from issue_qk(me, blk + 1)
        release(me, blk)  # P V of blk - 2 retired at the own step's wait<0>
        while not ready[other].ready():
            yield
        ready[other].synced += 1
        assert slot[other] == blk and not slot_read[other], "slot read before it held the block"
        assert all(kind != "PVother" for kind, _ in inflight[me]), "other P reloaded under a P V that reads it"
        slot_read[other] = True
        if blk + 2 < nblocks:
            free[other].arrive()
        yield from apply(me, blk, "other")

    def consumer(me: int):
        if nblocks == 0:
            return
        while not q_full.passes(0):
            yield
        if me == 0:
            yield from issue_qk(0, 0)
            yield from own_block(0, 0)
        for blk in range(1 - me, nblocks, 2):
            yield from other_block(me, blk)
            if blk + 1 < nblocks:
                yield from own_block(me, blk + 1)
        yield from wait(me, 0)
        for blk in range(max(nblocks - 2, 0), nblocks):
            s = blk % STAGES
            assert content[s] == blk and me not in released[s]
            released[s].add(me)
            empty[s].arrive()

    agents = [producer(), consumer(0), consumer(1)]
    live = list(agents)
    for _ in range(400000):
        if not live:
            assert all(b.arrived == b.synced for b in ready + free), "a named barrier left half-arrived"
            return
        r = rng.random()
        if landed < len(copies) and r < 0.25:
            land()
            continue
        if r < 0.45:
            me = rng.randrange(2)
            if inflight[me]:
                inflight[me].pop(0)  # the oldest group retires (in order)
                continue
        agent = rng.choice(live)
        try:
            next(agent)
        except StopIteration:
            live.remove(agent)
    raise AssertionError(f"nblocks={nblocks}: no end (deadlock)")


def main() -> int:
    for nblocks in list(range(0, 14)) + [31, 64]:
        for seed in range(40):
            try:
                run(nblocks, seed)
            except AssertionError as exc:
                print(f"nblocks {nblocks} seed {seed}: {exc}")
                return 1
    print("every block count 0-13, 31, 64 over 40 interleavings: no deadlock, no overwrite, no early read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
