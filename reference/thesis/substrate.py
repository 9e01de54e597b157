"""What the thesis system's protocol handlers run on: the substrate.

The handlers of reference/thesis/system.py are the paper's rules (RndLeafProbe, splits and
LeafUpdates, RndRegionProbe, leaf matching, delivery, the subscriber's filter, hand-off), each
written once. They reach the network and the storage only through a `Substrate`:

- routing: the home of a key and the first hop toward it (Pastry over the ready ring, D-DHT),
- transport and accounting: a send routed to a key or direct to a peer, its hops, bytes and
  latency counted (decision D-MSG), a LeafUpdate's loss or delay (thesis §3.2.2: sent by UDP),
  the unicast deliveries of one leaf match, a delivery recorded, the event engine's loop,
- leaf storage: a leaf's stored points in the flat form the matching rule reads (`Group`), an
  event's values by name,
- invalidation: the handlers tell the substrate when the membership changes and when a node's
  points change, so that a substrate may cache what depends on them.

`ReferenceSubstrate` (here) is the plain one, caching nothing. `FastSubstrate`
(reference/thesis/substrate_fast.py) is a faster one; decision V-FAST (docs/thesis.md, "Speed")
requires it to give the reference's run bit for bit: the same messages at the same simulated
times, the same random draws, the same event-log hash.
"""

from __future__ import annotations

import functools
import itertools
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pubsub_spec.reference.common.matching import event_values
from pubsub_spec.reference.common.model import Attribute, Event, Number
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.sim.engine import Engine
from pubsub_spec.reference.sim.latency import LatencyModel
from pubsub_spec.reference.thesis.config import ThesisConfig
from pubsub_spec.reference.thesis.messages import (
    TYPE_OF,
    EventDelivery,
    LeafUpdate,
    Message,
    size_of,
)
from pubsub_spec.reference.thesis.metrics import TreeMetrics
from pubsub_spec.reference.thesis.tree import TreeNode, identifier


@dataclass(slots=True)  # no instance dict: its fields read per message
class Peer:
    name: str
    pid: int
    capacity: int
    ready: bool
    nodes: dict[tuple[str, str], TreeNode] = field(default_factory=dict)


@dataclass(slots=True)
class Arrival:
    """A message arriving: at the key's home (resolved on arrival) or at a given peer (never
    changed once scheduled; not frozen, whose `__init__` costs three times as much)."""

    msg: Message
    key: int | None
    pid: int | None


@dataclass(frozen=True)
class Timer:
    action: str
    name: str


# A unicast EventDelivery in flight in compact form (thesis §3.4.3): the event, the subscriber,
# its subscription ids, the publication time and the subscriber's peer id. A substrate may
# schedule it in place of `Arrival(EventDelivery(event, ((subscriber, ids),), published_at,
# origin), None, pid)`; the system handles and logs both alike.
Deliver = tuple[Event, str, tuple[str, ...], float, int]
Item = Arrival | Timer | Deliver
# A predicate as (attribute, lo, hi).
Pred = tuple[str, Number, Number]
# A stored point as a leaf matches it (thesis §3.4.1, §3.5): its seq, subscriber, segment
# (lo, hi, closed), whether it is segment 0, its subscription id and the predicates to test
# (the stored subscription's; a substrate may leave out the one on the base attribute where
# the segment test implies it, D-SEG).
Entry = tuple[int, str, Number, Number, bool, bool, str, tuple[Pred, ...]]
# A leaf's points of one schema and base attribute.
Group = tuple[str, str, Sequence[Entry]]
# The targets of an EventDelivery: per subscriber, its subscription ids.
Targets = tuple[tuple[str, tuple[str, ...]], ...]


class Host(Protocol):
    """What a substrate reads and calls of the system it serves (`TwoDTreeSystem` of
    reference/thesis/system.py, which imports this module: a protocol, not an import back)."""

    seed: int
    rng: random.Random
    engine: Engine[Item]
    deliveries: list[Delivery]
    config: ThesisConfig
    metrics: TreeMetrics
    latency: LatencyModel
    ring: PastryRing
    ready_ring: PastryRing
    peers: dict[int, Peer]
    pid_of: dict[str, int]
    attrs: dict[str, Attribute]

    def send_direct(
        self, src: Peer, dst_pid: int, msg: Message, key: int | None = None
    ) -> None: ...

    def record_delivery(self, delivery: Delivery, latency_ms: float) -> None: ...

    def on_deliver(self, item: Deliver) -> str: ...


