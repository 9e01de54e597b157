"""Multicast-group routing (Kyra §II.B, after [25]) as a simulated system: the second baseline.

The event space is cut offline into a few groups (§II.B, Fig. 3: Forgy's K-Means); each group
has one multicast tree spanning every server with a subscription on any event of the group; a
publisher maps the event to its single group, with a mapping that is the same at every server,
and the event is multicast to all members, interested or not (§II.B).

Lost details, decided (K-D10, docs/kyra.md): the partition attribute's domain is cut into
`mc_cells` equal-width cells; a cell's vector is the set of servers whose subscriptions overlap
it; the cells are clustered into `mc_groups` groups by Forgy's K-Means (initial centres are
cells drawn by a seeded generator, squared Euclidean distance, ties to the lower group, at most
`mc_kmeans_rounds` rounds). "Offline" (§II.B: groups are computed "before event transmission
begins") reads the trace's subscriptions as the known subscription population; the group trees
are MSTs over the members (K-D7). A subscription whose server is not yet a member of a group it
overlaps grafts the server onto the group's tree as a leaf of its closest member (GroupJoin),
so correctness never depends on the offline step. A publisher outside the group sends the event
to the group's closest member (EventToGroup), which multicasts it.

Exactly once: a group's tree is acyclic (an MST plus leaves), and the multicast never goes back,
so a member receives an event at most once; the receiving member matches only its own
subscriptions; every server with a matching subscription is a member of the event's group
(its subscription overlaps the event's cell).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pubsub_spec.reference.common.model import Event, Schema, Subscription
from pubsub_spec.reference.common.ops import Subscribe, Trace
from pubsub_spec.reference.kyra.base import BrokerSystem
from pubsub_spec.reference.kyra.filters import event_key, extent
from pubsub_spec.reference.kyra.messages import EventMulticast, EventToGroup, GroupJoin, Message
from pubsub_spec.reference.kyra.trees import adjacency, minimum_spanning_tree
from pubsub_spec.reference.kyra.zones import Zone, equal_width, zone_index
from pubsub_spec.reference.sim.observe import Observation, state


def forgy_kmeans(
    vectors: Sequence[frozenset[str]], k: int, rounds: int, rng: random.Random
) -> list[int]:
    """Forgy's K-Means (§II.B, Fig. 3) over 0/1 vectors given as sets of servers: the group of
    each vector. Initial centres are k distinct vectors drawn by `rng` (Forgy)."""
    k = min(k, len(vectors))
    centres: list[dict[str, float]] = [
        {s: 1.0 for s in vectors[i]} for i in sorted(rng.sample(range(len(vectors)), k))
    ]
    assign = [-1] * len(vectors)
    for _ in range(rounds):
        new = [_nearest(v, centres) for v in vectors]
        if new == assign:
            break
        assign = new
        for g in range(k):
            members = [vectors[i] for i, a in enumerate(assign) if a == g]
            if not members:
                continue  # an empty group keeps its centre
            c: dict[str, float] = {}
            for v in members:
                for s in v:
                    c[s] = c.get(s, 0.0) + 1.0
            centres[g] = {s: x / len(members) for s, x in c.items()}
    return assign


def _nearest(v: frozenset[str], centres: list[dict[str, float]]) -> int:
    best, best_d = 0, float("inf")
    for g, c in enumerate(centres):
        # |v - c|^2 = |c|^2 - 2 v.c + |v|
        d = sum(x * x for x in c.values()) - 2 * sum(c.get(s, 0.0) for s in v) + len(v)
        if d < best_d - 1e-12:
            best, best_d = g, d
    return best


class McGroupsSystem(BrokerSystem):
    SECTION = "mcgroups"

    def __init__(self, trace: Trace) -> None:
        super().__init__(trace)
        self.cells: dict[str, tuple[Zone, ...]] = {}
        self.group_of_cell: dict[str, list[int]] = {}
        self.members: dict[tuple[str, int], set[str]] = {}
        self.adj: dict[tuple[str, int], dict[str, list[str]]] = {}
        self.local: dict[str, dict[str, Subscription]] = {s: {} for s in self.servers}
        offline = [op.sub for op in trace.ops if isinstance(op, Subscribe)]
        for name, schema in self.schemas.items():
            self._build(schema, [s for s in offline if s.schema == name])

    def _cells_of(self, sub: Subscription) -> list[int]:
        attr = self.config.partition_attribute(self.schemas[sub.schema])
        lo, hi = extent(sub, attr, self.matching)
        return [i for i, c in enumerate(self.cells[sub.schema]) if c.overlaps(lo, hi)]

    def _build(self, schema: Schema, subs: list[Subscription]) -> None:
        """The offline step of §II.B (K-D10): cells, K-Means groups, members, MST trees."""
        cfg = self.config
        cells = equal_width(cfg.partition_attribute(schema), cfg.mc_cells)
        self.cells[schema.name] = cells
        vec: list[set[str]] = [set() for _ in cells]
        for s in subs:
            for i in self._cells_of(s):
                vec[i].add(s.subscriber)
        rng = random.Random(f"{self.seed}:kmeans:{schema.name}")
        groups = forgy_kmeans([frozenset(v) for v in vec], cfg.mc_groups, cfg.mc_kmeans_rounds, rng)
        self.group_of_cell[schema.name] = groups
        for g in sorted(set(groups)):
            members: set[str] = set()
            for i, gi in enumerate(groups):
                if gi == g:
                    members |= vec[i]
            key = (schema.name, g)
            self.members[key] = members
            self.adj[key] = adjacency(
                sorted(members), minimum_spanning_tree(sorted(members), self.distance)
            )

    def groups_of(self, sub: Subscription) -> list[int]:
        groups = self.group_of_cell[sub.schema]
        return sorted({groups[i] for i in self._cells_of(sub)})

    def group_of(self, event: Event) -> int:
        """§II.B: the event's single group, the same mapping at every server."""
        attr = self.config.partition_attribute(self.schemas[event.schema])
        i = zone_index(self.cells[event.schema], event_key(event, attr))
        return self.group_of_cell[event.schema][i]

    def closest_member(self, server: str, key: tuple[str, int]) -> str | None:
        members = self.members[key]
        if not members:
            return None
        return min(members, key=lambda m: (self.distance(server, m), m))

    def layout_observations(self) -> list[Observation]:
        """§II.B: the event-to-group mapping, the same at every server (`group-map`, per
        server and schema), then each group's members and tree neighbours (`group-join`)."""
        out: list[Observation] = []
        for name in sorted(self.schemas):
            attr = self.config.partition_attribute(self.schemas[name]).name
            cells = [c.wire() for c in self.cells[name]]
            groups = list(self.group_of_cell[name])
            for s in self.servers:
                out.append(
                    state("group-map", s, schema=name, attr=attr, cells=cells, groups=groups)
                )
        for (schema, g), members in sorted(self.members.items()):
            adj = self.adj[(schema, g)]
            for m in sorted(members):
                out.append(
                    state("group-join", m, schema=schema, group=g, neighbours=list(adj.get(m, [])))
                )
        return out

    def table_records(self) -> dict[str, int]:
        """Group memberships per server (the mapping table is the same everywhere, §II.B)."""
        out = {s: 0 for s in self.servers}
        for members in self.members.values():
            for m in members:
                out[m] += 1
        return out

    def subscribe(self, sub: Subscription, seq: int) -> None:
        self._start_sub(sub, seq)
        self.local[sub.subscriber][sub.id] = sub
        if self.observer is not None:
            self.observer(state("sub-store", sub.subscriber, sub=sub.id))
        for g in self.groups_of(sub):
            key = (sub.schema, g)
            if sub.subscriber in self.members[key]:
                continue
            m = self.closest_member(sub.subscriber, key)
            if m is None:  # the first member of an empty group: no tree to graft onto
                self.members[key].add(sub.subscriber)
                self.adj[key] = {sub.subscriber: []}
                if self.observer is not None:
                    self.observer(
                        state(
                            "group-join", sub.subscriber, schema=sub.schema, group=g, neighbours=[]
                        )
                    )
                continue
            self._expect(sub.id)
            self.send(sub.subscriber, m, GroupJoin(sub.schema, g, sub.subscriber, sub.id))

    def unsubscribe(self, sub_id: str) -> None:
        # the groups are pre-constructed (§II.B): a member stays a member
        st = self.subs[sub_id]
        st.active = False
        del self.local[st.sub.subscriber][sub_id]
        if self.observer is not None:
            self.observer(state("sub-remove", st.sub.subscriber, sub=sub_id))

    def publish(self, event: Event, seq: int) -> None:
        self._start_event(event, seq)
        key = (event.schema, self.group_of(event))
        if event.publisher in self.members[key]:
            self._multicast(event.publisher, event, key[1], None)
            return
        m = self.closest_member(event.publisher, key)
        if m is not None:  # no member: nobody subscribes to the group's events
            self.send(event.publisher, m, EventToGroup(event, key[1]))

    def handle(self, src: str, dst: str, msg: Message) -> None:
        if isinstance(msg, GroupJoin):
            key = (msg.schema, msg.group)
            if msg.server not in self.members[key]:  # K-D10: graft as a leaf of dst
                self.members[key].add(msg.server)
                adj = self.adj[key]
                adj.setdefault(msg.server, []).append(dst)
                adj[dst].append(msg.server)
                adj[dst].sort()
                if self.observer is not None:  # K-D10: a leaf of dst
                    self.observer(
                        state(
                            "group-join",
                            msg.server,
                            schema=msg.schema,
                            group=msg.group,
                            neighbours=[dst],
                        )
                    )
            self._arrived(msg.sub_id)
        elif isinstance(msg, EventToGroup):
            self._multicast(dst, msg.event, msg.group, None)
        elif isinstance(msg, EventMulticast):
            self._multicast(dst, msg.event, msg.group, src)
        else:
            raise TypeError(f"unexpected {type(msg).__name__}")

    def _multicast(self, y: str, event: Event, group: int, came: str | None) -> None:
        """§II.B: every member receives the event, matches its own subscriptions."""
        self.metrics.events_received[y] += 1
        ids = self.local_matches(y, list(self.local[y].values()), event)
        self.deliver(y, event, ids)
        if not ids:
            self.metrics.uninterested[y] += 1
        for n in self.adj[(event.schema, group)].get(y, []):
            if n != came:
                self.send(y, n, EventMulticast(event, group))

    def describe(self) -> str:
        sizes = [len(m) for m in self.members.values()]
        return (
            f"system mcgroups: {len(self.servers)} servers, {len(sizes)} groups "
            f"(members {sorted(sizes, reverse=True)[:6]})"
        )
