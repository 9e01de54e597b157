"""Siena-style filter-based routing (Kyra §II.A, after Carzaniga et al. [7]) as a simulated
system: the baseline of Kyra's comparison.

Servers form one acyclic peer-to-peer tree (§II.A, footnotes 1-2); as its shape in the lost
evaluation is unknown, it is the minimum spanning tree over all servers by one-way latency
(decision K-D9). Every subscription is broadcast over the whole tree and recorded per
direction; an event is matched at each server and forwarded only toward the neighbours with a
matching subscription, never back (§II.A). No covering or merging ("an open question", §II.A)
and no advertisements (footnote 3, deferred to the lost §IV).

Exactly once: the tree is acyclic and an event is never sent back, so each server receives an
event at most once; the original server matches its own subscriptions when it is reached, and
it is reached because every hop toward it holds the subscription's filter.
"""

from __future__ import annotations

from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.kyra.base import BrokerSystem
from pubsub_spec.reference.kyra.filters import Filter, RoutingTable, event_key, extent
from pubsub_spec.reference.kyra.messages import EventRoute, Message, SubPropagate
from pubsub_spec.reference.kyra.trees import adjacency, minimum_spanning_tree
from pubsub_spec.reference.sim.observe import Observation, state


class SienaSystem(BrokerSystem):
    SECTION = "siena"

    def __init__(self, trace: Trace, edges: list[tuple[str, str]] | None = None) -> None:
        """`edges` replaces the latency MST (the worked example of Fig. 2 only)."""
        super().__init__(trace)
        if edges is None:
            edges = minimum_spanning_tree(self.servers, self.distance)  # K-D9
        self.adj = adjacency(self.servers, edges)
        self.tables: dict[str, RoutingTable] = {s: RoutingTable() for s in self.servers}
        self.local: dict[str, dict[str, Subscription]] = {s: {} for s in self.servers}

    def _filter(self, sub: Subscription) -> Filter:
        attr = self.config.partition_attribute(self.schemas[sub.schema])
        return Filter(sub, sub.subscriber, (extent(sub, attr, self.matching),))

    def table_records(self) -> dict[str, int]:
        return {s: t.records() for s, t in self.tables.items()}

    def layout_observations(self) -> list[Observation]:
        """§II.A: each server's neighbours on the one acyclic server tree (`neighbours`)."""
        return [state("neighbours", s, neighbours=list(self.adj[s])) for s in self.servers]

    def subscribe(self, sub: Subscription, seq: int) -> None:
        self._start_sub(sub, seq)
        self.local[sub.subscriber][sub.id] = sub
        if self.observer is not None:
            self.observer(state("sub-store", sub.subscriber, sub=sub.id))
        f = self._filter(sub)
        for n in self.adj[sub.subscriber]:  # §II.A: broadcast over the tree
            self._expect(sub.id)
            self.send(sub.subscriber, n, SubPropagate("", f))

    def unsubscribe(self, sub_id: str) -> None:
        st = self.subs[sub_id]
        st.active = False
        del self.local[st.sub.subscriber][sub_id]
        if self.observer is not None:
            self.observer(state("sub-remove", st.sub.subscriber, sub=sub_id))
        f = self._filter(st.sub)
        for n in self.adj[st.sub.subscriber]:
            self.send(st.sub.subscriber, n, SubPropagate("", f, remove=True))

    def publish(self, event: Event, seq: int) -> None:
        self._start_event(event, seq)
        self._route(event.publisher, event, None)

    def handle(self, src: str, dst: str, msg: Message) -> None:
        if isinstance(msg, SubPropagate):
            # §II.A: "each server records the subscriptions received from each direction"
            tab = self.tables[dst]
            if msg.remove:
                tab.remove(src, msg.filter.ident)
            else:
                self._arrived(msg.filter.sub.id)
                tab.add(src, msg.filter)
            if self.observer is not None:
                self.observer(
                    state(
                        "filter-remove" if msg.remove else "filter-add",
                        dst,
                        sub=msg.filter.sub.id,
                        direction=src,
                    )
                )
            for n in self.adj[dst]:
                if n != src:
                    if not msg.remove:
                        self._expect(msg.filter.sub.id)
                    self.send(dst, n, msg)
        elif isinstance(msg, EventRoute):
            self._route(dst, msg.event, src)
        else:
            raise TypeError(f"unexpected {type(msg).__name__}")

    def _route(self, y: str, event: Event, came: str | None) -> None:
        """§II.A: match local subscriptions, forward toward matching directions only."""
        self.metrics.events_received[y] += 1
        ids = self.local_matches(y, list(self.local[y].values()), event)
        self.deliver(y, event, ids)
        if not ids:
            self.metrics.uninterested[y] += 1
        attr = self.config.partition_attribute(self.schemas[event.schema])
        nexts, ops = self.tables[y].forward_to(
            event, (event_key(event, attr),), self.matching, self.adj[y], came
        )
        self.metrics.match_ops[y] += ops
        for n in nexts:
            self.send(y, n, EventRoute("", event))

    def describe(self) -> str:
        return f"system siena: {len(self.servers)} servers on one latency MST (K-D9)"
