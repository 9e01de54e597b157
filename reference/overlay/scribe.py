"""Scribe (Castro, Druschel, Kermarrec, Rowstron, IEEE JSAC 2002) as an overlay service on the
Pastry-like ring of `reference.overlay.pastry`, as Tam, Azimi and Jacobsen use it (DBISP2P 2003,
§3.3, "Event Notification Multicast Tree"; docs/tam.md).

One multicast group per key. Its root is the key's home, the live peer numerically closest to
it (Tam et al. §3.3: "root of the tree is the hash key's home node"). A member joins by routing a
JOIN toward the key; every peer on the route that is not yet in the tree becomes a forwarder and
adds the previous hop as a child; routing stops at the first peer already in the tree (Tam et al.
§3.3: "routing stops upon encountering an edge of the multicast tree"). A PUBLISH is routed to
the root hop by hop and then sent down every tree edge (Tam et al. §3.3). LEAVE clears the member
flag and prunes childless non-member forwarders upward (Scribe §2.2). Repair (not in Tam et al.,
which leaves it to "Pastry and Scribe"; decision T12 in docs/tam.md): when a peer joins and
becomes a group's home, the old root hands the root over and becomes its child (one JOIN hop);
when a peer that holds state for a group leaves or fails, the group is rebuilt by its surviving
members re-joining along the current routes (a local re-join of orphans can close a cycle when
the new root lies in the orphan's own subtree; see docs/tam.md, erratum TE3).

The service is transport-agnostic: the host (a simulated system) schedules messages and hands
them back through `receive`; this module keeps only per-peer group state. It imports no system.

Observations (conformance/OBSERVATIONS.md, "tam, tam-basic"): when the host has an observer set,
every change of a peer's group state is reported through `ScribeHost.tree_changed` at the line
that makes it (a root created or handed over, a parent chosen, a child added or removed, the
member flag, a peer's state dropped), before the message the change causes; without an
observer each site costs one test and nothing else changes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pubsub_spec.reference.overlay.pastry import PastryRing
from pubsub_spec.reference.sim.observe import Observer
from pubsub_spec.reference.sim.sizes import HEADER, ID

P = TypeVar("P")


@dataclass(frozen=True)
class ScribeJoin:
    """JOIN toward `group`, sent by `child` (the previous hop) for member `origin` (Scribe
    §2.2.1); `repair` marks the re-joins of a rebuild."""

    group: int
    child: int
    origin: int
    repair: bool = False


@dataclass(frozen=True)
class ScribeLeave:
    """`child` leaves the tree below the receiver (Scribe §2.2.2, pruning)."""

    group: int
    child: int


@dataclass(frozen=True)
class ScribePublish(Generic[P]):
    """A publication routed hop by hop to the group's root (Tam et al. §3.3; decision T11)."""

    group: int
    payload: P


@dataclass(frozen=True)
class ScribeMulticast(Generic[P]):
    """A publication sent down one tree edge (Tam et al. §3.3)."""

    group: int
    payload: P


ScribeMessage = ScribeJoin | ScribeLeave | ScribePublish[P] | ScribeMulticast[P]

MESSAGE_NAMES: dict[type, str] = {
    ScribeJoin: "ScribeJoin",
    ScribeLeave: "ScribeLeave",
    ScribePublish: "ScribePublish",
    ScribeMulticast: "ScribeMulticast",
}


def message_name(msg: ScribeMessage[P]) -> str:
    return MESSAGE_NAMES[type(msg)]


def message_size(msg: ScribeMessage[P], payload_size: int) -> int:
    """Bytes of one hop: header, group id, and the child/origin ids or the payload."""
    if isinstance(msg, ScribeJoin):
        return HEADER + 3 * ID
    if isinstance(msg, ScribeLeave):
        return HEADER + 2 * ID
    return HEADER + ID + payload_size


@dataclass
class GroupState:
    """What one peer keeps of one group (Scribe §2.2: the children table, its parent)."""

    parent: int | None  # None at the root
    children: set[int] = field(default_factory=set)
    member: bool = False


