"""Filter-based routing tables (Siena, Kyra §II.A), written once and shared by Siena and by
each Kyra routing tree (Kyra §III: "each routing tree then becomes an independent filter-based
routing network").

A server records, per neighbour, the filters of the subscriptions that came from that direction
(§II.A); an event is forwarded toward exactly the neighbours with an admitting filter, never back
toward where it came from (§II.A). A filter is a subscription restricted to ranges of the
*partition attribute* (decision K-D4: a Kyra proxy's entry for s on tree t is
extent(s) ∩ Z_z ∩ Y_t); a Siena filter has no restriction.

The key of an event is its value of the partition attribute, or the domain minimum when the
event lacks it (decision K-D6); the extent of a subscription is its range on that attribute,
the whole domain without a predicate, and [min, hi] in lenient mode (K-D6), so that
`matches(s, e, mode)` implies `key(e) ∈ extent(s)` (filter restriction soundness, docs/kyra.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Attribute, Event, MatchMode, Number, Subscription
from pubsub_spec.reference.kyra.zones import Box, Point, Range, Zone


def event_key(event: Event, attr: Attribute) -> Number:
    """key(e): the partition attribute's value, the domain min if absent (K-D6)."""
    v = event.value(attr.name)
    return attr.min if v is None else v


def extent(sub: Subscription, attr: Attribute, mode: MatchMode) -> tuple[Number, Number]:
    """The closed range of partition-attribute keys of the events s may match (K-D6)."""
    p = sub.predicate(attr.name)
    if p is None:
        return (attr.min, attr.max)
    if mode == "lenient":
        # an event without the attribute has key min and may still match (thesis §3.4.1)
        return (attr.min, p.hi)
    return (p.lo, p.hi)


def event_point(event: Event, attrs: Sequence[Attribute]) -> Point:
    """key(e) on every cut attribute (K-D6 per attribute, K-D18)."""
    return tuple(event_key(event, a) for a in attrs)


def extents(sub: Subscription, attrs: Sequence[Attribute], mode: MatchMode) -> tuple[Range, ...]:
    """extent(s) on every cut attribute (K-D6 per attribute, K-D18): matches(s, e, mode)
    implies event_point(e) lies in the box."""
    return tuple(extent(sub, a, mode) for a in attrs)


@dataclass(frozen=True)
class Filter:
    """A routing-table entry: subscription s from proxy/origin `origin`, restricted to the keys
    in `extent` (one closed range per cut attribute, K-D18) and in every zone of `zones`
    (K-D4)."""

    sub: Subscription
    origin: str
    extent: tuple[Range, ...]
    zones: tuple[Box, ...] = ()

    @property
    def ident(self) -> tuple[str, str]:
        """One entry per (subscription, proxy): a subscription overlapping two zones of a
        clique has two fragments (K-D4)."""
        return (self.sub.id, self.origin)

    def nonempty(self) -> bool:
        for d, (lo, hi) in enumerate(self.extent):
            dims = [z.dims[d] for z in self.zones]
            if lo > hi or not all(z.overlaps(lo, hi) for z in dims) or not _common(dims, lo, hi):
                return False
        return True

    def admits(self, event: Event, key: Point, mode: MatchMode) -> bool:
        """Whether the event must be forwarded toward this filter's origin (Siena §II.A)."""
        if not all(lo <= k <= hi for (lo, hi), k in zip(self.extent, key, strict=True)):
            return False
        if not all(z.contains(key) for z in self.zones):
            return False
        return matches(self.sub, event, mode)


def _common(zones: Sequence[Zone], lo: Number, hi: Number) -> bool:
    """Whether [lo, hi] and all zones share a value (for two zones: their intersection)."""
    a_lo: Number = lo
    a_hi: Number = hi
    closed = True
    for z in zones:
        if z.lo > a_lo:
            a_lo = z.lo
        if z.hi < a_hi or (z.hi == a_hi and not z.closed):
            a_hi, closed = z.hi, z.closed
    return a_lo < a_hi or (closed and a_lo == a_hi)


def restrict(f: Filter, *zones: Box) -> Filter:
    """The filter with further zone restrictions (K-D4: s ∩ Z_z ∩ Y_t)."""
    return Filter(f.sub, f.origin, f.extent, (*f.zones, *zones))


@dataclass
class RoutingTable:
    """One server's table for one routing network: neighbour -> entries from that direction
    (Siena §II.A, Fig. 2; Kyra Fig. 4 keeps one per tree)."""

    entries: dict[str, dict[tuple[str, str], Filter]] = field(
        default_factory=lambda: defaultdict(dict)
    )

    def add(self, neighbour: str, f: Filter) -> None:
        self.entries[neighbour][f.ident] = f

    def remove(self, neighbour: str, ident: tuple[str, str]) -> None:
        self.entries.get(neighbour, {}).pop(ident, None)

    def records(self) -> int:
        return sum(len(v) for v in self.entries.values())

    def forward_to(
        self,
        event: Event,
        key: Point,
        mode: MatchMode,
        neighbours: Iterable[str],
        came_from: str | None,
    ) -> tuple[list[str], int]:
        """The neighbours (sorted, never `came_from`) with an admitting filter, and the number
        of filters tested (matching operations, Siena §II.A)."""
        out: list[str] = []
        ops = 0
        for n in sorted(neighbours):
            if n == came_from:
                continue  # Siena §II.A: never back toward the sender
            for f in self.entries.get(n, {}).values():
                ops += 1
                if f.admits(event, key, mode):
                    out.append(n)
                    break
        return out, ops


Adjacency = Mapping[str, Sequence[str]]


def broadcast(adj: Adjacency, start: str) -> list[tuple[str, str]]:
    """The hops (from, to) of a broadcast over an acyclic tree from `start` (Siena §II.A)."""
    hops: list[tuple[str, str]] = []
    stack: list[tuple[str, str | None]] = [(start, None)]
    while stack:
        node, parent = stack.pop()
        for n in sorted(adj.get(node, ()), reverse=True):
            if n != parent:
                hops.append((node, n))
                stack.append((n, node))
    return hops


def build_tables(adj: Adjacency, filters: Iterable[tuple[str, Filter]]) -> dict[str, RoutingTable]:
    """Every server's table after broadcasting each (origin server, filter) over the tree
    (the static worked examples, Figs. 2 and 4)."""
    tables: dict[str, RoutingTable] = {s: RoutingTable() for s in adj}
    for origin, f in filters:
        for a, b in broadcast(adj, origin):
            tables[b].add(a, f)
    return tables


def route(
    adj: Adjacency,
    tables: Mapping[str, RoutingTable],
    start: str,
    event: Event,
    key: Point,
    mode: MatchMode,
) -> list[tuple[str, str]]:
    """The hops of an event published at `start` (Siena §II.A), in breadth-first order."""
    hops: list[tuple[str, str]] = []
    queue: list[tuple[str, str | None]] = [(start, None)]
    while queue:
        node, came = queue.pop(0)
        nexts, _ = tables[node].forward_to(event, key, mode, adj.get(node, ()), came)
        for n in nexts:
            hops.append((node, n))
            queue.append((n, node))
    return hops
