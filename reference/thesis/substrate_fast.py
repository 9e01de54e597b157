"""The fast substrate of the thesis system: the reference substrate (substrate.py) with every
route, home, size and leaf computed once and kept until the handlers say it changed.

Decision V-FAST (docs/thesis.md, "Speed"): a run on it is the reference's run bit for bit,
the same event-log hash; tests/test_thesis_fast.py compares the two. The protocol handlers
are the reference's own (reference/thesis/system.py); only these differ:

- **The engine loop** runs inline (`FastEngine.drain`): each item as `Engine.step` does it, the
  same log line, the same batched hashing.
- **Sends** count the same hops and bytes at the same senders and sum the same latencies in
  the same order, from per-peer (name, coordinates) looked up once (both are fixed by the
  peer's name, reference/sim/latency.py) and per-event sizes computed once.
- **Routes, homes and first hops** are kept until `membership_changed`: Pastry's routes are a
  function of the membership of the ring, homes of the ready ring (D-DHT, thesis §3.6).
- **A leaf's points** are kept in the flat form of `Group` until `points_changed(node)`, the
  predicate on the base attribute left out where the segment test implies it (D-SEG).
- **Unicast event deliveries** (thesis §3.4.3), the bulk of all messages, travel as compact
  engine items (`substrate.Deliver`) instead of an `EventDelivery` in an `Arrival`.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections.abc import Callable, Sequence
from itertools import pairwise

from pubsub_spec.reference.common.model import Event, Number, qualified
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.engine import Engine
from pubsub_spec.reference.sim.latency import BASE_ONE_WAY_MS
from pubsub_spec.reference.sim.stream import DeliveryStream, StreamedDeliveries
from pubsub_spec.reference.thesis.figures import StreamingSystem
from pubsub_spec.reference.thesis.messages import (
    HEADER,
    ID,
    TYPE_OF,
    EventDelivery,
    LeafUpdate,
    Message,
    ProbePub,
    event_size,
    size_of,
)
from pubsub_spec.reference.thesis.substrate import (
    Arrival,
    Deliver,
    Entry,
    Group,
    Item,
    Peer,
    Pred,
    Substrate,
    Targets,
)
from pubsub_spec.reference.thesis.system import TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import TreeNode


class FastEngine(Engine[Item]):
    """The reference engine with its step loop inline and sequence numbers taken in bulk."""

    def drain(
        self, handle: Callable[[Item], str], deliver: Callable[[Deliver], str], until: float | None
    ) -> None:
        """`Engine.step(handle)` while an item is due (at or before `until`; None: all), with
        `deliver(item)` for a `Deliver` item, `handle`'s own first branch, called directly."""
        queue, pop = self._queue, heapq.heappop
        add = self._pending.append  # the same list throughout (`_flush` clears it)
        limit = math.inf if until is None else until  # no time is above infinity
        n = 0  # items processed, added to `processed` at the end (no handler reads it)
        try:
            while queue:
                at, seq, item = entry = pop(queue)
                if at > limit:  # not due: back in its place (the
                    heapq.heappush(queue, entry)  # (time, seq) keys are distinct, so the
                    break  # order of what follows is the same)
                self.now = at
                n += 1
                if type(item) is tuple:
                    add(f"{at!r}|{seq}|{deliver(item)}\n")
                else:
                    add(f"{at!r}|{seq}|{handle(item)}\n")
                if not n & 4095:  # hashed in batches: any batching gives the same hash
                    self._flush()
        finally:
            self.processed += n
            if len(self._pending) >= 4096:  # short runs add up: at most a batch pending
                self._flush()

    def reserve(self, n: int) -> tuple[list[tuple[float, int, Item]], int]:
        """The queue and the first of `n` sequence numbers taken at once: pushing
        `(at, first + i, item_i)` for i < n, at >= now, is `schedule(at_i, item_i)` in order."""
        first = self._seq + 1
        self._seq += n
        return self._queue, first