@functools.cache
def node_key(qattr: str, bits: str) -> int:
    """id = hash(identifier) (thesis §3.2.1), computed once per tree node (a pure function)."""
    return sha1_id(identifier(qattr, bits))


class Substrate(ABC):
    """The interface of the handlers to the network and the storage (module doc)."""

    def __init__(self, system: Host) -> None:
        self.system = system

    # -- the engine ------------------------------------------------------------------------
    def new_engine(self) -> Engine[Item]:
        """The event engine the system runs on."""
        return Engine()

    def run(self, dispatch: Callable[[Item], str], until: float | None) -> None:
        """Process every item due at or before `until` (None: all) with `dispatch`."""
        engine = self.system.engine
        while (at := engine.next_time()) is not None and (until is None or at <= until):
            engine.step(dispatch)

    def settle(self) -> None:
        """Add to `system.metrics` the send counts this substrate holds back, if any. A
        substrate may hold back `sends`, `messages`, `bytes`, `peer_bytes` and `peer_messages`
        (D-MSG) until a run to quiescence ends (`run` with until=None, as `Driver.finish`
        does); whoever reads them in the middle of a run calls this first."""
        return  # this substrate counts every send as it is made

    # -- routing ---------------------------------------------------------------------------
    @abstractmethod
    def home(self, key: int) -> Peer:
        """The ready peer numerically closest to the key (thesis §3.6)."""

    @abstractmethod
    def first_hop(self, peer: Peer, key: int) -> int:
        """The peer a message from `peer` toward `key` goes to first."""

    # -- transport and accounting ----------------------------------------------------------
    @abstractmethod
    def send_key(self, src: Peer, key: int, msg: Message) -> None:
        """Route hop by hop toward the key; handled by its home on arrival."""

    @abstractmethod
    def route_hops(self, src: Peer, key: int) -> tuple[int, Peer]:
        """The hops a `send_key(src, key, ...)` made now takes and the home it reaches (for
        observations only: reference/thesis/observe.py; the next such send reuses the route)."""

    @abstractmethod
    def send_direct(self, src: Peer, dst_pid: int, msg: Message, key: int | None = None) -> None:
        """One hop to a known peer; with `key`, handled by the key's home on arrival."""

    @abstractmethod
    def send_deliveries(self, src: Peer, event: Event, targets: Targets, published: float) -> None:
        """Unicast delivery (thesis §3.4.3): one EventDelivery to each target, directly."""

    @abstractmethod
    def record(self, event_id: str, sub_id: str, latency_ms: float) -> None:
        """A delivery to the application, with its latency."""

    def leaf_update_fault(self, msg: Message) -> tuple[bool, float]:
        """LeafNodeUpdateMessages may be lost or delayed (thesis §3.2.2: sent by UDP)."""
        if not isinstance(msg, LeafUpdate):
            return False, 0.0
        s = self.system
        lost = s.config.leaf_update_loss > 0 and s.rng.random() < s.config.leaf_update_loss
        delay = 0.0
        if s.config.leaf_update_delay_ms > 0:
            delay = s.rng.uniform(0.0, s.config.leaf_update_delay_ms)
        return lost, delay

    # -- leaf storage ----------------------------------------------------------------------
    @abstractmethod
    def leaf(self, node: TreeNode) -> Sequence[Group]:
        """The node's stored points as the matching rule reads them."""

    @abstractmethod
    def values(self, event: Event) -> dict[str, Number]:
        """`event_values(event)`: the first value of a name wins."""

    # -- invalidation ----------------------------------------------------------------------
    @abstractmethod
    def membership_changed(self) -> None:
        """A peer joined, became ready, left or failed: routes and homes may differ now."""

    @abstractmethod
    def points_changed(self, node: TreeNode) -> None:
        """The node's stored points changed (a point added or removed, or all of them)."""


