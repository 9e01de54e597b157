"""Kyra (Cao & Singh, INFOCOM 2004, §II.C and §III) as a simulated system.

Two-level topology (§III, Fig. 4): servers are clustered into cliques by network proximity
(§III.A, Fig. 5, `hac.py`); each clique partitions the content space into one zone per member
(local partition) and the whole system partitions it into T tree zones (global partition,
§III); a server joins every routing tree whose zone overlaps its own, and each tree is a
minimum spanning tree over its members (§III.A, `trees.py`) running filter-based routing
(§II.A, `filters.py`).

- subscribe: the original server moves s to every clique member whose zone overlaps s
  (§III "subscription movement"); that proxy stores s ∩ Z_z and broadcasts the entry
  s ∩ Z_z ∩ Y_t on each tree t it joins where it is not empty (decision K-D4).
- publish: the publisher sends the event to the clique member whose zone covers it, which
  routes it on the tree whose zone covers it (§III); every server reached whose zone covers the
  event is the one proxy of its clique for it, matches its proxy subscriptions and notifies
  their original servers (K-D5).

Exactly once (docs/kyra.md, "Why exactly once"): the zones of a clique partition the domain, so
one proxy z* per clique covers key(e); z* joins the covering tree t* (Z_z* ∩ Y_t* ∋ key(e)); a
tree is acyclic and an event is never sent back, so z* receives e at most once; and the entries
over-approximate (`filters.py`), so z* receives it when one of its subscriptions matches.
Duplicates are thus impossible by construction: a proxy delivers only when its zone covers the
event's key (a server reached as a relay delivers nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pubsub_spec.reference.common.model import Attribute, Event, MatchMode, Schema, Subscription
from pubsub_spec.reference.common.ops import Subscribe, Trace
from pubsub_spec.reference.kyra.base import BrokerSystem, group_by_subscriber
from pubsub_spec.reference.kyra.filters import (
    Filter,
    RoutingTable,
    event_point,
    extents,
    restrict,
)
from pubsub_spec.reference.kyra.hac import cluster_server_cliques
from pubsub_spec.reference.kyra.messages import (
    EventRoute,
    EventToZone,
    Message,
    Notify,
    SubMove,
    SubPropagate,
)
from pubsub_spec.reference.kyra.trees import adjacency, minimum_spanning_tree
from pubsub_spec.reference.kyra.zones import Box, Partitioner, Point
from pubsub_spec.reference.sim.observe import Observation, state


@dataclass(frozen=True)
class RoutingTree:
    """Routing tree t of a schema: its zone Y_t, members and MST edges (§III.A)."""

    name: str
    zone: Box
    members: tuple[str, ...]
    adj: dict[str, list[str]]


@dataclass
class SchemaLayout:
    """A schema's partitions (one per schema, decision K-D14)."""

    schema: Schema
    attrs: tuple[Attribute, ...]  # the cut attributes (K-D1, K-D18)
    zones: dict[str, Box]  # server -> Z_z (local partition of its clique)
    trees: tuple[RoutingTree, ...]
    tree_zones: tuple[Box, ...]


def build_layout(
    schema: Schema,
    cliques: list[tuple[str, ...]],
    n_trees: int,
    attrs: tuple[Attribute, ...],
    weight: Callable[[str, str], float],
    subs: tuple[Subscription, ...] = (),
    mode: MatchMode = "strict",
    balanced: bool = False,
) -> SchemaLayout:
    """Local and global partitions of one schema (§III; K-D1..3) and its MST trees: cut along
    `attrs` (K-D18), by width or, when `balanced`, by the load of `subs` (K-D17: the local
    partitions and the tree zones by the same load, so that a clique of T members has the tree
    zones as its zones and each of them joins one tree, as with equal-width zones)."""
    load = tuple(extents(s, attrs, mode) for s in subs if s.schema == schema.name)
    cut = Partitioner(attrs, load, balanced)
    zones: dict[str, Box] = {}
    for clique in cliques:
        # §III: "each server is assigned a non-overlapping zone"; members in name order,
        # the empty zones last (K-D16)
        for server, z in zip(sorted(clique), cut.partition(len(clique)), strict=True):
            zones[server] = z
    # §III: "each routing tree is assigned a non-overlapping content zone"
    tree_zones = cut.partition(n_trees)
    trees: list[RoutingTree] = []
    for i, y in enumerate(tree_zones):
        # §III: servers join every tree whose zone overlaps their own
        members = tuple(sorted(s for s, z in zones.items() if _zones_overlap(z, y)))
        edges = minimum_spanning_tree(members, weight)  # §III.A: MST
        trees.append(RoutingTree(f"{schema.name}/t{i}", y, members, adjacency(members, edges)))
    return SchemaLayout(schema, attrs, zones, tuple(trees), tree_zones)


