"""Scribe over the Pastry-like ring (reference/overlay/scribe.py; Tam et al. §3.3, decision T12):
JOIN along the route with absorption, multicast down the tree, LEAVE and pruning, repair on
join, leave and failure, and the tree check that rejects broken variants."""

from __future__ import annotations

import random
from collections import Counter, deque

from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.overlay.scribe import (
    Scribe,
    ScribeHost,
    ScribeJoin,
    ScribeMessage,
    message_name,
)


class Host(ScribeHost[str]):
    """Delivers messages in FIFO order and records what happened."""

    def __init__(self) -> None:
        self.queue: deque[tuple[int, ScribeMessage[str]]] = deque()
        self.sent: Counter[str] = Counter()
        self.got: Counter[tuple[int, str]] = Counter()
        self.done: list[tuple[int, int]] = []

    def send(self, src: int, dst: int, msg: ScribeMessage[str]) -> None:
        assert src != dst
        self.sent[message_name(msg)] += 1
        self.queue.append((dst, msg))

    def count(self, src: int, dst: int, msg: ScribeMessage[str]) -> None:
        self.sent[message_name(msg)] += 1

    def deliver(self, pid: int, group: int, payload: str) -> None:
        self.got[(pid, payload)] += 1

    def joined(self, pid: int, group: int) -> None:
        self.done.append((pid, group))


def small_ring() -> PastryRing:
    """Base 4 and a leaf set of 4: longer routes, hence trees with forwarders."""
    return PastryRing(digit_bits=2, leaf_set_size=4)


def setup(n: int = 200, repair: bool = True) -> tuple[PastryRing, Host, Scribe[str], list[int]]:
    ring = small_ring()
    ids = [sha1_id(f"n{i}") for i in range(n)]
    for i in ids:
        ring.add(i)
    host = Host()
    return ring, host, Scribe(ring, host, repair), ids


def drain(s: Scribe[str], host: Host) -> None:
    while host.queue:
        dst, msg = host.queue.popleft()
        s.receive(dst, msg)


G = sha1_id("group")


def join_all(s: Scribe[str], host: Host, members: list[int]) -> None:
    for m in members:
        s.join(m, G)
        drain(s, host)


def test_join_builds_a_tree_rooted_at_the_home_with_every_member() -> None:
    ring, host, s, ids = setup()
    members = random.Random(1).sample(ids, 20)
    join_all(s, host, members)
    assert s.check(G) == []
    assert s.root(G) == ring.closest(G)
    assert s.members(G) == sorted(members)
    assert sorted(p for p, _ in host.done) == sorted(members)


def test_join_stops_at_the_first_peer_already_in_the_tree() -> None:
    ring, host, s, ids = setup()
    first = ids[0]
    s.join(first, G)
    drain(s, host)
    path = ring.route(first, G)
    assert host.sent["ScribeJoin"] == len(path)
    # a peer whose next hop is already a forwarder costs exactly one JOIN hop
    nxt = ring.next_hop(ids[1], G)
    other = next(p for p in ids[1:] if ring.next_hop(p, G) in s.groups[G] and p not in s.groups[G])
    before = host.sent["ScribeJoin"]
    s.join(other, G)
    drain(s, host)
    assert host.sent["ScribeJoin"] == before + 1
    assert other in s.groups[G][ring.next_hop(other, G)].children
    assert nxt in ids


def test_multicast_reaches_every_member_once_and_no_one_else() -> None:
    _, host, s, ids = setup()
    members = random.Random(2).sample(ids, 25)
    join_all(s, host, members)
    s.publish(ids[5], G, "e1")
    drain(s, host)
    assert {p for (p, e) in host.got if e == "e1"} == set(members)
    assert all(c == 1 for c in host.got.values())
    assert host.sent["ScribeMulticast"] == len(s.groups[G]) - 1  # one per tree edge


def test_leave_prunes_childless_forwarders_up_to_an_empty_group() -> None:
    _, host, s, ids = setup()
    members = random.Random(3).sample(ids, 12)
    join_all(s, host, members)
    for m in members[:6]:
        s.leave(m, G)
        drain(s, host)
        assert s.check(G) == []
    s.publish(ids[0], G, "e")
    drain(s, host)
    assert {p for p, _ in host.got} == set(members[6:])
    for m in members[6:]:
        s.leave(m, G)
        drain(s, host)
    assert G not in s.groups
    assert host.sent["ScribeLeave"] > 0


def _fail(ring: PastryRing, s: Scribe[str], host: Host, gone: list[int]) -> None:
    for g in gone:
        ring.remove(g)
    s.peers_removed(gone)
    drain(s, host)


