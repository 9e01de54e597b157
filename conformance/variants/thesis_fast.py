"""FastTwoDTree: the reference simulator of the thesis (reference/thesis/system.py) with its hot
paths rewritten for speed and nothing else changed (issue 14, part 4).

It is the reference, message for message: every protocol rule, every random draw, every send,
hop, byte and latency is the reference's, and so is the run's event-log hash (one line per
processed message, reference/sim/engine.py), bit for bit. tests/test_thesis_fast.py checks the
hash, the metrics and the deliveries against the reference on every probe routing and delivery
mode, with churn, cut-off, widening, lenient matching and lost LeafUpdates;
benchmarks/bench_thesis_speed.py checks the hash again at Table 4.1's full size. What is
faster, and why it is the same:

- **The engine loop** runs inline (`FastEngine.drain`): each item as `Engine.step` does it, the
  same log line, the same batched hashing.
- **Dispatch** finds the handler by message type instead of a chain of isinstance tests; the
  log text is the reference's `_describe`.
- **Sends** count the same hops and bytes at the same senders and sum the same latencies in
  the same order, from per-peer (name, coordinates) looked up once (both are fixed by the
  peer's name, reference/sim/latency.py) and per-event sizes computed once.
- **Routes, homes and first hops** are cached until the membership changes: Pastry's routes
  are a function of the membership of the ring, homes of the ready ring (D-DHT, §3.6).
- **Leaf matching** (§3.4.1, §3.5) reads the leaf's points from flat tuples, made again after
  any change to any node's points: the same segment test as `Segment.contains` and the same
  predicate test as `matches_values`, the base attribute's value looked up once per leaf and
  its predicate left out where the segment test implies it.
- **Unicast event delivery** (§3.4.3), the bulk of all messages, travels as a slim engine item
  (`Deliver`) instead of an `EventDelivery` in an `Arrival`; on arrival it is handled as the
  reference handles that message: dropped at a dead peer, each subscription checked against
  the subscriber's original subscription (§3.3), which is skipped when that original is the
  very subscription the leaf matched (the same test on the same values).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from itertools import pairwise
from operator import itemgetter

from pubsub_spec.reference.common.matching import matches_values
from pubsub_spec.reference.common.model import Event, Number, Subscription
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.engine import Engine
from pubsub_spec.reference.sim.latency import BASE_ONE_WAY_MS
from pubsub_spec.reference.sim.stream import StreamedDeliveries
from pubsub_spec.reference.thesis.figures import StreamingSystem
from pubsub_spec.reference.thesis.messages import (
    HEADER,
    ID,
    TYPE_OF,
    EventDelivery,
    InsertSub,
    LeafUpdate,
    Message,
    ProbePub,
    ProbePubMulticast,
    ProbeSub,
    TransferSub,
    event_size,
    size_of,
)
from pubsub_spec.reference.thesis.system import (
    Arrival,
    Item,
    Peer,
    Timer,
    TwoDTreeSystem,
    _describe,
    _node_key,
)
from pubsub_spec.reference.thesis.tree import TreeNode

# A unicast EventDelivery in flight (§3.4.3): the event, the subscriber, its subscription ids
# with, for each, the original subscription the leaf's test stands for (`Entry`), the
# publication time and the subscriber's peer id. The reference's `Arrival(EventDelivery(event,
# ((subscriber, ids),), published_at, origin), None, pid)`.
Deliver = tuple[Event, str, tuple[str, ...], tuple[Subscription | None, ...], float, int]
FastItem = Item | Deliver
# A predicate as (attribute, lo, hi).
Pred = tuple[str, Number, Number]
# A stored point as a leaf matches it: seq, subscriber, segment lo, hi, closed, whether it is
# segment 0, the subscription id, its stored predicates (but the one on the base attribute,
# which the segment test implies) and the subscriber's original subscription if that has the
# stored predicates (the leaf's test is then the subscriber's own, §3.3), else None; grouped
# by schema and base attribute.
Entry = tuple[int, str, Number, Number, bool, bool, str, tuple[Pred, ...], Subscription | None]
Group = tuple[str, str, tuple[Entry, ...]]
_first = itemgetter(0)


class FastEngine(Engine[FastItem]):
    """The reference engine with its step loop inline."""

    def drain(
        self,
        handle: Callable[[FastItem], str],
        arrive: Callable[[Deliver], str],
        until: float | None,
    ) -> None:
        """`Engine.step(handle)` while an item is due (at or before `until`; None: all), with
        `Deliver` items handed to `arrive` directly."""
        queue, pending, pop = self._queue, self._pending, heapq.heappop
        while queue and (until is None or queue[0][0] <= until):
            at, seq, item = pop(queue)
            self.now = at
            self.processed += 1
            text = arrive(item) if type(item) is tuple else handle(item)
            pending.append(f"{at!r}|{seq}|{text}\n")
            if len(pending) >= 4096:
                self._flush()


class FastTwoDTreeSystem(TwoDTreeSystem):
    """The thesis system, message for message the reference (module doc)."""

    engine: FastEngine  # type: ignore[assignment]

    def __init__(self, *args: object, **kwargs: object) -> None:
        # caches of the membership (`_membership_changed`), used from the first peer on
        self._routes: dict[tuple[int, int], tuple[tuple[str, ...], float]] = {}
        self._homes: dict[int, Peer] = {}
        self._first_hops: dict[tuple[int, int], int] = {}
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.engine = FastEngine()
        handlers: dict[type, Callable[[Peer, Message], None]] = {
            ProbeSub: self._on_probe_sub,  # type: ignore[dict-item]
            InsertSub: self._on_insert_sub,  # type: ignore[dict-item]
            TransferSub: self._on_transfer_sub,  # type: ignore[dict-item]
            LeafUpdate: self._on_leaf_update,  # type: ignore[dict-item]
            ProbePub: self._on_probe_pub,  # type: ignore[dict-item]
            ProbePubMulticast: self._on_probe_pub_multicast,  # type: ignore[dict-item]
            EventDelivery: self._on_event_delivery,  # type: ignore[dict-item]
        }
        self._handlers = handlers
        self._strict = self.matching == "strict"
        self._unicast = self.config.event_delivery == "unicast"
        self._plain_record = type(self).record_delivery is TwoDTreeSystem.record_delivery
        self._departed = False  # whether any peer has left or failed
        self._where: dict[int, tuple[str, float, float]] = {}  # pid -> name, x, y
        self._event_sizes: dict[str, tuple[Event, int]] = {}
        self._event_values: dict[str, tuple[Event, dict[str, Number]]] = {}
        self._leaves: dict[int, tuple[TreeNode, int, list[Group]]] = {}
        self._points_version = 0

    # -- the engine (reference/sim/system.py) ----------------------------------------------
    def run_until_time(self, t: float) -> None:
        self.engine.drain(self._dispatch, self._arrive, t)
        self.engine.advance_to(t)

    def run_to_quiescence(self) -> None:
        self.engine.drain(self._dispatch, self._arrive, None)

    def _dispatch(self, item: FastItem) -> str:
        if type(item) is tuple:
            return self._arrive(item)
        if isinstance(item, Timer):
            return super()._dispatch(item)
        assert isinstance(item, Arrival)
        msg = item.msg
        if item.key is not None:
            peer = self._home(item.key)
        else:
            assert item.pid is not None
            if item.pid not in self.peers:
                return f"drop {TYPE_OF[type(msg)]} to dead peer"
            peer = self.peers[item.pid]
        self._handlers[type(msg)](peer, msg)
        return f"{TYPE_OF[type(msg)]} {peer.name} {_describe(msg)}"

    def _handle(self, peer: Peer, msg: Message) -> None:
        self._handlers[type(msg)](peer, msg)

    # -- the membership --------------------------------------------------------------------
    def _home(self, key: int) -> Peer:
        home = self._homes.get(key)
        if home is None:
            home = self._homes[key] = super()._home(key)
        return home

    def _first_hop(self, peer: Peer, key: int) -> int:
        hop = self._first_hops.get((peer.pid, key))
        if hop is None:
            hop = self._first_hops[(peer.pid, key)] = super()._first_hop(peer, key)
        return hop

    def _membership_changed(self) -> None:
        """Routes follow the membership of `ring`, homes that of `ready_ring` (D-DHT, §3.6)."""
        self._routes.clear()
        self._homes.clear()
        self._first_hops.clear()

    def join(self, name: str) -> None:
        self._membership_changed()
        super().join(name)

    def _on_ready(self, name: str) -> None:
        self._membership_changed()
        super()._on_ready(name)

    def _remove_peers(self, names: list[str], graceful: bool) -> None:
        self._membership_changed()
        self._departed = True  # leaf matching now checks that each subscriber is alive
        super()._remove_peers(names, graceful)
        self._points_version += 1  # points lost with their homes (§3.6)

    # -- the only methods that change a node's stored points (§3.3, §3.3.1, §3.2.2): each
    # bumps the version after the change, before any later match can read the node
    def _on_probe_sub(self, peer: Peer, msg: ProbeSub) -> None:
        super()._on_probe_sub(peer, msg)
        self._points_version += 1

    def _on_insert_sub(self, peer: Peer, msg: InsertSub) -> None:
        super()._on_insert_sub(peer, msg)
        self._points_version += 1

    def _split(self, peer: Peer, node: TreeNode) -> None:
        super()._split(peer, node)
        self._points_version += 1

    def _on_transfer_sub(self, peer: Peer, msg: TransferSub) -> None:
        super()._on_transfer_sub(peer, msg)
        self._points_version += 1

    # -- sending ---------------------------------------------------------------------------
    def _place(self, pid: int) -> tuple[str, float, float]:
        name = self.peers[pid].name
        x, y = self.latency.coordinates(name)
        where = self._where[pid] = (name, x, y)
        return where

    def _event_size(self, event: Event) -> int:
        hit = self._event_sizes.get(event.id)
        if hit is None or hit[0] is not event:
            hit = self._event_sizes[event.id] = (event, event_size(event))
        return hit[1]

    def _size(self, msg: Message) -> int:
        """`size_of(msg)` (thesis/messages.py, D-MSG); a ProbePub's, the most frequent, with
        the event's size from `_event_size` (keyed by id: `event_size`'s cache hashes the
        whole event at every call)."""
        if type(msg) is ProbePub:
            return HEADER + self._event_size(msg.event) + len(msg.qattr) + len(msg.target)
        return size_of(msg)

    def _account(self, path: Sequence[int], msg: Message) -> float:
        kind = TYPE_OF[type(msg)]
        size = self._size(msg)
        m = self.metrics
        m.sends[kind] += 1
        n = len(path) - 1
        if n > 0:
            m.messages[kind] += n
            m.bytes[kind] += size * n
            peer_bytes, peer_messages = m.peer_bytes, m.peer_messages
            where, place = self._where, self._place
            for pid in path[:-1]:
                key = (where.get(pid) or place(pid))[0], kind
                peer_bytes[key] += size
                peer_messages[key] += 1
        return self._latency(path)

    def _latency(self, path: Sequence[int]) -> float:
        """The sum of `LatencyModel.one_way` along the path, in the same order."""
        where, place, scale = self._where, self._place, self.latency.scale
        total = 0.0
        for a, b in pairwise(path):
            if a == b:
                continue  # `one_way` is 0.0 between a peer and itself
            _, x1, y1 = where.get(a) or place(a)
            _, x2, y2 = where.get(b) or place(b)
            total += BASE_ONE_WAY_MS + scale * math.hypot(x1 - x2, y1 - y2)
        return total

    def send_key(self, src: Peer, key: int, msg: Message) -> None:
        route = self._routes.get((src.pid, key))
        if route is None:
            route = self._routes[(src.pid, key)] = self._route(src.pid, key)
        senders, latency = route
        kind = TYPE_OF[type(msg)]
        size = self._size(msg)
        m = self.metrics
        m.sends[kind] += 1
        if senders:
            m.messages[kind] += len(senders)
            m.bytes[kind] += size * len(senders)
            peer_bytes, peer_messages = m.peer_bytes, m.peer_messages
            for name in senders:
                peer_bytes[(name, kind)] += size
                peer_messages[(name, kind)] += 1
        lost, delay = self._leaf_update_fault(msg)
        if lost:
            m.leaf_updates_lost += 1
            return
        self.engine.schedule(self.engine.now + latency + delay, Arrival(msg, key, None))

    def _route(self, src: int, key: int) -> tuple[tuple[str, ...], float]:
        """The senders' names and the latency of `TwoDTreeSystem.send_key`'s path."""
        path = [src, *self.ring.route(src, key)]
        home = self.ready_ring.closest(key)
        if path[-1] != home:
            path.append(home)  # a not-ready peer hands application messages on (§3.6)
        return tuple(self.peers[p].name for p in path[:-1]), self._latency(path)

    # -- publication (§3.4.1, Program 3.3; §3.4.2, Program 3.4) ----------------------------
    def _on_probe_pub(self, peer: Peer, msg: ProbePub) -> None:
        event, qattr, target = msg.event, msg.qattr, msg.target
        node = peer.nodes.get((qattr, target))
        if node is None or node.splitting:
            super()._on_probe_pub(peer, msg)  # jump back or hold: the reference's path
            return
        seen = node.seen
        if event.id in seen:
            self.metrics.dedup_discards += 1  # probe dedup per event (§3.4.1, erratum E2)
            return
        seen.add(event.id)
        lnrt = node.lnrt
        if lnrt is not None:
            area = self._area(event, qattr)
            for rec in lnrt.records_overlapping(area, self.squares[qattr].k):
                self.send_key(peer, _node_key(qattr, rec), ProbePub(event, qattr, rec))
            return
        self._match_and_deliver(peer, node, event)

    def _on_probe_pub_multicast(self, peer: Peer, msg: ProbePubMulticast) -> None:
        event = msg.event
        groups: dict[int, list[tuple[str, str]]] = {}
        for q, bits in msg.dests:
            key = _node_key(q, bits)
            if self._home(key) is peer:
                self._on_probe_pub(peer, ProbePub(event, q, bits))
            else:
                nxt = self._first_hop(peer, key)
                group = groups.get(nxt)
                if group is None:
                    groups[nxt] = [(q, bits)]
                else:
                    group.append((q, bits))
        for nxt in sorted(groups):
            self.send_direct(peer, nxt, ProbePubMulticast(event, tuple(groups[nxt])))

    # -- leaf matching and unicast delivery (§3.4.1, §3.4.3, §3.5) -------------------------
    def _leaf(self, node: TreeNode) -> list[Group]:
        """The node's stored points as matched, made again after any change to any node's
        points (`_points_version`)."""
        hit = self._leaves.get(id(node))
        if hit is not None and hit[0] is node and hit[1] == self._points_version:
            return hit[2]
        by_base: dict[tuple[str, str], list[Entry]] = {}
        for point in node.points.values():
            seg, sub, base = point.segment, point.sub, point.base
            state = self.subs.get(sub.id)
            original = state.original if state is not None else None
            same = original is not None and (original.schema, original.predicates) == (
                sub.schema,
                sub.predicates,
            )
            entry = (
                point.seq,
                sub.subscriber,
                seg.lo,
                seg.hi,
                seg.closed,
                seg.index == 0,
                sub.id,
                # the base attribute's predicate holds whenever the segment holds the value:
                # the segments of a point partition that predicate's range (§3.5, D-SEG)
                tuple(
                    (p.attribute, p.lo, p.hi)
                    for p in sub.predicates
                    if not (p.attribute == base and p.lo <= seg.lo and seg.hi <= p.hi)
                ),
                original if same else None,
            )
            by_base.setdefault((sub.schema, base), []).append(entry)
        groups = [(schema, base, tuple(entries)) for (schema, base), entries in by_base.items()]
        self._leaves[id(node)] = (node, self._points_version, groups)
        return groups

    def _values(self, event: Event) -> dict[str, Number]:
        """`event_values(event)`, once per event: the first value of a name wins."""
        hit = self._event_values.get(event.id)
        if hit is None or hit[0] is not event:
            values: dict[str, Number] = {}
            for name, v in event.values:
                values.setdefault(name, v)
            hit = self._event_values[event.id] = (event, values)
        return hit[1]

    def _matching(self, node: TreeNode, event: Event) -> dict[str, list[str]]:
        return {s: [sid for sid, _ in got] for s, got in self._matched(node, event).items()}

    def _matched(
        self, node: TreeNode, event: Event
    ) -> dict[str, list[tuple[str, Subscription | None]]]:
        """`TwoDTreeSystem._matching`, each id with its entry's original subscription."""
        eseq = self.event_seq[event.id]
        values = self._values(event)
        strict, schema = self._strict, event.schema
        pid_of, peers, departed = self.pid_of, self.peers, self._departed
        out: dict[str, list[tuple[str, Subscription | None]]] = {}
        for sschema, base, entries in self._leaf(node):
            if sschema != schema:
                continue
            v = values.get(base)
            if v is None and strict:
                continue  # every point here has a predicate on its base attribute (§3.3)
            for seq, subscriber, lo, hi, closed, first, sid, preds, original in entries:
                if seq >= eseq:
                    continue  # installed after the publish: not active for it
                if v is None:
                    if not first:
                        continue  # lenient: only the first segment (D-LENIENT)
                elif not (lo <= v and (v <= hi if closed else v < hi)):
                    continue  # `Segment.contains` (§3.5, D-SEG)
                if departed and pid_of[subscriber] not in peers:
                    continue  # the subscriber has left or failed
                for attr, plo, phi in preds:  # `matches_values`
                    x = values.get(attr)
                    if x is None:
                        if strict:
                            break
                    elif not plo <= x <= phi:
                        break
                else:
                    got = out.get(subscriber)
                    if got is None:
                        out[subscriber] = [(sid, original)]
                    else:
                        got.append((sid, original))
        return out

    def _match_and_deliver(self, peer: Peer, node: TreeNode, event: Event) -> None:
        if not self._unicast:
            super()._match_and_deliver(peer, node, event)
            return
        matched = self._matched(node, event)
        if not matched:
            return
        # per subscriber, `send_direct(peer, pid, EventDelivery(event, ((s, ids),), published,
        # peer.name))`: one hop counted at this peer, its latency one `one_way`
        pid_of, where, place = self.pid_of, self._where, self._place
        published = self._published_at[event.id]
        base_size = HEADER + self._event_size(event) + ID
        engine = self.engine
        now, schedule, scale, hypot = engine.now, engine.schedule, self.latency.scale, math.hypot
        src = peer.pid
        name, x1, y1 = where.get(src) or place(src)
        hops = sent = 0
        ids: tuple[str, ...]
        originals: tuple[Subscription | None, ...]
        for s, got in sorted(matched.items()):
            if len(got) == 1:
                sid, original = got[0]
                ids, originals, size = (sid,), (original,), base_size + len(sid)
            else:
                got.sort(key=_first)  # by id, as `_deliver` sorts the ids
                ids, originals = tuple(g[0] for g in got), tuple(g[1] for g in got)
                size = base_size + sum(map(len, ids))
            dst = pid_of[s]
            if dst == src:
                latency = 0.0
            else:
                hops += 1
                sent += size
                _, x2, y2 = where.get(dst) or place(dst)
                latency = BASE_ONE_WAY_MS + scale * hypot(x1 - x2, y1 - y2)
            schedule(now + latency, (event, s, ids, originals, published, dst))
        m, kind = self.metrics, "EventDelivery"
        m.sends[kind] += len(matched)
        if hops:
            m.messages[kind] += hops
            m.bytes[kind] += sent
            m.peer_bytes[(name, kind)] += sent
            m.peer_messages[(name, kind)] += hops

    def _arrive(self, item: Deliver) -> str:
        """A unicast EventDelivery's arrival, as `_dispatch`, `_on_event_delivery` and `_accept`
        handle it: dropped at a dead peer; else each subscription checked against the original
        subscription (§3.3), the false positives counted, the rest recorded."""
        event, s, ids, originals, published, dst = item
        peer = self.peers.get(dst)
        if peer is None:
            return "drop EventDelivery to dead peer"
        subs, latency, eid = self.subs, self.engine.now - published, event.id
        deliveries, plain = self.deliveries, self._plain_record
        for sid, same in zip(ids, originals, strict=True):
            original = subs[sid].original
            if original is not same and not matches_values(
                original, event.schema, self._values(event), self._strict
            ):
                self.metrics.false_positives += 1
            elif not plain:
                self.record_delivery(Delivery(eid, sid), latency)
            else:  # `TwoDTreeSystem.record_delivery`, into simulate's stream if it is one
                if type(deliveries) is StreamedDeliveries:
                    deliveries.stream.add(eid, sid)
                else:
                    deliveries.append(Delivery(eid, sid))
                self.metrics.delivery_latency_ms.append(latency)
        return f"EventDelivery {peer.name} {event.id}->{s}"


class FastStreamingSystem(FastTwoDTreeSystem, StreamingSystem):
    """The figures' run (reference/thesis/figures.py: deliveries counted, not kept) on the
    fast engine: `pubsub-spec figures` runs this unless given `--engine reference`."""