# The senders' (name, kind) of one send, as the metrics count them (D-MSG).
Keys = tuple[tuple[str, str], ...]
# Counts held back for one `Keys` since the last `settle`: sends, then the messages and the
# bytes at each of the keys (a send of `size` bytes along k keys: 1, 1, size).
Tally = list[int]


class FastSubstrate(Substrate):
    """The reference substrate's results, each computed once (module doc)."""

    system: TwoDTreeSystem  # the thesis system itself (substrate.Host is what any one needs)

    def __init__(self, system: TwoDTreeSystem) -> None:
        super().__init__(system)
        # (sender, key) -> the senders' names along the route and its latency; with a kind,
        # the senders' (name, kind) as the metrics count them (both forgotten together)
        self._routes: dict[tuple[int, int], tuple[tuple[str, ...], float]] = {}
        self._sent: dict[tuple[int, int, str], tuple[Keys, float, Tally]] = {}
        # (src, kind) -> the sender's (name, kind) and its tally (src == dst: no hop, no key)
        self._direct: dict[tuple[int, str], tuple[Keys, Tally]] = {}
        self._delivered: dict[int, tuple[Keys, Tally]] = {}  # src -> its EventDelivery hops
        self._delivery_sends: Tally = [0, 0, 0]  # EventDelivery sends, whatever their hops
        # the tallies counted into since the last `settle`, in the order of their first count
        self._touched: list[tuple[str, Keys, Tally]] = []
        self._one_ways: dict[int, dict[int, float]] = {}  # src -> dst -> `one_way`
        # src -> subscriber name -> its peer id and `one_way` (None: src itself); a peer id
        # and the coordinates are fixed by the peer's name (sha1_id, reference/sim/latency.py)
        self._to_subscriber: dict[int, dict[str, tuple[int, float | None]]] = {}
        self._homes: dict[int, Peer] = {}
        self._first_hops: dict[tuple[int, int], int] = {}
        self._where: dict[int, tuple[str, float, float]] = {}  # pid -> name, x, y
        self._event_sizes: dict[str, tuple[Event, int]] = {}
        self._event_values: dict[str, tuple[Event, dict[str, Number]]] = {}
        self._last_values: tuple[Event | None, dict[str, Number]] = (None, {})
        self._last_size: tuple[Event | None, int] = (None, 0)
        self._leaves: dict[int, tuple[TreeNode, list[Group]]] = {}
        self._plain_record = type(system).record_delivery is TwoDTreeSystem.record_delivery

    # -- the engine ------------------------------------------------------------------------
    def new_engine(self) -> Engine[Item]:
        return FastEngine()

    def run(self, dispatch: Callable[[Item], str], until: float | None) -> None:
        engine = self.system.engine
        if isinstance(engine, FastEngine):
            engine.drain(dispatch, self.system.on_deliver, until)
        else:  # an engine put in place by a subclass of the system
            super().run(dispatch, until)
        if until is None:  # quiescent: the metrics are read now if ever (`Substrate.settle`)
            self.settle()

    def settle(self) -> None:
        """Add the counts held back since the last call to `system.metrics`: per tally, in the
        order of its first count, what `Metrics.hops` and `sends[kind] += 1` would have added
        send by send (the same sums, and each counter's keys first added in the same order)."""
        touched = self._touched
        if not touched:
            return
        m = self.system.metrics
        sends, messages, sizes = m.sends, m.messages, m.bytes
        peer_bytes, peer_messages = m.peer_bytes, m.peer_messages
        for kind, keys, tally in touched:
            n_sends, n_messages, n_bytes = tally
            tally[0] = tally[1] = tally[2] = 0
            if n_sends:
                sends[kind] += n_sends
            if keys and n_messages:
                n = len(keys)
                messages[kind] += n_messages * n
                sizes[kind] += n_bytes * n
                for k in keys:
                    peer_bytes[k] += n_bytes
                    peer_messages[k] += n_messages
        touched.clear()

    # -- routing ---------------------------------------------------------------------------
    def membership_changed(self) -> None:
        """Routes follow the membership of `ring`, homes that of `ready_ring` (D-DHT, §3.6)."""
        self._routes.clear()
        self._sent.clear()
        self._homes.clear()
        self._first_hops.clear()

    def home(self, key: int) -> Peer:
        home = self._homes.get(key)
        if home is None:
            s = self.system
            home = self._homes[key] = s.peers[s.ready_ring.closest(key)]
        return home

    def first_hop(self, peer: Peer, key: int) -> int:
        hop = self._first_hops.get((peer.pid, key))
        if hop is None:
            s = self.system
            nxt = s.ring.next_hop(peer.pid, key)
            hop = s.ready_ring.closest(key) if nxt == peer.pid else nxt
            self._first_hops[(peer.pid, key)] = hop
        return hop

    def _route(self, src: int, key: int) -> tuple[tuple[str, ...], float]:
        """The senders' names and the latency of the reference's `send_key` path."""
        s = self.system
        path = [src, *s.ring.route(src, key)]
        home = s.ready_ring.closest(key)
        if path[-1] != home:
            path.append(home)  # a not-ready peer hands application messages on (§3.6)
        return tuple(s.peers[p].name for p in path[:-1]), self._latency(path)

    def route_hops(self, src: Peer, key: int) -> tuple[int, Peer]:
        route = self._routes.get((src.pid, key))
        if route is None:
            route = self._routes[(src.pid, key)] = self._route(src.pid, key)
        return len(route[0]), self.home(key)

    # -- sending ---------------------------------------------------------------------------
    def _place(self, pid: int) -> tuple[str, float, float]:
        s = self.system
        name = s.peers[pid].name
        x, y = s.latency.coordinates(name)
        where = self._where[pid] = (name, x, y)
        return where

    def _event_size(self, event: Event) -> int:
        hit = self._event_sizes.get(event.id)
        if hit is None or hit[0] is not event:
            hit = self._event_sizes[event.id] = (event, event_size(event))
        return hit[1]

    def _size(self, msg: Message) -> int:
        """`size_of(msg)` (D-MSG); a ProbePub's, the most frequent, with the event's size from
        `_event_size` (keyed by id: `event_size`'s cache hashes the whole event)."""
        if type(msg) is ProbePub:
            return HEADER + self._event_size(msg.event) + len(msg.qattr) + len(msg.target)
        return size_of(msg)

    def _latency(self, path: Sequence[int]) -> float:
        """The sum of `LatencyModel.one_way` along the path, in the same order."""
        where, place, scale = self._where, self._place, self.system.latency.scale
        total = 0.0
        for a, b in pairwise(path):
            if a == b:
                continue  # `one_way` is 0.0 between a peer and itself
            _, x1, y1 = where.get(a) or place(a)
            _, x2, y2 = where.get(b) or place(b)
            total += BASE_ONE_WAY_MS + scale * math.hypot(x1 - x2, y1 - y2)
        return total

    def _count(self, kind: str, keys: Keys, tally: Tally, size: int) -> None:
        """One send of `kind`: a hop of `size` bytes at each sender, `keys` the senders'
        (name, kind) (D-MSG); held back in `tally` until `settle`."""
        if not tally[0]:
            self._touched.append((kind, keys, tally))
        tally[0] += 1
        tally[1] += 1
        tally[2] += size

    def send_key(self, src: Peer, key: int, msg: Message) -> None:
        kind = TYPE_OF[type(msg)]
        sent = self._sent.get((src.pid, key, kind))
        if sent is None:
            route = self._routes.get((src.pid, key))
            if route is None:
                route = self._routes[(src.pid, key)] = self._route(src.pid, key)
            senders, latency = route
            sent = self._sent[(src.pid, key, kind)] = (
                tuple((name, kind) for name in senders),
                latency,
                [0, 0, 0],
            )
        keys, latency, tally = sent
        if type(msg) is ProbePub:  # `_size`, the most frequent, the event's size at hand
            event = msg.event
            last = self._last_size
            if last[0] is not event:
                last = self._last_size = (event, self._event_size(event))
            size = HEADER + last[1] + len(msg.qattr) + len(msg.target)
        else:
            size = size_of(msg)
        if not tally[0]:  # `_count`, inline
            self._touched.append((kind, keys, tally))
        tally[0] += 1
        tally[1] += 1
        tally[2] += size
        s = self.system
        engine = s.engine
        if isinstance(msg, LeafUpdate):  # `leaf_update_fault` is (False, 0.0) for any other
            lost, delay = self.leaf_update_fault(msg)
            if lost:
                s.metrics.leaf_updates_lost += 1
                return
            engine.schedule(engine.now + latency + delay, Arrival(msg, key, None))
        elif type(engine) is FastEngine:  # `schedule`, inline: at >= now, latency >= 0
            engine._seq = seq = engine._seq + 1  # and `now + latency + 0.0` is `now + latency`
            heapq.heappush(engine._queue, (engine.now + latency, seq, Arrival(msg, key, None)))
        else:  # an engine put in place by a subclass of the system
            engine.schedule(engine.now + latency, Arrival(msg, key, None))

    def send_direct(self, src: Peer, dst_pid: int, msg: Message, key: int | None = None) -> None:
        s = self.system
        kind = TYPE_OF[type(msg)]
        me = src.pid
        if dst_pid == me:
            me = -1  # no hop: counted as a send alone, under no sender (no peer id is negative)
            latency = 0.0
        else:
            latency = self._one_way(me, dst_pid)
        direct = self._direct.get((me, kind))
        if direct is None:
            keys: Keys = () if me < 0 else (((self._where.get(me) or self._place(me))[0], kind),)
            direct = self._direct[(me, kind)] = (keys, [0, 0, 0])
        self._count(kind, direct[0], direct[1], self._size(msg))
        s.engine.schedule(s.engine.now + latency, Arrival(msg, key, None if key else dst_pid))

    def _one_way(self, src: int, dst: int) -> float:
        """`LatencyModel.one_way` between two peers (src != dst), kept per pair: it is fixed by
        their names (reference/sim/latency.py), and a peer id by its name."""
        from_src = self._one_ways.get(src)
        if from_src is None:
            from_src = self._one_ways[src] = {}
        latency = from_src.get(dst)
        if latency is None:
            latency = from_src[dst] = self._latency((src, dst))
        return latency

    def send_deliveries(self, src: Peer, event: Event, targets: Targets, published: float) -> None:
        """Per target, the reference's `send_direct(src, pid, EventDelivery(event, (target,),
        published, src.name))`: one hop counted at `src`, its latency one `one_way`."""
        s = self.system
        engine = s.engine
        if not isinstance(engine, FastEngine):  # an engine put in place by a subclass
            for t in targets:  # as the reference substrate sends them
                s.send_direct(src, s.pid_of[t[0]], EventDelivery(event, (t,), published, src.name))
            return
        base_size = HEADER + self._event_size(event) + ID
        now, push = engine.now, heapq.heappush
        queue, seq = engine.reserve(len(targets))
        me = src.pid
        to = self._to_subscriber.get(me)
        if to is None:
            to = self._to_subscriber[me] = {}
        hops = sent = 0
        for sub, ids in targets:
            hit = to.get(sub)
            if hit is None:
                dst = s.pid_of[sub]
                hit = to[sub] = (dst, None if dst == me else self._latency((me, dst)))
            dst, latency = hit
            if latency is None:  # the subscriber's own peer: `one_way` is 0.0
                push(queue, (now + 0.0, seq, (event, sub, ids, published, dst)))
            else:
                hops += 1
                sent += base_size + (len(ids[0]) if len(ids) == 1 else sum(map(len, ids)))
                push(queue, (now + latency, seq, (event, sub, ids, published, dst)))
            seq += 1
        # held back until `settle` (`_count`): the sends under no sender, the hops at `src`
        tally = self._delivery_sends
        if not tally[0]:
            self._touched.append(("EventDelivery", (), tally))
        tally[0] += len(targets)
        if hops:
            delivered = self._delivered.get(me)
            if delivered is None:
                name = (self._where.get(me) or self._place(me))[0]
                delivered = self._delivered[me] = (((name, "EventDelivery"),), [0, 0, 0])
            keys, tally = delivered
            if not tally[1]:
                self._touched.append(("EventDelivery", keys, tally))
            tally[1] += hops
            tally[2] += sent

    def record(self, event_id: str, sub_id: str, latency_ms: float) -> None:
        s = self.system
        if not self._plain_record:
            s.record_delivery(Delivery(event_id, sub_id), latency_ms)
            return
        # `TwoDTreeSystem.record_delivery`, into simulate's stream if it is one
        deliveries = s.deliveries
        if type(deliveries) is StreamedDeliveries:
            stream = deliveries.stream
            if type(stream) is DeliveryStream:  # `DeliveryStream.add`, inline
                got = stream.by_event.get(event_id)
                if got is None:
                    got = stream.by_event[event_id] = []
                got.append(sub_id)
                stream.count += 1
            else:
                stream.add(event_id, sub_id)
        else:
            deliveries.append(Delivery(event_id, sub_id))
        s.metrics.delivery_latency_ms.append(latency_ms)

    # -- leaf storage ----------------------------------------------------------------------
    def points_changed(self, node: TreeNode) -> None:
        self._leaves.pop(id(node), None)

    def leaf(self, node: TreeNode) -> Sequence[Group]:
        hit = self._leaves.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        by_base: dict[tuple[str, str], list[Entry]] = {}
        for point in node.points.values():
            seg, sub, base = point.segment, point.sub, point.base
            entry = (
                point.seq,
                sub.subscriber,
                seg.lo,
                seg.hi,
                seg.closed,
                seg.index == 0,
                sub.id,
                # the base attribute's predicate holds whenever the segment holds the value:
                # the segments of a point partition that predicate's range (§3.5, D-SEG);
                # the rest narrowest first, the likeliest to fail (a conjunction of tests
                # without side effects: any order gives the same result)
                tuple(
                    sorted(
                        (
                            (p.attribute, p.lo, p.hi)
                            for p in sub.predicates
                            if not (p.attribute == base and p.lo <= seg.lo and seg.hi <= p.hi)
                        ),
                        key=functools.partial(self._share, sub.schema),
                    )
                ),
            )
            by_base.setdefault((sub.schema, base), []).append(entry)
        groups: list[Group] = [
            (schema, base, tuple(entries)) for (schema, base), entries in by_base.items()
        ]
        self._leaves[id(node)] = (node, groups)
        return groups

    def _share(self, schema: str, pred: Pred) -> float:
        """The share of its attribute's domain that a predicate accepts."""
        attr = self.system.attrs.get(qualified(schema, pred[0]))
        if attr is None or attr.max <= attr.min:
            return 1.0
        return float(pred[2] - pred[1]) / float(attr.max - attr.min)

    def values(self, event: Event) -> dict[str, Number]:
        last = self._last_values
        if last[0] is event:
            return last[1]
        hit = self._event_values.get(event.id)
        if hit is None or hit[0] is not event:
            values: dict[str, Number] = {}
            for name, v in event.values:
                values.setdefault(name, v)
            hit = self._event_values[event.id] = (event, values)
        self._last_values = (event, hit[1])  # the same event's next delivery or leaf asks again
        return hit[1]


class FastTwoDTreeSystem(TwoDTreeSystem):
    """The thesis system on the fast substrate: `pubsub-spec simulate`'s default engine."""

    substrate_class = FastSubstrate


class FastStreamingSystem(StreamingSystem):
    """The figures' run (reference/thesis/figures.py: deliveries counted, not kept) on the
    fast substrate: `pubsub-spec figures` runs this unless given `--engine reference`."""

    substrate_class = FastSubstrate
