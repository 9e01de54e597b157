"""The content-based pub/sub system of the thesis over the simulated Pastry DHT (thesis Ch. 3).

Peers host 2d-tree nodes (§3.2); subscribers install points with RndLeafProbe (§3.3),
publishers probe target areas with RndRegionProbe (§3.4.1), leaves match and deliver (§3.4.3)
by unicast, prefix-grouped multicast (§3.4.2, Program 3.4) or an LBDD tree (Li et al., LBDD); wide
ranges are remapped below the cut-off line (§3.5); tree nodes are replicated on the leaf set
and survive leaves and failures (§3.6). All of it runs on one deterministic event engine.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Number,
    Schema,
    Subscription,
    qualified,
)
from pubsub_spec.reference.common.ops import Trace, initial_node_names
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.latency import LatencyModel
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.thesis import observe as obs
from pubsub_spec.reference.thesis.config import ThesisConfig, config_of
from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable
from pubsub_spec.reference.thesis.messages import (
    TYPE_OF,
    EventDelivery,
    InsertSub,
    LeafUpdate,
    Message,
    ProbePub,
    ProbePubMulticast,
    ProbeSub,
    TransferSub,
)
from pubsub_spec.reference.thesis.metrics import TreeMetrics
from pubsub_spec.reference.thesis.points import stored_points
from pubsub_spec.reference.thesis.probes import jump_back, random_leaf_level, rnd_region_probe
from pubsub_spec.reference.thesis.space import Square, TargetArea, target_area
from pubsub_spec.reference.thesis.substrate import Arrival as Arrival
from pubsub_spec.reference.thesis.substrate import Deliver, ReferenceSubstrate, Substrate, node_key
from pubsub_spec.reference.thesis.substrate import Item as Item
from pubsub_spec.reference.thesis.substrate import Peer as Peer
from pubsub_spec.reference.thesis.substrate import Timer as Timer
from pubsub_spec.reference.thesis.tree import StoredPoint, TreeNode


@dataclass(slots=True)  # no instance dict: read per delivery (`_accept`)
class SubState:
    """What a subscriber keeps of its own subscription: the original (to filter false
    positives, §3.3) and its stored points (to unsubscribe, §3.3.1)."""

    original: Subscription
    points: tuple[StoredPoint, ...]
    install: Installation  # InsertSubs in flight (on unsubscription: the removal probes)
    active: bool = True
    # the original's schema and predicates as (attribute, lo, hi), read by the filter
    # (`_accept`) without touching the subscription itself
    schema: str = field(init=False, repr=False)
    preds: tuple[tuple[str, Number, Number], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.schema = self.original.schema
        self.preds = tuple((p.attribute, p.lo, p.hi) for p in self.original.predicates)


class TwoDTreeSystem(System[Item]):
    """The thesis system behind the common System interface (reference/sim/system.py): the
    protocol handlers, each rule once, over a substrate (reference/thesis/substrate.py) that
    routes, sends, counts and stores; a subclass may name a faster one (`substrate_class`)."""

    substrate_class: ClassVar[type[Substrate]] = ReferenceSubstrate

    def __init__(
        self,
        schemas: Sequence[Schema],
        matching: MatchMode,
        config: ThesisConfig,
        seed: int,
        initial_nodes: Sequence[str],
    ) -> None:
        super().__init__(seed)
        self.net = self.substrate_class(self)
        self.engine = self.net.new_engine()
        self._departed = False  # whether any peer has left or failed (leaf matching)
        self.config = config
        self.matching = matching
        self.metrics: TreeMetrics = TreeMetrics()
        self.latency = LatencyModel(seed, config.mean_rtt_ms)
        self.ring = PastryRing(
            config.id_bits,
            config.digit_bits,
            config.leaf_set_size,
            # proximity neighbour selection on the latency model (thesis §2.1.2; D-DHT)
            proximity=(
                (lambda a, b: self.latency.one_way(self.peers[a].name, self.peers[b].name))
                if config.proximity_routing
                else None
            ),
            proximity_candidates=config.proximity_candidates,
        )
        self.ready_ring = PastryRing(config.id_bits, config.digit_bits, config.leaf_set_size)
        self.peers: dict[int, Peer] = {}
        self.pid_of: dict[str, int] = {}
        self.schemas = {s.name: s for s in schemas}
        self.squares: dict[str, Square] = {}
        self.attrs: dict[str, Attribute] = {}
        self.subs: dict[str, SubState] = {}
        self.event_seq: dict[str, int] = {}
        self._areas: dict[tuple[str, str], TargetArea] = {}
        self._lbdd_cache: dict[tuple[str, tuple[str, ...]], dict[str, list[str]]] = {}
        self._published_at: dict[str, float] = {}
        self._matched: TreeNode | None = None  # the leaf matching now (observations only)
        for name in initial_nodes:
            self._add_peer(name, ready=True)
        for s in schemas:
            for a in s.attributes:
                q = qualified(s.name, a.name)
                self.squares[q] = Square.of(a, config.max_depth)
                self.attrs[q] = a
                root = TreeNode(q, "")
                self._host(self._home(self._key(q, "")), root)

    # -- peers and homes -------------------------------------------------------------------
    def _add_peer(self, name: str, ready: bool) -> Peer:
        pid = sha1_id(name)
        cap_rng = random.Random(f"{self.seed}:capacity:{name}")
        # Table 4.1: node_capacity = rand(10, 30), one per peer.
        cap = cap_rng.randint(self.config.capacity_min, self.config.capacity_max)
        peer = Peer(name, pid, cap, ready)
        self.peers[pid] = peer
        self.pid_of[name] = pid
        self.latency.place(name)
        self.ring.add(pid)
        if ready:
            self.ready_ring.add(pid)
        self.net.membership_changed()
        return peer

    # id = hash(identifier) (thesis §3.2.1), computed once per tree node
    _key = staticmethod(node_key)

    def _home(self, key: int) -> Peer:
        """The ready peer numerically closest to the key: a peer that has joined but is not
        ready yet leaves its objects to its neighbours (thesis §3.6)."""
        return self.net.home(key)

    def _host(self, peer: Peer, node: TreeNode) -> None:
        peer.nodes[(node.qattr, node.bits)] = node
        if self.observer is not None:
            self.observer(obs.hosted(peer.name, node))
        self.metrics.max_depth = max(self.metrics.max_depth, node.depth)

    def node_count(self) -> int:
        return sum(len(p.nodes) for p in self.peers.values())

    def tree_nodes(self) -> list[TreeNode]:
        return [n for p in self.peers.values() for n in p.nodes.values()]

    # -- sending (the substrate's transport) ------------------------------------------------
    def send_key(self, src: Peer, key: int, msg: Message) -> None:
        """Route hop by hop toward the key (Pastry, §2.1.2); delivered to its home on arrival."""
        if self.observer is not None:
            # the substrate's route: Pastry's path, then the ready home if it is not the last
            hops, home = self.net.route_hops(src, key)
            self.observer(obs.message(src.name, home.name, msg, hops, self.config.event_delivery))
        self.net.send_key(src, key, msg)

    def send_direct(self, src: Peer, dst_pid: int, msg: Message, key: int | None = None) -> None:
        """One hop to a known peer (its IP address is known, §3.4.3); with `key` the message is
        still handed to the key's home on arrival (the object may have moved meanwhile)."""
        if self.observer is not None and not (
            type(msg) is EventDelivery and self.config.event_delivery == "unicast"
        ):  # unicast deliveries are reported by `_deliver`, for every substrate alike
            to = self._name_of(dst_pid)
            hops = 0 if dst_pid == src.pid else 1
            self.observer(obs.message(src.name, to, msg, hops, self.config.event_delivery))
        self.net.send_direct(src, dst_pid, msg, key)

    def _name_of(self, pid: int) -> str:
        """A peer's name, also of one that has left or failed (observations only)."""
        peer = self.peers.get(pid)
        if peer is not None:
            return peer.name
        return next(n for n, p in self.pid_of.items() if p == pid)

    # -- event loop ------------------------------------------------------------------------
    def run_until_time(self, t: float) -> None:
        self.net.run(self._dispatch, t)
        self.engine.advance_to(t)

    def run_to_quiescence(self) -> None:
        self.net.run(self._dispatch, None)

    def _dispatch(self, item: Item) -> str:
        if isinstance(item, tuple):
            return self.on_deliver(item)
        if not isinstance(item, Arrival):
            self._on_ready(item.name)
            return f"timer {item.action} {item.name}"
        msg = item.msg
        if item.key is not None:
            peer = self.net.home(item.key)  # `_home`
        else:
            assert item.pid is not None
            found = self.peers.get(item.pid)
            if found is None:
                return f"drop {TYPE_OF[type(msg)]} to dead peer"
            peer = found
        self._handle(peer, msg)
        if type(msg) is ProbePub:  # the most frequent: `_describe`, inline
            return f"ProbePub {peer.name} {msg.event.id}@{msg.qattr}:{msg.target}"
        return f"{TYPE_OF[type(msg)]} {peer.name} {_describe(msg)}"

    def on_deliver(self, item: Deliver) -> str:
        """A unicast EventDelivery in compact form (substrate.Deliver), handled and logged as
        an Arrival of it (a substrate may call this for such items instead of `_dispatch`)."""
        event, s, ids, published, pid = item
        peer = self.peers.get(pid)
        if peer is None:
            return "drop EventDelivery to dead peer"
        self._accept(peer, event, ids, published)
        return f"EventDelivery {peer.name} {event.id}->{s}"

    def _handle(self, peer: Peer, msg: Message) -> None:
        # the most frequent first (the message classes are disjoint)
        if isinstance(msg, ProbePub):
            self._on_probe_pub(peer, msg)
        elif isinstance(msg, ProbePubMulticast):
            self._on_probe_pub_multicast(peer, msg)
        elif isinstance(msg, ProbeSub):
            self._on_probe_sub(peer, msg)
        elif isinstance(msg, InsertSub):
            self._on_insert_sub(peer, msg)
        elif isinstance(msg, TransferSub):
            self._on_transfer_sub(peer, msg)
        elif isinstance(msg, LeafUpdate):
            self._on_leaf_update(peer, msg)
        else:
            self._on_event_delivery(peer, msg)

    @classmethod
    def for_trace(cls, trace: Trace) -> TwoDTreeSystem:
        """The system of a trace: its schemas, matching, `thesis` section, seed and peers."""
        return cls(
            trace.schemas,
            trace.matching,
            config_of(trace),
            trace.seed,
            initial_node_names(trace.initial_nodes),
        )

    # -- what a run reports (pubsub-spec simulate) -----------------------------------------
    def peer_count(self) -> int:
        return len(self.peers)

    def describe(self) -> str:
        c = self.config
        if c.probe is None and c.delivery in ("unicast", "lbdd"):
            return f"delivery {c.delivery}"  # the first release's wording
        return f"probes {c.probe_routing}, delivery {c.event_delivery}"

    def figures(self) -> list[str]:
        m = self.metrics
        n_peers = max(1, len(self.peers))
        n_events = max(1, len(self.event_seq))
        pub_bytes = sum(m.bytes[k] for k in ("ProbePubMulticast", "ProbePub", "EventDelivery"))
        return [
            f"publication bytes per node per event: {pub_bytes / n_peers / n_events:.2f}",
            f"2d-tree: {self.node_count()} nodes, {m.splits} splits, max depth "
            f"{m.max_depth}, overflow {m.overflow}; probes: {m.jump_backs} jump-backs, "
            f"{m.dedup_discards} dedup discards, {m.held} held during splits",
            f"false positives filtered at subscribers: {m.false_positives}; "
            f"LeafUpdates lost: {m.leaf_updates_lost}; points lost: {m.points_lost}",
        ]

    # -- subscription installation (§3.3, Program 3.2) -------------------------------------
    def _stored_points(self, sub: Subscription, seq: int) -> tuple[StoredPoint, ...]:
        # base attribute and h from the subscription's own generator (decision D-POINTS)
        return stored_points(sub, seq, self.seed, self.config, self.attrs, self.squares)

    def subscribe(self, sub: Subscription, seq: int) -> None:
        peer = self.peers[self.pid_of[sub.subscriber]]
        points = self._stored_points(sub, seq)
        self.subs[sub.id] = SubState(sub, points, Installation(self.engine.now, len(points)))
        for point in points:
            self._probe_for(peer, point, remove=False)

    def unsubscribe(self, sub_id: str) -> None:
        """Locate the points as in installation and remove them (§3.3.1)."""
        state = self.subs[sub_id]
        state.active = False
        state.install.restart(len(state.points))
        peer = self.peers[self.pid_of[state.original.subscriber]]
        for point in state.points:
            self._probe_for(peer, point, remove=True)

    def change_interest(self, sub: Subscription, seq: int) -> None:
        """A change of interest is an unsubscription followed by a subscription (§3.3.1)."""
        self.unsubscribe(sub.id)
        self.run_until(lambda: self.subs[sub.id].install.installed)
        self.subscribe(sub, seq)

    def installed(self, sub_id: str) -> bool:
        return self.subs[sub_id].install.installed

    def _probe_for(self, peer: Peer, point: StoredPoint, remove: bool) -> None:
        level = random_leaf_level(
            self.rng, min(self.config.sub_probe_max_level, self.config.max_depth)
        )
        target = point.path[:level]
        q = qualified(point.sub.schema, point.base)
        self.send_key(peer, self._key(q, target), ProbeSub(point, target, remove))

    def _node(self, peer: Peer, qattr: str, bits: str) -> TreeNode | None:
        return peer.nodes.get((qattr, bits))

    def _on_probe_sub(self, peer: Peer, msg: ProbeSub) -> None:
        point = msg.point
        q = qualified(point.sub.schema, point.base)
        if msg.found:
            # the subscriber installs the subscription at the leaf found (Program 3.2, line 50)
            leaf_key = self._key(q, msg.target)
            self.send_direct(peer, self._home(leaf_key).pid, InsertSub(point, msg.target), leaf_key)
            return
        node = self._node(peer, q, msg.target)
        if node is None:
            self.metrics.jump_backs += 1
            up = jump_back(msg.target)  # Program 3.2, lines 65-68
            self.send_key(peer, self._key(q, up), ProbeSub(point, up, msg.remove, msg.found))
            return
        if node.splitting:
            node.held.append(msg)
            self.metrics.held += 1
            return
        if node.lnrt is not None:
            rec = node.lnrt.record_containing(point.path)  # Program 3.2, lines 59-62
            self.send_key(peer, self._key(q, rec), ProbeSub(point, rec, msg.remove, msg.found))
            return
        if msg.remove:
            gone = node.points.pop(point.key, None)  # §3.3.1
            if self.observer is not None and gone is not None:
                self.observer(obs.removed(peer.name, node, gone, lost=False))
            self.net.points_changed(node)
            self.subs[point.sub.id].install.arrived()
            return
        sub_peer = self.pid_of[point.sub.subscriber]
        self.send_direct(peer, sub_peer, ProbeSub(point, node.bits, msg.remove, True))  # line 58

    def _on_insert_sub(self, peer: Peer, msg: InsertSub) -> None:
        point = msg.point
        q = qualified(point.sub.schema, point.base)
        node = self._node(peer, q, msg.target)
        if node is None:  # only after a loss beyond the replication bound
            up = jump_back(msg.target)
            self.send_key(peer, self._key(q, up), InsertSub(point, up))
            return
        if node.splitting:
            node.held.append(msg)
            self.metrics.held += 1
            return
        if node.lnrt is not None:  # split since the probe found it: follow the tree down
            rec = node.lnrt.record_containing(point.path)
            self.send_key(peer, self._key(q, rec), InsertSub(point, rec))
            return
        node.points[point.key] = point  # Program 3.2, line 50
        if self.observer is not None:
            self.observer(obs.stored(peer.name, node, point, "insert"))
        self.net.points_changed(node)
        install = self.subs[point.sub.id].install
        install.arrived()
        install.settle(self.engine.now, self.metrics.install_latency_ms)
        self._check_capacity(peer, node)

    # -- 2d-tree maintenance (§3.2.2, Program 3.1) -----------------------------------------
    def _check_capacity(self, peer: Peer, node: TreeNode) -> None:
        """Split when the load exceeds the capacity (§3.2.2); never past max_depth."""
        if len(node.points) <= peer.capacity:
            return
        if node.depth >= self.config.max_depth:
            self.metrics.overflow += 1
            return
        self._split(peer, node)

    def _split(self, peer: Peer, node: TreeNode) -> None:
        halves = node.split_points()  # Program 3.1, lines 42-44
        if self.observer is not None:
            self.observer(obs.split(peer.name, node))
        node.points = {}
        self.net.points_changed(node)
        node.lnrt = LeafNodeRoutingTable.after_split(node.bits)  # line 52
        node.splitting = 2
        self.metrics.splits += 1
        for b in (0, 1):
            child = node.bits + str(b)
            msg = TransferSub(node.qattr, child, tuple(halves[b].values()), frozenset(node.seen))
            self.send_key(peer, self._key(node.qattr, child), msg)  # lines 45-50

    def _on_transfer_sub(self, peer: Peer, msg: TransferSub) -> None:
        if msg.created:
            self._on_child_created(peer, msg)
            return
        child = TreeNode(msg.qattr, msg.target, {p.key: p for p in msg.points}, seen=set(msg.seen))
        assert self._node(peer, msg.qattr, msg.target) is None, msg.target
        self.net.points_changed(child)
        self._host(peer, child)
        if self.observer is not None:
            for p in msg.points:
                self.observer(obs.stored(peer.name, child, p, "transfer"))
        parent = msg.target[:-1]
        confirm = TransferSub(msg.qattr, parent, created=True)
        self.send_key(peer, self._key(msg.qattr, parent), confirm)  # decision D-SPLIT
        self._check_capacity(peer, child)

    def _on_child_created(self, peer: Peer, msg: TransferSub) -> None:
        node = self._node(peer, msg.qattr, msg.target)
        assert node is not None and node.splitting > 0, msg
        node.splitting -= 1
        if node.splitting:
            return
        if node.bits:
            # LeafNodeUpdateMessage to the parent, once both children exist (Program 3.1,
            # lines 54-55, delayed until now: erratum E4 / decision D-SPLIT)
            up = node.bits[:-1]
            self.send_key(peer, self._key(node.qattr, up), LeafUpdate(node.qattr, node.bits, up))
        held, node.held = node.held, []
        for m in held:
            assert isinstance(m, ProbeSub | InsertSub | ProbePub)
            self._handle(peer, m)

    def _on_leaf_update(self, peer: Peer, msg: LeafUpdate) -> None:
        node = self._node(peer, msg.qattr, msg.target)
        if node is None or node.lnrt is None:
            return
        node.lnrt.apply_split(msg.split)  # Program 3.1, line 63
        if self.config.lnrt_max_records is not None:
            node.lnrt.coarsen(self.config.lnrt_max_records)
        if self.observer is not None:
            self.observer(obs.lnrt(peer.name, node, msg.split))
        if node.bits:
            up = node.bits[:-1]  # forwarded recursively up to the root (line 65)
            self.send_key(peer, self._key(msg.qattr, up), LeafUpdate(msg.qattr, msg.split, up))

    # -- event publication (§3.4.1, Program 3.3) and delivery (§3.4.2–3.4.3) ---------------
    def _area(self, event: Event, q: str) -> TargetArea:
        key = (event.id, q)
        area = self._areas.get(key)
        if area is None:
            attr = q.split("/", 1)[1]
            area = target_area(self.squares[q], event.value(attr), self.config.cutoff_of(q))
            self._areas[key] = area
        return area

    def probed_attributes(self, event: Event) -> list[str]:
        """Strict: the event's attributes. Lenient: every attribute of the schema, an absent
        one with its whole space as target area (§3.4.1, partial events)."""
        if self.matching == "strict":
            names = sorted(a for a, _ in event.values)
        else:
            names = sorted(self.schemas[event.schema].by_name)
        return [qualified(event.schema, a) for a in names]

    def publish(self, event: Event, seq: int) -> None:
        peer = self.peers[self.pid_of[event.publisher]]
        self.event_seq[event.id] = seq
        self._published_at[event.id] = self.engine.now
        dests: list[tuple[str, str]] = []
        c = self.config
        for q in self.probed_attributes(event):
            k = self.squares[q].k
            max_level = min(c.pub_max_level, c.max_depth)
            for bits in rnd_region_probe(
                self._area(event, q), k, c.pub_min_level, max_level, c.pub_p, self.rng
            ):
                dests.append((q, bits))
        if c.probe_routing == "unicast":  # §3.4.1: one ProbePub per destination
            for q, bits in dests:
                self.send_key(peer, self._key(q, bits), ProbePub(event, q, bits))
        else:
            self._on_probe_pub_multicast(peer, ProbePubMulticast(event, tuple(dests)))

    def _first_hop(self, peer: Peer, key: int) -> int:
        return self.net.first_hop(peer, key)

    def _on_probe_pub_multicast(self, peer: Peer, msg: ProbePubMulticast) -> None:
        """Deliver the ids this peer is home for; regroup the rest by next hop, i.e. by the
        shared prefix that Pastry routes on, one message per group (§3.4.2, Program 3.4)."""
        groups: dict[int, list[tuple[str, str]]] = defaultdict(list)
        for q, bits in msg.dests:
            key = self._key(q, bits)
            if self._home(key) is peer:
                self._on_probe_pub(peer, ProbePub(msg.event, q, bits))
            else:
                groups[self._first_hop(peer, key)].append((q, bits))
        for nxt in sorted(groups):
            self.send_direct(peer, nxt, ProbePubMulticast(msg.event, tuple(groups[nxt])))

    def _on_probe_pub(self, peer: Peer, msg: ProbePub) -> None:
        event, q = msg.event, msg.qattr
        node = peer.nodes.get((q, msg.target))  # `_node`, the most frequent call
        if node is None:
            self.metrics.jump_backs += 1
            up = jump_back(msg.target)  # Program 3.3, line 53
            self.send_key(peer, self._key(q, up), ProbePub(event, q, up))
            return
        if node.splitting:
            node.held.append(msg)
            self.metrics.held += 1
            return
        if event.id in node.seen:
            self.metrics.dedup_discards += 1  # probe dedup per event (§3.4.1, erratum E2)
            return
        node.seen.add(event.id)
        if node.lnrt is not None:
            area = self._area(event, q)
            for rec in node.lnrt.records_overlapping(area, self.squares[q].k):
                # Program 3.3, line 49
                self.send_key(peer, self._key(q, rec), ProbePub(event, q, rec))
            return
        self._match_and_deliver(peer, node, event)

    def _match_and_deliver(self, peer: Peer, node: TreeNode, event: Event) -> None:
        """Match the event at the leaf and deliver it (§3.4.1, §3.4.3)."""
        by_subscriber = self._matching(node, event)
        if by_subscriber:
            if self.observer is not None:
                self._matched = node  # the leaf whose match `_deliver` reports
            self._deliver(peer, event, by_subscriber)

    def _matching(self, node: TreeNode, event: Event) -> dict[str, list[str]]:
        """Linear matching at the leaf (§3.4.1): the matching subscription ids per subscriber.
        A remapped subscription is matched only by the segment containing the value (§3.5,
        decision D-SEG), or by its first segment when the event lacks the base attribute
        (lenient matching, decision D-LENIENT)."""
        eseq = self.event_seq[event.id]
        values = self.net.values(event)
        strict, schema = self.matching == "strict", event.schema
        pid_of, peers, departed = self.pid_of, self.peers, self._departed
        out: dict[str, list[str]] = {}
        for sschema, base, entries in self.net.leaf(node):
            if sschema != schema:
                continue
            v = values.get(base)
            if v is None and strict:
                continue  # every point here has a predicate on its base attribute (§3.3)
            for seq, subscriber, lo, hi, closed, first, sid, preds in entries:
                if seq >= eseq:
                    continue  # installed after the publish: not active for it
                if v is None:
                    if not first:
                        continue  # lenient: only the first segment (D-LENIENT)
                elif not (lo <= v and (v <= hi if closed else v < hi)):
                    continue  # the segment holds the value: `Segment.contains` (§3.5, D-SEG)
                if departed and pid_of[subscriber] not in peers:
                    continue  # the subscriber has left or failed: nothing to deliver to
                for attr, plo, phi in preds:  # the stored subscription: `matches_values`
                    x = values.get(attr)
                    if x is None:
                        if strict:
                            break
                    elif not plo <= x <= phi:
                        break
                else:
                    got = out.get(subscriber)
                    if got is None:
                        out[subscriber] = [sid]
                    else:
                        got.append(sid)
        return out

    def _deliver(self, peer: Peer, event: Event, by_subscriber: dict[str, list[str]]) -> None:
        """Send the event to the subscribers matched at this leaf (§3.4.3)."""
        targets = tuple(
            [
                (s, (ids[0],) if len(ids) == 1 else tuple(sorted(ids)))
                for s, ids in sorted(by_subscriber.items())
            ]
        )
        published = self._published_at[event.id]
        leaf = ""
        if self.observer is not None and self._matched is not None:
            leaf = self._matched.ident  # the delivery tree's id
            self.observer(obs.matched(peer.name, self._matched, event, targets, self.config))
        if self.config.event_delivery == "unicast":  # §3.4.3: directly to each subscriber
            if self.observer is not None:
                for t in targets:  # as `send_deliveries` sends them: one hop, or none to itself
                    msg = EventDelivery(event, (t,), published, peer.name, leaf)
                    hops = 0 if t[0] == peer.name else 1
                    self.observer(obs.delivery(peer.name, t[0], msg, hops, "unicast"))
            self.net.send_deliveries(peer, event, targets, published)
        else:
            self._relay_delivery(peer, EventDelivery(event, targets, published, peer.name, leaf))

    def _relay_delivery(self, peer: Peer, msg: EventDelivery) -> None:
        """Prefix-grouped multicast of the delivery (§3.4.3) or an LBDD tree (Li et al., LBDD)
        rooted at the peer that matched (`msg.origin`); this peer takes its own part and
        forwards."""
        for s, ids in msg.targets:
            if s == peer.name:
                self._accept(peer, msg.event, ids, msg.published_at)
        if self.config.event_delivery == "lbdd":
            # agreeing views: every member computes the same tree (LBDD §3.5.1, Theorem 1)
            members = [s for s, _ in msg.targets if s != msg.origin]
            for child in self._lbdd_tree(msg.origin, members).get(peer.name, []):
                self.send_direct(peer, self.pid_of[child], msg)
            return
        groups: dict[int, list[tuple[str, tuple[str, ...]]]] = defaultdict(list)
        for s, ids in msg.targets:
            if s != peer.name:
                groups[self._first_hop(peer, self.pid_of[s])].append((s, ids))
        for nxt in sorted(groups):
            part = EventDelivery(
                msg.event, tuple(groups[nxt]), msg.published_at, msg.origin, msg.leaf
            )
            self.send_direct(peer, nxt, part)

    def _lbdd_tree(self, source: str, members: list[str]) -> dict[str, list[str]]:
        from pubsub_spec.reference.lbdd.algorithms import build_tree

        key = (source, tuple(sorted(members)))
        tree = self._lbdd_cache.get(key)
        if tree is None:
            tree = build_tree(source, list(key[1]))
            self._lbdd_cache[key] = tree
        return tree

    def _on_event_delivery(self, peer: Peer, msg: EventDelivery) -> None:
        if self.config.event_delivery == "unicast":
            for _, ids in msg.targets:
                self._accept(peer, msg.event, ids, msg.published_at)
        else:
            self._relay_delivery(peer, msg)

    def _accept(self, peer: Peer, event: Event, ids: tuple[str, ...], published_at: float) -> None:
        """The subscriber filters the false positives of range widening (§3.3) against its
        original subscription; what remains are deliveries."""
        values = self.net.values(event)
        strict, schema, subs = self.matching == "strict", event.schema, self.subs
        for sid in ids:
            state = subs[sid]
            if state.schema == schema:
                for attr, lo, hi in state.preds:  # the original: `matches_values`, inline
                    x = values.get(attr)
                    if x is None:
                        if strict:
                            break
                    elif not lo <= x <= hi:
                        break
                else:
                    self.net.record(event.id, sid, self.engine.now - published_at)
                    continue
            self.metrics.false_positives += 1

    def record_delivery(self, delivery: Delivery, latency_ms: float) -> None:
        """Keep a delivery and its latency; a subclass may stream them instead (the figures of
        reference/thesis/figures.py count them without holding every delivery in memory)."""
        self.deliveries.append(delivery)
        self.metrics.delivery_latency_ms.append(latency_ms)

    # -- churn and fault tolerance (§3.6) --------------------------------------------------
    def join(self, name: str) -> None:
        """The peer joins the DHT at once but is not ready until its content has arrived: until
        then application messages go to its neighbours (§3.6)."""
        self._add_peer(name, ready=False)
        self.engine.schedule(self.engine.now + self.config.join_ready_ms, Timer("ready", name))

    def _on_ready(self, name: str) -> None:
        peer = self.peers[self.pid_of[name]]
        peer.ready = True
        self.ready_ring.add(peer.pid)
        self.net.membership_changed()
        for pid in sorted(self.ready_ring.leaf_set(peer.pid)):
            other = self.peers[pid]
            for k, node in sorted(other.nodes.items()):
                if self._home(self._key(node.qattr, node.bits)) is peer:
                    del other.nodes[k]
                    self._host(peer, node)
        for node in list(peer.nodes.values()):
            if node.is_leaf and not node.splitting:
                self._check_capacity(peer, node)

    def leave(self, name: str) -> None:
        """Graceful leave: the peer hands its tree nodes to their new homes."""
        self._remove_peers([name], graceful=True)

    def fail(self, names: Sequence[str]) -> None:
        """Crash of peers: each tree node is taken over by its new home from a surviving replica
        among the k leaf-set neighbours (§3.6); with all k+1 copies gone its points are lost."""
        self._remove_peers(list(names), graceful=False)

    def _remove_peers(self, names: list[str], graceful: bool) -> None:
        gone = {self.pid_of[n] for n in names}
        k = self.config.replication
        plans: list[tuple[TreeNode, bool]] = []
        for pid in sorted(gone):
            for node in self.peers[pid].nodes.values():
                key = self._key(node.qattr, node.bits)
                replicas = self.ready_ring.k_closest(key, k, exclude=frozenset({pid}))
                plans.append((node, graceful or any(r not in gone for r in replicas)))
        for pid in sorted(gone):
            self.ring.remove(pid)
            if pid in self.ready_ring:
                self.ready_ring.remove(pid)
            del self.peers[pid]
        self.net.membership_changed()
        self._departed = True  # leaf matching now checks that each subscriber is alive
        for node, survived in plans:
            if not survived:
                if self.observer is not None:
                    host = self._home(self._key(node.qattr, node.bits)).name
                    for p in node.points.values():
                        self.observer(obs.removed(host, node, p, lost=True))
                self.metrics.points_lost += len(node.points)
                node.points = {}
                self.net.points_changed(node)
            self._host(self._home(self._key(node.qattr, node.bits)), node)
        for node, _ in sorted(plans, key=lambda p: p[0].depth):
            if not graceful and node.lnrt is not None:
                # the routing table is not replicated: rebuilt from the parent's (§3.6)
                parent = self._find_node(node.qattr, node.bits[:-1]) if node.bits else None
                recs = list(parent.lnrt) if parent is not None and parent.lnrt else []
                node.lnrt = LeafNodeRoutingTable.rebuilt_from_parent(node.bits, recs)
                if self.observer is not None:
                    owner = self._home(self._key(node.qattr, node.bits)).name
                    self.observer(obs.lnrt(owner, node, ""))
        for node, _ in plans:
            if node.is_leaf:
                self._check_capacity(self._home(self._key(node.qattr, node.bits)), node)

    def _find_node(self, qattr: str, bits: str) -> TreeNode | None:
        return self._home(self._key(qattr, bits)).nodes.get((qattr, bits))


def _describe(msg: Message) -> str:
    if isinstance(msg, ProbePub):
        return f"{msg.event.id}@{msg.qattr}:{msg.target}"
    if isinstance(msg, ProbeSub | InsertSub):
        return f"{msg.point.sub.id}#{msg.point.segment.index}@{msg.target}"
    if isinstance(msg, ProbePubMulticast):
        return f"{msg.event.id}x{len(msg.dests)}"
    if isinstance(msg, EventDelivery):
        return f"{msg.event.id}->{','.join(s for s, _ in msg.targets)}"
    return f"{msg.qattr}:{msg.target}"