class ReferenceSubstrate(Substrate):
    """The plain substrate: every route, home and leaf read afresh (but for the one route
    `route_hops` computed for the very next `send_key`, when observations are reported)."""

    _next_route: tuple[int, int, list[int]] | None = None  # (src pid, key, path)

    def _path(self, src: int, key: int) -> list[int]:
        s = self.system
        path = [src, *s.ring.route(src, key)]
        home = s.ready_ring.closest(key)
        if path[-1] != home:
            path.append(home)  # a not-ready peer hands application messages on (§3.6)
        return path

    def route_hops(self, src: Peer, key: int) -> tuple[int, Peer]:
        path = self._path(src.pid, key)
        self._next_route = (src.pid, key, path)
        return len(path) - 1, self.system.peers[path[-1]]

    def home(self, key: int) -> Peer:
        s = self.system
        return s.peers[s.ready_ring.closest(key)]

    def first_hop(self, peer: Peer, key: int) -> int:
        s = self.system
        nxt = s.ring.next_hop(peer.pid, key)
        return s.ready_ring.closest(key) if nxt == peer.pid else nxt

    def account(self, path: Sequence[int], msg: Message) -> float:
        """Count one send along `path` (sender first); return its latency."""
        s = self.system
        kind = TYPE_OF[type(msg)]
        size = size_of(msg)
        s.metrics.sends[kind] += 1
        names = [s.peers[p].name for p in path]
        s.metrics.hops(names[:-1], kind, size)  # bytes counted at each hop's sender
        one_way = s.latency.one_way
        total = 0.0
        for a, b in itertools.pairwise(names):
            total += one_way(a, b)
        return total

    def send_key(self, src: Peer, key: int, msg: Message) -> None:
        s = self.system
        ahead = self._next_route
        if ahead is not None and ahead[0] == src.pid and ahead[1] == key:
            path, self._next_route = ahead[2], None  # computed by `route_hops` just now
        else:  # `_path`, inline (the most frequent call)
            path = [src.pid, *s.ring.route(src.pid, key)]
            home = s.ready_ring.closest(key)
            if path[-1] != home:
                path.append(home)  # a not-ready peer hands application messages on (§3.6)
        latency = self.account(path, msg)
        lost, delay = self.leaf_update_fault(msg)
        if lost:
            s.metrics.leaf_updates_lost += 1
            return
        s.engine.schedule(s.engine.now + latency + delay, Arrival(msg, key, None))

    def send_direct(self, src: Peer, dst_pid: int, msg: Message, key: int | None = None) -> None:
        s = self.system
        latency = self.account([src.pid] if dst_pid == src.pid else [src.pid, dst_pid], msg)
        s.engine.schedule(s.engine.now + latency, Arrival(msg, key, None if key else dst_pid))

    def send_deliveries(self, src: Peer, event: Event, targets: Targets, published: float) -> None:
        s = self.system
        for t in targets:
            s.send_direct(src, s.pid_of[t[0]], EventDelivery(event, (t,), published, src.name))

    def record(self, event_id: str, sub_id: str, latency_ms: float) -> None:
        self.system.record_delivery(Delivery(event_id, sub_id), latency_ms)

    def leaf(self, node: TreeNode) -> Sequence[Group]:
        by_base: dict[tuple[str, str], list[Entry]] = {}
        for p in node.points.values():
            sub, seg = p.sub, p.segment
            preds = tuple((q.attribute, q.lo, q.hi) for q in sub.predicates)
            entry = (p.seq, sub.subscriber, seg.lo, seg.hi, seg.closed, seg.index == 0, sub.id)
            by_base.setdefault((sub.schema, p.base), []).append((*entry, preds))
        return [(schema, base, entries) for (schema, base), entries in by_base.items()]

    def values(self, event: Event) -> dict[str, Number]:
        return event_values(event)

    def membership_changed(self) -> None:
        """Nothing to forget: routes and homes are read afresh at every send."""
        self._next_route = None

    def points_changed(self, node: TreeNode) -> None:
        """Nothing to forget: a leaf's points are read afresh at every match."""
