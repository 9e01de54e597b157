"""What Kyra, Siena and the multicast groups share as simulated systems: a static set of
servers (brokers) placed by the latency model, unicast messages on one event engine, the
subscriber-side bookkeeping of D-OPS/K-D12, and the per-server figures of the evaluation
(routing-table records, matching operations, uninterested servers reached; docs/kyra.md
"Figures").

Mapping of a trace onto the service network (docs/kyra.md "Mapping a trace onto a service
network"): the trace's initial nodes n0..n{k-1} are the servers; a subscription's `subscriber`
is its original server (the client's proxy, §I) and an event's `publisher` its publishing server.
The papers' networks are static: join/leave/fail are not supported (feature `churn` is not
declared, decision K-D13 phase 1, so churn traces are skipped).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, MatchMode, Schema, Subscription
from pubsub_spec.reference.common.ops import Trace, initial_node_names
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.kyra.config import KyraConfig, config_of
from pubsub_spec.reference.kyra.messages import Message, observation_of, size_of, type_of
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.latency import LatencyModel
from pubsub_spec.reference.sim.metrics import Metrics
from pubsub_spec.reference.sim.observe import Observation
from pubsub_spec.reference.sim.system import System


class ClusteredLatency(LatencyModel):
    """Servers in `clusters` Gaussian clusters (decision K-D15): cluster centres uniform in the
    unit square, a server's cluster uniform, its offset Gaussian with standard deviation
    `spread`, clipped to the square; each drawn from its own seeded generator, so a server's
    place depends only on (seed, name). Latency as the project's model (base + distance term,
    scaled for uniform placement): a clustered network has shorter intra-cluster latencies."""

    def __init__(self, seed: int, mean_rtt_ms: float, clusters: int, spread: float) -> None:
        super().__init__(seed, mean_rtt_ms)
        self.clusters = clusters
        self.spread = spread

    def place(self, name: str) -> None:
        k = random.Random(f"{self.seed}:cluster-of:{name}").randrange(self.clusters)
        c = random.Random(f"{self.seed}:cluster-centre:{k}")
        cx, cy = c.random(), c.random()
        rng = random.Random(f"{self.seed}:cluster-offset:{name}")
        x = min(1.0, max(0.0, rng.gauss(cx, self.spread)))
        y = min(1.0, max(0.0, rng.gauss(cy, self.spread)))
        self._coords[name] = (x, y)


@dataclass
class BrokerMetrics(Metrics):
    """The common counters plus the figures of the reconstructed evaluation (docs/kyra.md)."""

    match_ops: Counter[str] = field(default_factory=Counter)
    events_received: Counter[str] = field(default_factory=Counter)
    uninterested: Counter[str] = field(default_factory=Counter)
    events: int = 0


@dataclass(frozen=True)
class Arrival:
    src: str
    dst: str
    msg: Message


@dataclass
class SubState:
    sub: Subscription
    seq: int
    install: Installation  # the SubMove / SubPropagate / GroupJoin messages it waits for
    active: bool = True


class BrokerSystem(System[Arrival]):
    """Servers, messages and deliveries; subclasses implement the routing."""

    SECTION = ""

    def __init__(self, trace: Trace) -> None:
        super().__init__(trace.seed)
        self.config: KyraConfig = config_of(trace, self.SECTION)
        self.matching: MatchMode = trace.matching
        self.schemas: dict[str, Schema] = {s.name: s for s in trace.schemas}
        self.servers: list[str] = initial_node_names(trace.initial_nodes)
        self.latency: LatencyModel = (
            ClusteredLatency(
                trace.seed,
                self.config.mean_rtt_ms,
                self.config.placement_clusters,
                self.config.placement_spread,
            )
            if self.config.placement_clusters
            else LatencyModel(trace.seed, self.config.mean_rtt_ms)
        )
        for s in self.servers:
            self.latency.place(s)
        self.metrics: BrokerMetrics = BrokerMetrics()
        self.subs: dict[str, SubState] = {}
        self.event_seq: dict[str, int] = {}
        self.published_at: dict[str, float] = {}
        self._layout_observed = False

    # -- network ---------------------------------------------------------------------------
    def distance(self, a: str, b: str) -> float:
        """Kyra §III.A: distance = network latency (one-way, the latency model's)."""
        return self.latency.one_way(a, b)

    def send(self, src: str, dst: str, msg: Message) -> None:
        """One unicast message; a message to oneself costs nothing and takes no time."""
        kind = type_of(msg)
        delay = 0.0
        if src != dst:
            self.metrics.sends[kind] += 1
            self.metrics.hop(src, kind, size_of(msg))
            delay = self.latency.one_way(src, dst)
            if self.observer is not None:  # a message to oneself is a local step, not reported
                self.observer(observation_of(kind, src, dst, msg))
        self.engine.schedule(self.engine.now + delay, Arrival(src, dst, msg))

    def _dispatch(self, item: Arrival) -> str:
        self.handle(item.src, item.dst, item.msg)
        return f"{type_of(item.msg)}|{item.src}>{item.dst}"

    def handle(self, src: str, dst: str, msg: Message) -> None:
        raise NotImplementedError

    # -- subscriptions ---------------------------------------------------------------------
    def installed(self, sub_id: str) -> bool:
        """K-D12 (D-OPS): a subscribe completes when every fragment is stored everywhere (its
        latency is recorded when the driver first finds it installed, at that message's
        arrival)."""
        st = self.subs.get(sub_id)
        latencies = self.metrics.install_latency_ms
        return st is not None and st.install.settle(self.engine.now, latencies)

    # -- observations (conformance/OBSERVATIONS.md, "kyra, siena, mcgroups") ---------------
    def _observe_layout(self) -> None:
        """The static layout (cliques, zones, trees, groups) as `state` observations, once,
        at the first op after an observer is set (the layout is built before one can be)."""
        if self.observer is not None and not self._layout_observed:
            self._layout_observed = True
            for obs in self.layout_observations():
                self.observer(obs)

    def layout_observations(self) -> list[Observation]:
        """The system's layout as state observations (subclasses)."""
        return []

    def _start_sub(self, sub: Subscription, seq: int) -> None:
        if self.observer is not None:
            self._observe_layout()
        self.subs[sub.id] = SubState(sub, seq, Installation(self.engine.now))

    def _expect(self, sub_id: str) -> None:
        """One more message the subscription's installation waits for (K-D12)."""
        self.subs[sub_id].install.expect()

    def _arrived(self, sub_id: str) -> None:
        self.subs[sub_id].install.arrived()

    def active_for(self, sub: Subscription, event: Event) -> bool:
        """K-D12: a subscription is matched only for events published after it (its seq is
        lower) and while it is active at its original server."""
        st = self.subs.get(sub.id)
        return st is not None and st.active and st.seq < self.event_seq[event.id]

    def local_matches(self, server: str, subs: Sequence[Subscription], event: Event) -> list[str]:
        """The ids of `subs` that match the event (counted as matching operations)."""
        out: list[str] = []
        for s in subs:
            self.metrics.match_ops[server] += 1
            if self.active_for(s, event) and matches(s, event, self.matching):
                out.append(s.id)
        return out

    def deliver(self, server: str, event: Event, sub_ids: Sequence[str]) -> None:
        """At the original server: one Delivery per subscription id (the trace contract)."""
        for sid in sub_ids:
            st = self.subs[sid]
            assert st.sub.subscriber == server
            if st.active:
                self.deliveries.append(Delivery(event.id, sid))
                self.metrics.delivery_latency_ms.append(
                    self.engine.now - self.published_at[event.id]
                )

    def _start_event(self, event: Event, seq: int) -> None:
        if self.observer is not None:
            self._observe_layout()
        self.event_seq[event.id] = seq
        self.published_at[event.id] = self.engine.now
        self.metrics.events += 1

    # -- churn: not supported (K-D13) ------------------------------------------------------
    def join(self, name: str) -> None:
        raise ValueError(f"{type(self).__name__} has a static server set (K-D13)")

    def leave(self, name: str) -> None:
        raise ValueError(f"{type(self).__name__} has a static server set (K-D13)")

    def fail(self, names: Sequence[str]) -> None:
        raise ValueError(f"{type(self).__name__} has a static server set (K-D13)")

    def peer_count(self) -> int:
        return len(self.servers)

    # -- figures ---------------------------------------------------------------------------
    def table_records(self) -> dict[str, int]:
        """Routing-table records per server (subclasses)."""
        return {}

    def figures(self) -> list[str]:
        m = self.metrics
        n = max(1, len(self.servers))
        ev = max(1, m.events)
        recs = self.table_records()
        recv = [m.events_received[s] for s in self.servers]
        mean_recv = sum(recv) / n
        lines = [
            f"table records per server: {sum(recs.values()) / n:.1f} "
            f"(max {max(recs.values(), default=0)})",
            f"matching operations per event: {sum(m.match_ops.values()) / ev:.1f}",
            f"messages per event: "
            f"{sum(v for k, v in m.messages.items() if k.startswith('Event')) / ev:.2f}",
            f"uninterested servers reached per event: {sum(m.uninterested.values()) / ev:.2f}",
            f"load balance (events received, max/mean): "
            f"{(max(recv, default=0) / mean_recv) if mean_recv else 0.0:.2f}",
        ]
        return lines


def group_by_subscriber(subs: dict[str, Subscription], ids: Sequence[str]) -> dict[str, list[str]]:
    out: defaultdict[str, list[str]] = defaultdict(list)
    for sid in ids:
        out[subs[sid].subscriber].append(sid)
    return dict(sorted(out.items()))