def test_repair_after_forwarder_and_root_failure_reaches_every_survivor() -> None:
    for seed in range(5):
        ring, host, s, ids = setup()
        rng = random.Random(seed)
        members = rng.sample(ids, 20)
        join_all(s, host, members)
        forwarders = [p for p, st in s.groups[G].items() if not st.member and st.parent]
        root = s.root(G)
        assert root is not None
        gone = sorted({root, *forwarders[:2], members[0]})
        _fail(ring, s, host, gone)
        assert s.check(G) == []
        survivors = set(members) - set(gone)
        s.publish(ids[-1] if ids[-1] not in gone else ids[-2], G, "after")
        drain(s, host)
        assert {p for (p, e) in host.got if e == "after"} == survivors


def test_a_joining_home_takes_the_root_over() -> None:
    ring, host, s, ids = setup()
    join_all(s, host, random.Random(4).sample(ids, 10))
    new = next(
        i
        for i in (sha1_id(f"new{j}") for j in range(100000))
        if ring.ring_distance(i, G) < ring.ring_distance(ring.closest(G), G)
    )
    ring.add(new)
    s.peer_joined(new)
    assert s.root(G) == new and s.check(G) == []
    assert s.handovers == 1
    s.publish(ids[0], G, "e")
    drain(s, host)
    assert {p for p, _ in host.got} == set(s.members(G))


def test_mutant_without_repair_loses_members_and_check_rejects_it() -> None:
    caught = 0
    for seed in range(5):
        ring, host, s, ids = setup(repair=False)
        members = random.Random(seed).sample(ids, 20)
        join_all(s, host, members)
        forwarders = [p for p, st in s.groups[G].items() if st.children and st.parent]
        _fail(ring, s, host, forwarders[:1])
        survivors = set(members) - set(forwarders[:1])
        s.publish(ids[-1], G, "x")
        drain(s, host)
        reached = {p for (p, e) in host.got if e == "x"}
        if reached != survivors:
            caught += 1
            assert s.check(G) != []
    assert caught >= 3


class AbsorbWithoutChild(Scribe[str]):
    """Mutant: the absorbing peer forgets to add the child link."""

    def _on_join(self, pid: int, msg: ScribeJoin) -> None:
        if self.state(pid, msg.group) is not None:
            self.host.joined(msg.origin, msg.group)
            return
        super()._on_join(pid, msg)


def test_check_rejects_a_join_absorbed_without_a_child_link() -> None:
    ring = small_ring()
    ids = [sha1_id(f"n{i}") for i in range(200)]
    for i in ids:
        ring.add(i)
    host = Host()
    s = AbsorbWithoutChild(ring, host)
    members = random.Random(5).sample(ids, 20)
    join_all(s, host, members)
    assert s.check(G) != []
    s.publish(ids[0], G, "e")
    drain(s, host)
    assert {p for p, _ in host.got} != set(members)


def test_random_churn_keeps_the_tree_well_formed_and_multicast_exact() -> None:
    """Seeded random mixes of member joins and leaves, peer joins, leaves and failures on
    three groups: after each step every tree passes `check` and a publication reaches exactly
    the members."""
    repairs = Counter[str]()
    for seed in range(6):
        rng = random.Random(f"scribe-churn:{seed}")
        ring, host, s, ids = setup(120)
        live = list(ids)
        groups = [sha1_id(f"g{seed}:{j}") for j in range(3)]
        fresh = 0
        for step in range(40):
            r = rng.random()
            g = rng.choice(groups)
            if r < 0.45:
                p = rng.choice(live)
                if s.state(p, g) is None or not s.state(p, g).member:  # type: ignore[union-attr]
                    s.join(p, g)
            elif r < 0.65:
                ms = s.members(g)
                if ms:
                    s.leave(rng.choice(ms), g)
            elif r < 0.8:
                fresh += 1
                new = sha1_id(f"fresh{seed}:{fresh}")
                if rng.random() < 0.5:  # next to a group key: it becomes the group's home
                    new = (g + rng.randint(1, 2**96)) % ring.space
                ring.add(new)
                live.append(new)
                s.peer_joined(new)
            else:
                gone = rng.sample(live, rng.randint(1, 3))
                for x in gone:
                    live.remove(x)
                    ring.remove(x)
                s.peers_removed(gone)
            drain(s, host)
            for gg in groups:
                assert s.check(gg) == [], (seed, step)
                tag = f"{seed}:{step}:{gg}"
                s.publish(rng.choice(live), gg, tag)
                drain(s, host)
                got = [p for (p, e) in host.got if e == tag]
                assert sorted(got) == s.members(gg), (seed, step)
        repairs.update(rebuilds=s.rebuilds, handovers=s.handovers)
    assert repairs["rebuilds"] > 5 and repairs["handovers"] > 0, repairs