def _zones_overlap(a: Box, b: Box) -> bool:
    return Filter(_NO_SUB, "", tuple((z.lo, z.hi) for z in a.dims), (a, b)).nonempty()


_NO_SUB = Subscription("", "", "", ())


class KyraSystem(BrokerSystem):
    """Kyra behind the common System interface (reference/sim/system.py)."""

    SECTION = "kyra"

    def __init__(
        self,
        trace: Trace,
        cliques: list[tuple[str, ...]] | None = None,
        weight: Callable[[str, str], float] | None = None,
    ) -> None:
        """`cliques` and `weight` (the MST edge weight) replace HAC and the latency model's
        distances; only the worked examples of Fig. 4 (tests/test_kyra_examples.py) use them."""
        super().__init__(trace)
        cfg = self.config
        # §III.A, Fig. 5 (with erratum K-E2), distances = one-way latency
        self.cliques = cliques or cluster_server_cliques(
            self.servers, self.distance, cfg.max_clique_ms, cfg.max_clique_size
        )
        self.clique_of: dict[str, tuple[str, ...]] = {s: c for c in self.cliques for s in c}
        # §III.A: T ~ max_i k_i
        self.n_trees = cfg.trees or max(len(c) for c in self.cliques)
        # K-D17: the balanced cut reads the trace's subscriptions as the known population
        # (offline, as K-D10's groups); it changes costs only, never deliveries
        offline = tuple(op.sub for op in trace.ops if isinstance(op, Subscribe))
        self.layouts: dict[str, SchemaLayout] = {
            name: build_layout(
                s,
                self.cliques,
                self.n_trees,
                cfg.cut_attributes(s),
                weight or self.distance,
                offline,
                self.matching,
                cfg.zones == "balanced",
            )
            for name, s in self.schemas.items()
        }
        self.trees: dict[str, RoutingTree] = {
            t.name: t for lay in self.layouts.values() for t in lay.trees
        }
        self.tables: dict[tuple[str, str], RoutingTable] = {}
        # proxy subscriptions: server -> sub id -> the proxy's fragment s ∩ Z_z (K-D4)
        self.proxy: dict[str, dict[str, Filter]] = {s: {} for s in self.servers}
        self._proxy_subs: dict[str, Subscription] = {}

    # -- partitions ------------------------------------------------------------------------
    def attr_of(self, schema: str) -> str:
        return self.config.partition_attribute(self.schemas[schema]).name

    def proxies_for(self, sub: Subscription) -> list[str]:
        """§III: the members of the original server's clique whose zone overlaps s."""
        lay = self.layouts[sub.schema]
        ext = extents(sub, lay.attrs, self.matching)
        return [z for z in self.clique_of[sub.subscriber] if lay.zones[z].overlaps(ext)]

    def key_of(self, event: Event) -> Point:
        """key(e) on the schema's cut attributes (K-D6, K-D18)."""
        return event_point(event, self.layouts[event.schema].attrs)

    def covering_tree(self, event: Event) -> RoutingTree:
        """§III: "routed on the tree with covering zone" (the tree zones partition, K-D1)."""
        key = self.key_of(event)
        (t,) = [t for t in self.layouts[event.schema].trees if t.zone.contains(key)]
        return t

    def covering_server(self, server: str, event: Event) -> str:
        """§III: the member of `server`'s clique whose zone covers the event."""
        lay = self.layouts[event.schema]
        key = self.key_of(event)
        (z,) = [m for m in self.clique_of[server] if lay.zones[m].contains(key)]
        return z

    def table(self, server: str, tree: str) -> RoutingTable:
        t = self.tables.get((server, tree))
        if t is None:
            t = self.tables[(server, tree)] = RoutingTable()
        return t

    def layout_observations(self) -> list[Observation]:
        """§III: each server's zone and clique per schema (`zone`), then each tree's members
        with their zone and MST neighbours (`tree-join`)."""
        out: list[Observation] = []
        for name, lay in sorted(self.layouts.items()):
            # one cut attribute: its name (conformance/OBSERVATIONS.md); several (K-D18): the list
            names = [a.name for a in lay.attrs]
            attr: str | list[str] = names[0] if len(names) == 1 else names
            for server in self.servers:
                out.append(
                    state(
                        "zone",
                        server,
                        schema=name,
                        attr=attr,
                        zone=lay.zones[server].wire(),
                        clique=sorted(self.clique_of[server]),
                    )
                )
            for t in lay.trees:
                for m in t.members:
                    out.append(
                        state(
                            "tree-join",
                            m,
                            schema=name,
                            tree=t.name,
                            zone=t.zone.wire(),
                            neighbours=list(t.adj[m]),
                        )
                    )
        return out

    def table_records(self) -> dict[str, int]:
        out = {s: 0 for s in self.servers}
        for (server, _), t in self.tables.items():
            out[server] += t.records()
        return out

    # -- ops -------------------------------------------------------------------------------
    def subscribe(self, sub: Subscription, seq: int) -> None:
        self._start_sub(sub, seq)
        for z in self.proxies_for(sub):
            self._expect(sub.id)
            self.send(sub.subscriber, z, SubMove(sub))  # §III: subscription movement

    def unsubscribe(self, sub_id: str) -> None:
        st = self.subs[sub_id]
        st.active = False
        for z in self.proxies_for(st.sub):
            self.send(st.sub.subscriber, z, SubMove(st.sub, remove=True))  # K-D11

    def publish(self, event: Event, seq: int) -> None:
        self._start_event(event, seq)
        z = self.covering_server(event.publisher, event)
        self.send(event.publisher, z, EventToZone(event))  # §III: to the covering member

    # -- messages --------------------------------------------------------------------------
    def handle(self, src: str, dst: str, msg: Message) -> None:
        if isinstance(msg, SubMove):
            self._on_sub_move(dst, msg)
        elif isinstance(msg, SubPropagate):
            self._on_propagate(src, dst, msg)
        elif isinstance(msg, EventToZone):
            self._route(dst, self.covering_tree(msg.event), msg.event, None)
        elif isinstance(msg, EventRoute):
            self._route(dst, self.trees[msg.tree], msg.event, src)
        elif isinstance(msg, Notify):
            self.deliver(dst, msg.event, msg.sub_ids)  # K-D5: the last leg
        else:
            raise TypeError(f"unexpected {type(msg).__name__}")

    def _on_sub_move(self, z: str, msg: SubMove) -> None:
        sub = msg.sub
        lay = self.layouts[sub.schema]
        # K-D4: the proxy stores s ∩ Z_z
        frag = Filter(sub, z, extents(sub, lay.attrs, self.matching), (lay.zones[z],))
        if msg.remove:
            self.proxy[z].pop(sub.id, None)
        else:
            self._arrived(sub.id)
            self.proxy[z][sub.id] = frag
            self._proxy_subs[sub.id] = sub
        if self.observer is not None:
            self.observer(
                state(
                    "proxy-remove" if msg.remove else "proxy-store",
                    z,
                    sub=sub.id,
                    origin=sub.subscriber,
                )
            )
        for t in lay.trees:
            entry = restrict(frag, t.zone)  # K-D4: s ∩ Z_z ∩ Y_t
            if z not in t.adj or not entry.nonempty():
                continue  # empty entries are not propagated (Fig. 4, E/t1 "D –")
            for n in t.adj[z]:
                if not msg.remove:
                    self._expect(sub.id)
                self.send(z, n, SubPropagate(t.name, entry, msg.remove))

    def _on_propagate(self, src: str, dst: str, msg: SubPropagate) -> None:
        """§II.A: record the entry under the direction it came from, pass it on."""
        tab = self.table(dst, msg.tree)
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
                    tree=msg.tree,
                    direction=src,
                    proxy=msg.filter.origin,
                )
            )
        for n in self.trees[msg.tree].adj[dst]:
            if n != src:
                if not msg.remove:
                    self._expect(msg.filter.sub.id)
                self.send(dst, n, msg)

    def _route(self, y: str, tree: RoutingTree, event: Event, came: str | None) -> None:
        """§III + §II.A: a server on the covering tree delivers as proxy if its zone covers
        the event, then forwards toward neighbours with admitting entries (never back)."""
        self.metrics.events_received[y] += 1
        key = self.key_of(event)
        hit = False
        if self.layouts[event.schema].zones[y].contains(key):
            frags = [f.sub for f in self.proxy[y].values() if f.sub.schema == event.schema]
            ids = self.local_matches(y, frags, event)
            hit = bool(ids)
            for origin, sids in group_by_subscriber(self._proxy_subs, ids).items():
                if origin == y:
                    self.deliver(y, event, sids)
                else:
                    self.send(y, origin, Notify(event, tuple(sids)))  # K-D5
        if not hit:
            self.metrics.uninterested[y] += 1
        nexts, ops = self.table(y, tree.name).forward_to(
            event, key, self.matching, tree.adj.get(y, ()), came
        )
        self.metrics.match_ops[y] += ops
        for n in nexts:
            self.send(y, n, EventRoute(tree.name, event))

    def describe(self) -> str:
        sizes = sorted((len(c) for c in self.cliques), reverse=True)
        return (
            f"system kyra: {len(self.servers)} servers, {len(self.cliques)} cliques "
            f"(largest {sizes[:5]}), T = {self.n_trees} trees per schema"
        )