# The state changes Scribe reports (`ScribeHost.tree_changed`; conformance/OBSERVATIONS.md).
ROOT = "scribe-root"  # the peer is the group's root (created it as the key's home, or took over)
PARENT = "scribe-parent"  # the peer is in the tree below `other` (its JOIN goes there)
CHILD_ADDED = "scribe-child-added"  # `other` is now a child of the peer
CHILD_REMOVED = "scribe-child-removed"  # `other` is no longer a child of the peer
MEMBER = "scribe-member"  # the peer's member flag is set (`member`: True) or cleared
LEFT = "scribe-left"  # the peer dropped its state of the group (`reason`)
STATE_CHANGES: tuple[str, ...] = (ROOT, PARENT, CHILD_ADDED, CHILD_REMOVED, MEMBER, LEFT)


class ScribeHost(ABC, Generic[P]):
    """What Scribe needs from the system that runs it."""

    # The host's protocol observer (reference/sim/observe.py): Scribe calls `tree_changed`
    # only while it is set.
    observer: Observer | None = None

    def tree_changed(
        self, change: str, pid: int, group: int, other: int | None = None, **fields: object
    ) -> None:
        """Peer `pid`'s state of `group` changed (`change`: one of STATE_CHANGES; `other`:
        the parent or child concerned). Called only while `observer` is set; a host that
        reports observations overrides it."""

    @abstractmethod
    def send(self, src: int, dst: int, msg: ScribeMessage[P]) -> None:
        """One hop src -> dst, counted and scheduled; on arrival the host calls
        `Scribe.receive(dst, msg)`."""

    @abstractmethod
    def count(self, src: int, dst: int, msg: ScribeMessage[P]) -> None:
        """One hop counted but applied at once (a root handover during a Pastry join)."""

    @abstractmethod
    def deliver(self, pid: int, group: int, payload: P) -> None:
        """A publication reaches member `pid` of `group`."""

    @abstractmethod
    def joined(self, pid: int, group: int) -> None:
        """The JOIN of member `pid` has been absorbed: it is in the tree."""


