"""Tests that kill mutants of reference/overlay/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.overlay.scribe import (
    Scribe,
    ScribeHost,
    ScribeJoin,
    ScribeLeave,
    ScribeMessage,
    ScribeMulticast,
    ScribePublish,
    message_size,
)
from pubsub_spec.reference.sim.sizes import HEADER, ID


class Recorder(ScribeHost[str]):
    """A host that applies sends at once (FIFO) and records every hop."""

    def __init__(self) -> None:
        self.sent: list[ScribeMessage[str]] = []
        self.counted: list[tuple[int, int, ScribeMessage[str]]] = []
        self.queue: list[tuple[int, ScribeMessage[str]]] = []

    def send(self, src: int, dst: int, msg: ScribeMessage[str]) -> None:
        self.sent.append(msg)
        self.queue.append((dst, msg))

    def count(self, src: int, dst: int, msg: ScribeMessage[str]) -> None:
        self.counted.append((src, dst, msg))

    def deliver(self, pid: int, group: int, payload: str) -> None:
        pass

    def joined(self, pid: int, group: int) -> None:
        pass


# -- message sizes (docs/thesis.md D-MSG byte model; Scribe §2.2 message contents) ------------


def test_scribe_message_sizes_follow_the_byte_model() -> None:
    """D-MSG (docs/thesis.md), the byte model every system shares (reference/tam/messages.py:
    "a 48-byte header plus the payload, as the thesis system's byte model"): 48-byte header,
    20 bytes per id. A JOIN carries the group, the previous hop and the joining member (Scribe
    §2.2.1): 48 + 3 x 20; a LEAVE the group and the child leaving (§2.2.2): 48 + 2 x 20; a
    publication routed to the root or sent down an edge the group and the payload: 48 + 20 + p."""
    assert (HEADER, ID) == (48, 20)
    assert message_size(ScribeJoin(1, 2, 3), 999) == 108
    assert message_size(ScribeLeave(1, 2), 999) == 88
    assert message_size(ScribePublish(1, "e"), 50) == 118
    assert message_size(ScribeMulticast(1, "e"), 50) == 118


# -- the host interface and the root handover (Tam et al. §3.3; docs/tam.md T12) --------------


def test_a_host_must_provide_every_service_scribe_uses() -> None:
    """ "What Scribe needs from the system that runs it" (ScribeHost): sending a hop, counting a
    hop applied at once (the root handover of T12), delivering to a member, and telling that a
    JOIN was absorbed; a host lacking one of them cannot be built."""
    assert ScribeHost.__abstractmethods__ == frozenset({"send", "count", "deliver", "joined"})


def test_root_handover_on_a_peer_join_is_one_repair_join_hop() -> None:
    """docs/tam.md T12 (and scribe.py: "Repair (... decision T12): when a peer joins and
    becomes a group's home, the old root hands the root over and becomes its child (one JOIN
    hop)"): the handover is one ScribeJoin from the old root to the newcomer, counted (applied
    at once) and flagged `repair` like every repair JOIN; the tree is then well formed with
    the newcomer as root. A peer joining that is not the group's home changes nothing."""
    ring = PastryRing(digit_bits=2, leaf_set_size=4)
    ids = [sha1_id(f"n{i}") for i in range(40)]
    for i in ids:
        ring.add(i)
    newcomer = sha1_id("newcomer")
    group = newcomer  # the newcomer is the key's home once it is in the ring
    host = Recorder()
    s: Scribe[str] = Scribe(ring, host)
    for m in ids[:5]:
        s.join(m, group)
        while host.queue:
            dst, msg = host.queue.pop(0)
            s.receive(dst, msg)
    old = s.root(group)
    assert old is not None and old != newcomer and s.check(group) == []
    other = sha1_id("x0")
    ring.add(other)
    assert ring.closest(group) == old  # x0 is not the group's home
    s.peer_joined(other)
    assert host.counted == [] and s.root(group) == old
    ring.add(newcomer)
    s.peer_joined(newcomer)
    assert host.counted == [(old, newcomer, ScribeJoin(group, old, old, True))]
    assert s.root(group) == newcomer and s.handovers == 1
    assert s.check(group) == []


class Watcher(Recorder):
    """A recorder whose observer is set, keeping every state change Scribe reports."""

    def __init__(self) -> None:
        super().__init__()
        self.observer = lambda o: None
        self.changes: list[tuple[str, int, int, int | None, dict[str, object]]] = []

    def tree_changed(
        self, change: str, pid: int, group: int, other: int | None = None, **fields: object
    ) -> None:
        self.changes.append((change, pid, group, other, fields))


def _settle(s: Scribe[str], host: Recorder) -> None:
    while host.queue:
        dst, msg = host.queue.pop(0)
        s.receive(dst, msg)


def test_every_join_reports_the_member_flag_set() -> None:
    """conformance/OBSERVATIONS.md, `scribe-member` (`key`, `member`): the node's member flag
    set (a subscription registered on the key) or cleared. A join sets it, wherever the
    member is (the key's home creating the tree as root, a peer off the tree, a forwarder
    already in it): `member` true; a leave clears it: `member` false."""
    ring = PastryRing(digit_bits=2, leaf_set_size=4)
    ids = [sha1_id(f"n{i}") for i in range(40)]
    for i in ids:
        ring.add(i)
    group = sha1_id("g")
    home = ring.closest(group)
    host = Watcher()
    s: Scribe[str] = Scribe(ring, host)
    members = [home, *[p for p in ids if p != home][:6]]
    for m in members:
        s.join(m, group)
        _settle(s, host)
    forwarders = [p for p in s.groups[group] if p not in members]
    for f in forwarders:
        s.join(f, group)
    flags = {(pid, f["member"]) for c, pid, g, _, f in host.changes if c == "scribe-member"}
    assert flags == {(m, True) for m in members + forwarders}
    s.leave(members[1], group)
    assert ("scribe-member", members[1], group, None, {"member": False}) in host.changes


def test_rebuilds_count_the_trees_torn_down() -> None:
    """docs/tam.md T12 (and `simulate`'s figure "N rebuilds"): a group in which a failed peer
    held state is torn down and rebuilt from its surviving members, one rebuild each time; a
    new Scribe has rebuilt nothing, and a failure outside every tree rebuilds nothing."""
    ring = PastryRing(digit_bits=2, leaf_set_size=4)
    ids = [sha1_id(f"n{i}") for i in range(40)]
    for i in ids:
        ring.add(i)
    group = sha1_id("g")
    host = Recorder()
    s: Scribe[str] = Scribe(ring, host)
    assert s.rebuilds == 0
    for m in ids[:6]:
        s.join(m, group)
        _settle(s, host)
    outside = next(p for p in ids if p not in s.groups[group])
    ring.remove(outside)
    s.peers_removed([outside])
    assert s.rebuilds == 0
    gone = next(p for p in ids[:6] if p != s.root(group))
    ring.remove(gone)
    s.peers_removed([gone])
    _settle(s, host)
    assert s.rebuilds == 1 and s.check(group) == []