class Scribe(Generic[P]):
    def __init__(self, ring: PastryRing, host: ScribeHost[P], repair: bool = True) -> None:
        self.ring = ring
        self.host = host
        self.repair = repair  # False only in the mutant "Scribe without repair"
        self.groups: dict[int, dict[int, GroupState]] = {}
        self.rebuilds = 0
        self.handovers = 0
        self.dropped_publishes = 0  # publications reaching a root without a tree (no member)

    # -- queries ---------------------------------------------------------------------------
    def state(self, pid: int, group: int) -> GroupState | None:
        return self.groups.get(group, {}).get(pid)

    def root(self, group: int) -> int | None:
        for pid, st in self.groups.get(group, {}).items():
            if st.parent is None:
                return pid
        return None

    def members(self, group: int) -> list[int]:
        return sorted(p for p, st in self.groups.get(group, {}).items() if st.member)

    def tree_size(self, group: int) -> int:
        return len(self.groups.get(group, {}))

    def check(self, group: int) -> list[str]:
        """Violations of the tree invariants of `group` (empty when well formed): one root,
        the root is the key's home, parent and child links agree, every peer is alive and
        reaches the root without a cycle, every leaf of the tree is a member (pruned)."""
        nodes = self.groups.get(group, {})
        if not nodes:
            return []
        out: list[str] = []
        roots = [p for p, st in nodes.items() if st.parent is None]
        if len(roots) != 1:
            out.append(f"{len(roots)} roots")
        elif roots[0] != self.ring.closest(group):
            out.append("root is not the key's home")
        for pid, st in nodes.items():
            if pid not in self.ring:
                out.append(f"dead peer {pid:x} in tree")
            if st.parent is not None:
                pst = nodes.get(st.parent)
                if pst is None or pid not in pst.children:
                    out.append(f"parent link of {pid:x} not mirrored")
            for c in st.children:
                if c not in nodes or nodes[c].parent != pid:
                    out.append(f"child link {pid:x}->{c:x} not mirrored")
            if not st.children and not st.member and st.parent is not None:
                out.append(f"unpruned forwarder {pid:x}")
            seen = {pid}
            cur = st.parent
            while cur is not None:
                if cur in seen or cur not in nodes:
                    out.append(f"{pid:x} does not reach the root")
                    break
                seen.add(cur)
                cur = nodes[cur].parent
        return out

    # -- member operations -----------------------------------------------------------------
    def join(self, pid: int, group: int, repair: bool = False) -> None:
        """Member `pid` joins `group` (Scribe §2.2.1; Tam et al. §3.3)."""
        nodes = self.groups.setdefault(group, {})
        st = nodes.get(pid)
        if st is not None:  # already root or forwarder: becomes a member without a message
            st.member = True
            if self.host.observer is not None:
                self.host.tree_changed(MEMBER, pid, group, member=True)
            self.host.joined(pid, group)
            return
        if self.ring.closest(group) == pid:  # the home creates the group as its root
            nodes[pid] = GroupState(None, member=True)
            if self.host.observer is not None:
                self.host.tree_changed(ROOT, pid, group)
                self.host.tree_changed(MEMBER, pid, group, member=True)
            self.host.joined(pid, group)
            return
        nxt = self.ring.next_hop(pid, group)
        nodes[pid] = GroupState(nxt, member=True)
        if self.host.observer is not None:
            self.host.tree_changed(PARENT, pid, group, nxt)
            self.host.tree_changed(MEMBER, pid, group, member=True)
        self.host.send(pid, nxt, ScribeJoin(group, pid, pid, repair))

    def leave(self, pid: int, group: int) -> None:
        """Member `pid` leaves `group`: pruned upward while childless (Scribe §2.2.2)."""
        st = self.state(pid, group)
        if st is None or not st.member:
            raise KeyError(f"{pid:x} is not a member of {group:x}")
        st.member = False
        if self.host.observer is not None:
            self.host.tree_changed(MEMBER, pid, group, member=False)
        self._prune(pid, group)

    def publish(self, pid: int, group: int, payload: P) -> None:
        """Route the publication to the root, which multicasts it (Tam et al. §3.3)."""
        self._on_publish(pid, ScribePublish(group, payload))

    # -- message handlers ------------------------------------------------------------------
    def receive(self, pid: int, msg: ScribeMessage[P]) -> None:
        if pid not in self.ring:
            return  # the peer has gone meanwhile (cannot happen under D-OPS timing)
        if isinstance(msg, ScribeJoin):
            self._on_join(pid, msg)
        elif isinstance(msg, ScribeLeave):
            self._on_leave(pid, msg)
        elif isinstance(msg, ScribePublish):
            self._on_publish(pid, msg)
        else:
            self._multicast(pid, msg.group, msg.payload)

    def _on_join(self, pid: int, msg: ScribeJoin) -> None:
        nodes = self.groups.setdefault(msg.group, {})
        st = nodes.get(pid)
        if st is not None:
            # the first peer already in the tree absorbs the JOIN (Tam et al. §3.3)
            st.children.add(msg.child)
            if self.host.observer is not None:
                self.host.tree_changed(CHILD_ADDED, pid, msg.group, msg.child)
            self.host.joined(msg.origin, msg.group)
            return
        if self.ring.closest(msg.group) == pid:
            nodes[pid] = GroupState(None, {msg.child})
            if self.host.observer is not None:
                self.host.tree_changed(ROOT, pid, msg.group)
                self.host.tree_changed(CHILD_ADDED, pid, msg.group, msg.child)
            self.host.joined(msg.origin, msg.group)
            return
        nxt = self.ring.next_hop(pid, msg.group)  # a forwarder on the route (Scribe §2.2.1)
        nodes[pid] = GroupState(nxt, {msg.child})
        if self.host.observer is not None:
            self.host.tree_changed(PARENT, pid, msg.group, nxt)
            self.host.tree_changed(CHILD_ADDED, pid, msg.group, msg.child)
        self.host.send(pid, nxt, ScribeJoin(msg.group, pid, msg.origin, msg.repair))

    def _on_leave(self, pid: int, msg: ScribeLeave) -> None:
        st = self.state(pid, msg.group)
        if st is None:
            return
        if self.host.observer is not None and msg.child in st.children:
            self.host.tree_changed(CHILD_REMOVED, pid, msg.group, msg.child)
        st.children.discard(msg.child)
        self._prune(pid, msg.group)

    def _prune(self, pid: int, group: int) -> None:
        nodes = self.groups[group]
        st = nodes[pid]
        if st.member or st.children:
            return
        del nodes[pid]
        if self.host.observer is not None:
            self.host.tree_changed(LEFT, pid, group, reason="pruned")
        if not nodes:
            del self.groups[group]
        if st.parent is not None:
            self.host.send(pid, st.parent, ScribeLeave(group, pid))

    def _on_publish(self, pid: int, msg: ScribePublish[P]) -> None:
        nxt = self.ring.next_hop(pid, msg.group)
        if nxt != pid:
            self.host.send(pid, nxt, msg)  # toward the root, hop by hop (decision T11)
            return
        self._multicast(pid, msg.group, msg.payload)

    def _multicast(self, pid: int, group: int, payload: P) -> None:
        st = self.state(pid, group)
        if st is None:
            self.dropped_publishes += 1  # a root without tree: the group has no member
            return
        if st.member:
            self.host.deliver(pid, group, payload)
        for child in sorted(st.children):  # down every tree edge (Tam et al. §3.3)
            self.host.send(pid, child, ScribeMulticast(group, payload))

    # -- repair under churn (decision T12) -------------------------------------------------
    def peer_joined(self, pid: int) -> None:
        """`pid` has just been added to the ring. Where it is now a group's home, the old root
        hands the root over and becomes its child: one JOIN hop, applied at once, as Pastry
        hands keys to a joining peer before it serves them."""
        for group in sorted(self.groups):
            nodes = self.groups[group]
            old = self.root(group)
            if old is None or self.ring.closest(group) != pid or old == pid:
                continue
            if not self.repair:
                continue
            nodes[old].parent = pid
            nodes[pid] = GroupState(None, {old})
            self.handovers += 1
            if self.host.observer is not None:
                self.host.tree_changed(PARENT, old, group, pid, handover=True)
            self.host.count(old, pid, ScribeJoin(group, old, old, True))
            if self.host.observer is not None:
                self.host.tree_changed(ROOT, pid, group, handover=True)
                self.host.tree_changed(CHILD_ADDED, pid, group, old)

    def peers_removed(self, gone: Iterable[int]) -> None:
        """The peers `gone` have left or failed and are no longer in the ring. Every group in
        which one of them held state is rebuilt: its surviving members re-join along the
        current routes (decision T12). Without repair (a mutant) their state just vanishes."""
        gone_set = set(gone)
        for group in sorted(self.groups):
            nodes = self.groups[group]
            if not gone_set & nodes.keys():
                continue
            if not self.repair:
                for p in sorted(gone_set & nodes.keys()):
                    del nodes[p]
                    if self.host.observer is not None:
                        self.host.tree_changed(LEFT, p, group, reason="gone")
                if not nodes:
                    del self.groups[group]
                continue
            survivors = sorted(p for p, st in nodes.items() if st.member and p not in gone_set)
            del self.groups[group]
            if self.host.observer is not None:  # the old tree is torn down (T12)
                for p in sorted(nodes):
                    self.host.tree_changed(LEFT, p, group, reason="rebuild")
            self.rebuilds += 1
            for m in survivors:
                self.join(m, group, repair=True)
