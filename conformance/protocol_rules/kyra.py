"""Protocol rules of the kyra family (systems: kyra, siena, mcgroups): Cao & Singh, "Efficient
Event Routing in Content-based Publish-Subscribe Service Networks", INFOCOM 2004 (Kyra §II.A
filter-based routing after Siena, §II.B multicast groups, §III Kyra); the observations they read
are described in conformance/OBSERVATIONS.md, section "kyra, siena, mcgroups" (format version 1).

The rules read only the observation log and the trace. They import three pure definitions of the
paper's functions from the reference: the half-open zone (`Zone`, decision K-D1 in
docs/kyra.md), an event's key on the partition attribute and a subscription's extent on it
(`event_key`, `extent`, decisions K-D4/K-D6), and the trace contract's `matches`.

Per-event dissemination trees are checked by a small local helper (`_Tree`): each family roots
its tree where its paper does (the publisher; Kyra's route tree at the clique member whose zone
covers the event), which the generic one-copy/no-cycle check does not know.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pubsub_spec.conformance.protocol_rules.base import Deviation, ObservedRun, Rule
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Number,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import Publish, Subscribe, initial_node_names
from pubsub_spec.reference.kyra.filters import event_key, extent
from pubsub_spec.reference.kyra.zones import Zone
from pubsub_spec.reference.sim.observe import Observation

KYRA = "Cao & Singh, Kyra, INFOCOM 2004"

# the message types that carry an event (the cost envelope charges them to the publishes;
# `Notify`, K-D5, is the last leg to an original server) and those that install or remove a
# subscription. Kyra's per-event tree is EventToZone + EventRoute only (`_kyra_event_tree`).
DISSEMINATION: dict[str, frozenset[str]] = {
    "kyra": frozenset({"EventToZone", "EventRoute", "Notify"}),
    "siena": frozenset({"EventRoute"}),
    "mcgroups": frozenset({"EventToGroup", "EventMulticast"}),
}
SUBSCRIPTION: dict[str, frozenset[str]] = {
    "kyra": frozenset({"SubMove", "UnsubMove", "SubPropagate", "UnsubPropagate"}),
    "siena": frozenset({"SubPropagate", "UnsubPropagate"}),
    "mcgroups": frozenset({"GroupJoin"}),
}
# the state changes each system reports (conformance/OBSERVATIONS.md)
STATES: dict[str, frozenset[str]] = {
    "kyra": frozenset(
        {"zone", "tree-join", "proxy-store", "proxy-remove", "filter-add", "filter-remove"}
    ),
    "siena": frozenset({"neighbours", "sub-store", "sub-remove", "filter-add", "filter-remove"}),
    "mcgroups": frozenset({"group-map", "group-join", "sub-store", "sub-remove"}),
}

Found = tuple[int | None, str]  # (index of the offending observation, what was expected)


# -- reading a run ---------------------------------------------------------------------------
@dataclass
class _Index:
    events: dict[str, Event]
    subs: dict[str, Subscription]
    schemas: dict[str, Schema]
    servers: list[str]


def _index(run: ObservedRun) -> _Index:
    """The trace's events, subscriptions and schemas by id (built per rule: no state is kept
    between runs, so rules may run in parallel and keep no trace alive)."""
    trace = run.trace
    events = {op.event.id: op.event for op in trace.ops if isinstance(op, Publish)}
    subs = {op.sub.id: op.sub for op in trace.ops if isinstance(op, Subscribe)}
    return _Index(
        events,
        subs,
        {s.name: s for s in trace.schemas},
        initial_node_names(trace.initial_nodes),
    )


def _obs(run: ObservedRun) -> Iterator[tuple[int, Observation]]:
    for i, o in enumerate(run.log):
        yield i, o.obs


def _zone(v: Any) -> Zone | None:
    """A reported zone [lo, hi, closed] (None when malformed)."""
    if (
        isinstance(v, list)
        and len(v) == 3
        and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v[:2])
        and isinstance(v[2], bool)
    ):
        return Zone(v[0], v[1], v[2])
    return None


def _names(v: Any) -> list[str] | None:
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return list(v)
    return None


def _attr(ix: _Index, schema: str, name: Any) -> Attribute | None:
    s = ix.schemas.get(schema)
    if s is None or not isinstance(name, str) or name not in s.by_name:
        return None
    return s.attribute(name)


def _covers_domain(zones: Sequence[Zone], attr: Attribute) -> str | None:
    """Why the non-empty `zones` do not partition [attr.min, attr.max] into disjoint
    half-open intervals, the last closed (K-D1), or None when they do."""
    parts = sorted((z for z in zones if not z.empty), key=lambda z: (z.lo, z.hi))
    if not parts:
        return "no non-empty zone"
    at: Number = attr.min
    for k, z in enumerate(parts):
        if z.lo != at:
            return f"a gap or an overlap at {at} (next zone {z.text()})"
        last = k == len(parts) - 1
        if z.closed and not last:
            return f"zone {z.text()} is closed but not the last: it meets {parts[k + 1].text()}"
        if not z.closed and last:
            return f"the last zone {z.text()} leaves out the domain maximum"
        at = z.hi
    if at != attr.max:
        return f"the zones end at {at}, not at the domain maximum {attr.max}"
    return None


def _tree_shape(adj: Mapping[str, Sequence[str]], members: set[str]) -> str | None:
    """Why the undirected graph `adj` is not one tree spanning exactly `members`, or None."""
    edges: set[tuple[str, str]] = set()
    for a, ns in adj.items():
        for b in ns:
            if b not in members:
                return f"edge {a}-{b} leaves the members"
            if a not in adj.get(b, ()):
                return f"edge {a}-{b} is reported by {a} only"
            edges.add((min(a, b), max(a, b)))
    if not members:
        return None
    if len(edges) != len(members) - 1:
        return f"{len(members)} members but {len(edges)} edges (not a tree)"
    start = min(members)
    seen = {start}
    stack = [start]
    while stack:
        for n in adj.get(stack.pop(), ()):
            if n not in seen:
                seen.add(n)
                stack.append(n)
    if seen != members:
        return f"not connected: {sorted(members - seen)[:3]} unreachable from {start}"
    return None


@dataclass
class _Tree:
    """One event's (or one subscription entry's) dissemination tree, checked as it grows:
    a node sends only what it holds (the tree is rooted at the holders it starts with), and
    no node receives a copy twice (which rules out cycles too)."""

    holders: set[str]
    received: set[str] = field(default_factory=set)

    def step(self, what: str, sender: str, receiver: str) -> str | None:
        if sender not in self.holders:
            return f"{sender} sends {what} it never received (the tree's root is elsewhere)"
        if receiver in self.holders:
            return f"{receiver} receives {what} a second time (a duplicate or a cycle)"
        self.holders.add(receiver)
        self.received.add(receiver)
        return None


def _rule(id_: str, source: str, doc: str, find: Callable[[ObservedRun], Found | None]) -> Rule:
    def check(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
        found = find(run)
        return None if found is None else rule.deviation(*found)

    rule = Rule(id_, source, doc, check)
    return rule


# -- Kyra (§III) -----------------------------------------------------------------------------
@dataclass
class _KyraLayout:
    attr: dict[str, Attribute] = field(default_factory=dict)  # schema -> partition attribute
    zone: dict[tuple[str, str], Zone] = field(default_factory=dict)  # (schema, server)
    clique: dict[str, list[str]] = field(default_factory=dict)
    tree_zone: dict[str, Zone] = field(default_factory=dict)
    tree_schema: dict[str, str] = field(default_factory=dict)
    tree_adj: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def read(self, ix: _Index, i: int, o: Observation) -> Found | None:
        """Take in a `zone` or `tree-join` state (malformed ones are a deviation of the rule
        that reads them)."""
        f = o.fields
        if o.name == "zone":
            schema = str(f.get("schema"))
            attr = _attr(ix, schema, f.get("attr"))
            z, clique = _zone(f.get("zone")), _names(f.get("clique"))
            if attr is None or z is None or clique is None:
                return i, "a zone state needs schema, attr (a trace attribute), zone, clique"
            self.attr[schema] = attr
            self.zone[(schema, o.node)] = z
            self.clique[o.node] = clique
        elif o.name == "tree-join":
            tree, tschema = f.get("tree"), f.get("schema")
            z, ns = _zone(f.get("zone")), _names(f.get("neighbours"))
            if not isinstance(tree, str) or not isinstance(tschema, str) or z is None or ns is None:
                return i, "a tree-join state needs schema, tree, zone, neighbours"
            self.tree_zone[tree] = z
            self.tree_schema[tree] = tschema
            self.tree_adj.setdefault(tree, {})[o.node] = ns
        return None


def _kyra_layout(run: ObservedRun) -> tuple[_KyraLayout, Found | None]:
    ix = _index(run)
    lay = _KyraLayout()
    for i, o in _obs(run):
        if o.kind == "state":
            bad = lay.read(ix, i, o)
            if bad is not None:
                return lay, bad
    return lay, None


def _kyra_zones(run: ObservedRun) -> Found | None:
    # Kyra §III: "each server is assigned a non-overlapping zone" (local partition per clique);
    # §III.A: cliques are disjoint groups of servers
    ix = _index(run)
    lay, bad = _kyra_layout(run)
    if bad is not None:
        return bad
    if not run.log:
        return None  # nothing reported at all: the generic rule `reported` judges that
    last = {(str(o.fields.get("schema")), o.node): i for i, o in _obs(run) if o.name == "zone"}
    for s in ix.servers:
        c = lay.clique.get(s)
        if c is None:
            return None, f"server {s}: no zone reported"
        for m in c:
            if m not in ix.servers:
                return last.get((next(iter(lay.attr), ""), s)), f"{s}'s clique names {m}"
            if lay.clique.get(m) is not None and sorted(lay.clique[m]) != sorted(c):
                return None, f"{s} and {m} report different cliques {c} and {lay.clique[m]}"
        if s not in c:
            return None, f"{s}'s clique {c} does not contain it"
    for schema, attr in lay.attr.items():
        for s in ix.servers:
            if (schema, s) not in lay.zone:
                return None, f"server {s}: no zone reported for schema {schema}"
        for members in {tuple(sorted(v)) for v in lay.clique.values()}:
            why = _covers_domain([lay.zone[(schema, m)] for m in members], attr)
            if why is not None:
                where = last[(schema, members[0])]
                return where, f"the zones of clique {list(members)} ({schema}): {why}"
    return None


def _kyra_trees(run: ObservedRun) -> Found | None:
    # Kyra §III: "Kyra servers join all the routing trees whose zone overlap with that of their
    # own"; the tree zones are a global partition; §II.A/§III.A: each tree is acyclic (an MST)
    lay, bad = _kyra_layout(run)
    if bad is not None:
        return bad
    first: dict[str, int] = {}
    for i, o in _obs(run):
        if o.name == "tree-join":
            first.setdefault(str(o.fields.get("tree")), i)
    by_schema: defaultdict[str, list[str]] = defaultdict(list)
    for t, schema in lay.tree_schema.items():
        by_schema[schema].append(t)
    for schema, attr in lay.attr.items():
        trees = by_schema.get(schema, [])
        why = _covers_domain([lay.tree_zone[t] for t in trees], attr)
        if why is not None:
            return None, f"the tree zones of schema {schema}: {why}"
        for t in trees:
            y = lay.tree_zone[t]
            want = {s for (sch, s), z in lay.zone.items() if sch == schema and _zones_meet(z, y)}
            got = set(lay.tree_adj[t])
            if got != want:
                extra, missing = sorted(got - want), sorted(want - got)
                return first[t], (
                    f"tree {t} {y.text()}: members whose zone does not overlap {extra}, "
                    f"servers whose zone overlaps but did not join {missing}"
                )
            shape = _tree_shape(lay.tree_adj[t], got)
            if shape is not None:
                return first[t], f"tree {t}: {shape}"
    return None


def _zones_meet(a: Zone, b: Zone) -> bool:
    """Whether two zones share a value (half-open ends respected)."""
    if a.empty or b.empty:
        return False
    lo, hi = max(a.lo, b.lo), min(a.hi, b.hi)
    if lo < hi:
        return True
    return lo == hi and a.contains(lo) and b.contains(lo)


def _key(ix: _Index, attr: Mapping[str, Attribute], event: Event) -> Number | None:
    a = attr.get(event.schema)
    return None if a is None else event_key(event, a)


def _kyra_proxies(run: ObservedRun) -> Found | None:
    # Kyra §III subscription movement: "the original servers ... forward the subscriptions to
    # the appropriate proxy servers": the members of its clique whose zone overlaps it
    ix = _index(run)
    lay = _KyraLayout()
    moved: set[tuple[str, str]] = set()  # (sub, proxy) a SubMove reached
    stored: defaultdict[str, set[str]] = defaultdict(set)
    mode = run.trace.matching

    def proxies(sub: Subscription) -> set[str] | None:
        a = lay.attr.get(sub.schema)
        if a is None:
            return None
        lo, hi = extent(sub, a, mode)
        zs = ((m, lay.zone.get((sub.schema, m))) for m in lay.clique.get(sub.subscriber, ()))
        return {m for m, z in zs if z is not None and z.overlaps(lo, hi)}

    for i, o in _obs(run):
        if o.kind == "state" and o.name in ("zone", "tree-join"):
            lay.read(ix, i, o)
            continue
        if o.name not in ("SubMove", "UnsubMove", "proxy-store", "proxy-remove"):
            continue
        sub = ix.subs.get(o.sub or "")
        if sub is None:
            return i, f"{o.name} names no subscription of the trace ({o.sub!r})"
        want = proxies(sub)
        if want is None:
            return i, f"{o.name} of {sub.id} before the zones of schema {sub.schema} were reported"
        if o.kind == "send":
            if o.node != sub.subscriber or o.to not in want:
                return i, (
                    f"{o.name} of {sub.id} {o.node}->{o.to}: must go from its original server "
                    f"{sub.subscriber} to a clique member whose zone overlaps it {sorted(want)}"
                )
            moved.add((sub.id, o.to))
        elif o.name == "proxy-store":
            if o.node not in want or (o.node != sub.subscriber and (sub.id, o.node) not in moved):
                return i, (
                    f"{o.node} stores {sub.id} as proxy: not a moved-to clique member whose zone "
                    f"overlaps it {sorted(want)}"
                )
            stored[sub.id].add(o.node)
    for sid, sub in ix.subs.items():
        want = proxies(sub)
        if want is not None and stored[sid] != want:
            return None, (
                f"{sid} stored at proxies {sorted(stored[sid])}, not at every clique member "
                f"whose zone overlaps it {sorted(want)}"
            )
    return None


def _kyra_propagate(run: ObservedRun) -> Found | None:
    # Kyra §III: "each routing tree then becomes an independent filter-based routing network"
    # (§II.A: broadcast over the tree); the entry of proxy p on tree t is s ∩ Z_p ∩ Y_t, not
    # propagated when empty (K-D4)
    ix = _index(run)
    lay = _KyraLayout()
    proxy_of: dict[tuple[str, str], int] = {}  # (sub, proxy) -> its first proxy-store
    trees: dict[tuple[str, str, str, str], _Tree] = {}
    mode = run.trace.matching
    for i, o in _obs(run):
        if o.kind == "state":
            if o.name in ("zone", "tree-join"):
                lay.read(ix, i, o)
            elif o.name == "proxy-store" and o.sub is not None:
                proxy_of.setdefault((o.sub, o.node), i)
            continue
        if o.name not in ("SubPropagate", "UnsubPropagate"):
            continue
        sub = ix.subs.get(o.sub or "")
        t, p = o.fields.get("tree"), o.fields.get("proxy")
        if sub is None or not isinstance(t, str) or not isinstance(p, str):
            return i, f"{o.name} needs a trace subscription, tree and proxy"
        adj = lay.tree_adj.get(t)
        if adj is None or o.to not in adj.get(o.node, ()):
            return i, f"{o.name} {o.node}->{o.to} is not an edge of routing tree {t}"
        if (sub.id, p) not in proxy_of:
            return i, f"{o.name} of {sub.id} names {p}, which never stored it as proxy"
        a, z, y = lay.attr.get(sub.schema), lay.zone.get((sub.schema, p)), lay.tree_zone[t]
        if a is None or z is None:
            return i, f"{o.name}: the zone of proxy {p} was not reported"
        lo, hi = extent(sub, a, mode)
        if not (z.overlaps(lo, hi) and y.overlaps(lo, hi) and _entry_nonempty(lo, hi, z, y)):
            return i, f"{o.name} of {sub.id} on {t}: the entry s ∩ Z_{p} ∩ Y_{t} is empty"
        key = (o.name, sub.id, p, t)
        tree = trees.get(key)
        if tree is None:
            tree = trees[key] = _Tree({p})
        why = tree.step(f"the entry of {sub.id} from proxy {p}", o.node, o.to or "")
        if why is not None:
            return i, f"{o.name} on {t}: {why}"
    for (name, sid, p, t), tree in trees.items():
        members = set(lay.tree_adj.get(t, {}))
        if tree.holders != members:
            missing = sorted(members - tree.holders)
            return None, f"{name} of {sid} from {p} on {t} never reached {missing}"
    # and every proxy propagates its non-empty entries on every tree it shares with others
    for (sid, p), i in proxy_of.items():
        sub = ix.subs.get(sid)
        a = lay.attr.get(sub.schema) if sub is not None else None
        z = lay.zone.get((sub.schema, p)) if sub is not None else None
        if sub is None or a is None or z is None:
            continue  # reported by subscription-movement
        lo, hi = extent(sub, a, mode)
        for t, adj in sorted(lay.tree_adj.items()):
            shared = p in adj and len(adj) > 1 and lay.tree_schema[t] == sub.schema
            if not shared or not _entry_nonempty(lo, hi, z, lay.tree_zone[t]):
                continue
            if ("SubPropagate", sid, p, t) not in trees:
                return i, f"proxy {p} never propagated its entry of {sid} on tree {t}"
    return None


def _entry_nonempty(lo: Number, hi: Number, z: Zone, y: Zone) -> bool:
    """Whether [lo, hi] ∩ z ∩ y holds a value."""
    a = max(lo, z.lo, y.lo)
    b = min(hi, z.hi, y.hi)
    if a < b:
        return True
    return a == b and z.contains(a) and y.contains(a) and lo <= a <= hi


def _filters(run: ObservedRun, tree_field: bool) -> Found | None:
    # Siena §II.A (Kyra §III per tree): "each server then records the subscriptions received
    # from each direction": a stored filter came in a SubPropagate from that direction
    sent: set[tuple[str, str, str, str, str]] = set()
    for i, o in _obs(run):
        tree = str(o.fields.get("tree", "")) if tree_field else ""
        proxy = str(o.fields.get("proxy", "")) if tree_field else ""
        if o.kind == "send" and o.name in ("SubPropagate", "UnsubPropagate"):
            sent.add((o.name, o.sub or "", o.to or "", tree + "|" + proxy, o.node))
        elif o.name in ("filter-add", "filter-remove"):
            msg = "SubPropagate" if o.name == "filter-add" else "UnsubPropagate"
            d = o.fields.get("direction")
            if (msg, o.sub or "", o.node, tree + "|" + proxy, str(d)) not in sent:
                return i, f"{o.node} {o.name} of {o.sub} from {d}: no {msg} came from there"
    return None


def _kyra_event_zone(run: ObservedRun) -> Found | None:
    # Kyra §III: "When an event is published, it is first forwarded to the server in the same
    # clique whose content zone covers it"
    ix = _index(run)
    lay = _KyraLayout()
    seen: set[str] = set()
    for i, o in _obs(run):
        if o.kind == "state":
            lay.read(ix, i, o)
            continue
        if o.name != "EventToZone":
            continue
        e = ix.events.get(o.event or "")
        if e is None:
            return i, f"EventToZone names no event of the trace ({o.event!r})"
        k = _key(ix, lay.attr, e)
        clique = lay.clique.get(e.publisher, [])
        zones = ((m, lay.zone.get((e.schema, m))) for m in clique)
        cover = [m for m, z in zones if z is not None and k is not None and z.contains(k)]
        if o.node != e.publisher or o.to not in cover or o.to == e.publisher or e.id in seen:
            return i, (
                f"EventToZone of {e.id} {o.node}->{o.to}: one, from its publisher {e.publisher} "
                f"to the clique member whose zone covers key {k} ({cover})"
            )
        seen.add(e.id)
    return None


def _kyra_event_tree(run: ObservedRun) -> Found | None:
    # Kyra §III + §II.A: the event goes from the publisher to the covering clique member z*
    # (EventToZone), then along the covering tree from z*, never back: the route tree is
    # rooted at z* (the publisher itself when its zone covers the event) and no server receives
    # an EventRoute of the event twice (the publisher may be reached once as a relay)
    ix = _index(run)
    lay = _KyraLayout()
    routes: dict[str, _Tree] = {}
    for i, o in _obs(run):
        if o.kind == "state":
            lay.read(ix, i, o)
            continue
        if o.name not in ("EventToZone", "EventRoute"):
            continue
        e = ix.events.get(o.event or "")
        if e is None:
            return i, f"{o.name} names no event of the trace ({o.event!r})"
        tree = routes.get(e.id)
        if o.name == "EventToZone":
            if o.node != e.publisher or tree is not None:
                return i, (
                    f"EventToZone of {e.id} from {o.node}: once, from its publisher "
                    f"{e.publisher}, before it is routed"
                )
            routes[e.id] = _Tree({o.to or ""})
            continue
        if tree is None:
            k = _key(ix, lay.attr, e)
            z = lay.zone.get((e.schema, e.publisher))
            if z is None or k is None or not z.contains(k):
                return i, (
                    f"EventRoute of {e.id} from {o.node} before it reached the clique member "
                    "whose zone covers it (the route tree's root)"
                )
            tree = routes[e.id] = _Tree({e.publisher})
        why = tree.step(e.id, o.node, o.to or "")
        if why is not None:
            return i, why
    return None


def _kyra_covering_tree(run: ObservedRun) -> Found | None:
    # Kyra §III: the event is "routed on the tree with covering zone"; §II.A: "forwarded toward
    # only the directions with matching subscriptions": an entry of proxy p admits e iff
    # key(e) ∈ Z_p and s matches e (K-D4)
    ix = _index(run)
    lay = _KyraLayout()
    mode = run.trace.matching
    # (tree, server, direction) -> entries (sub, proxy) propagated that way
    table: defaultdict[tuple[str, str, str], list[tuple[str, str]]] = defaultdict(list)
    for i, o in _obs(run):
        if o.kind == "state":
            lay.read(ix, i, o)
            continue
        if o.name == "SubPropagate":
            t, p = o.fields.get("tree"), o.fields.get("proxy")
            table[(str(t), o.to or "", o.node)].append((o.sub or "", str(p)))
            continue
        if o.name != "EventRoute":
            continue
        e = ix.events.get(o.event or "")
        t = o.fields.get("tree")
        if e is None or not isinstance(t, str) or t not in lay.tree_zone:
            return i, f"EventRoute needs a trace event and a reported tree ({o.event!r}, {t!r})"
        k = _key(ix, lay.attr, e)
        if lay.tree_schema[t] != e.schema or k is None or not lay.tree_zone[t].contains(k):
            return i, f"EventRoute of {e.id} on {t}: its zone does not cover key {k}"
        if o.to not in lay.tree_adj[t].get(o.node, ()):
            return i, f"EventRoute of {e.id} {o.node}->{o.to} is not an edge of {t}"
        for sid, p in table[(t, o.node, o.to or "")]:
            s, z = ix.subs.get(sid), lay.zone.get((e.schema, p))
            if s is not None and z is not None and z.contains(k) and matches(s, e, mode):
                break
        else:
            return i, (
                f"EventRoute of {e.id} {o.node}->{o.to} on {t}: no entry from that direction "
                f"admits it (key {k})"
            )
    return None


def _kyra_notify(run: ObservedRun) -> Found | None:
    # Kyra §III: a proxy serves its proxy subscriptions for the events of its zone; K-D5: one
    # Notify per (event, original server), so each subscriber hears of each event once
    ix = _index(run)
    lay = _KyraLayout()
    mode = run.trace.matching
    proxy_of: set[tuple[str, str]] = set()
    got: dict[str, set[str]] = defaultdict(set)  # event -> servers it reached
    told: set[tuple[str, str]] = set()
    for i, o in _obs(run):
        if o.kind == "state":
            lay.read(ix, i, o)
            if o.name == "proxy-store":
                proxy_of.add((o.sub or "", o.node))
            elif o.name == "proxy-remove":
                proxy_of.discard((o.sub or "", o.node))
            continue
        if o.name in ("EventToZone", "EventRoute"):
            got[o.event or ""].add(o.to or "")
            continue
        if o.name != "Notify":
            continue
        e = ix.events.get(o.event or "")
        subs = _names(o.fields.get("subs"))
        if e is None or not subs:
            return i, "Notify needs a trace event and a non-empty list of subscription ids"
        k = _key(ix, lay.attr, e)
        z = lay.zone.get((e.schema, o.node))
        reached = o.node in got[e.id] or o.node == e.publisher
        if not reached or z is None or k is None or not z.contains(k):
            return i, f"Notify of {e.id} from {o.node}: not a reached proxy covering key {k}"
        for sid in subs:
            s = ix.subs.get(sid)
            if s is None or s.subscriber != o.to or (sid, o.node) not in proxy_of:
                return i, f"Notify of {e.id}: {sid} is not {o.node}'s proxy subscription of {o.to}"
            if not matches(s, e, mode):
                return i, f"Notify of {e.id}: {sid} does not match it"
            if (e.id, sid) in told:
                return i, f"Notify of {e.id}: {sid} was notified of it before"
            told.add((e.id, sid))
    return None


# -- Siena (§II.A) ---------------------------------------------------------------------------
def _siena_adj(run: ObservedRun) -> dict[str, list[str]]:
    adj: dict[str, list[str]] = {}
    for _, o in _obs(run):
        if o.name == "neighbours":
            adj[o.node] = _names(o.fields.get("neighbours")) or []
    return adj


def _siena_tree(run: ObservedRun) -> Found | None:
    # Kyra §II.A: "Pub-sub servers are organized into an acyclic (tree) peer-to-peer topology"
    ix = _index(run)
    adj = _siena_adj(run)
    if not adj and not run.log:
        return None
    first = next((i for i, o in _obs(run) if o.name == "neighbours"), None)
    why = _tree_shape(adj, set(ix.servers))
    if why is None and set(adj) != set(ix.servers):
        why = f"servers without neighbours reported: {sorted(set(ix.servers) - set(adj))[:3]}"
    return None if why is None else (first, f"the server tree: {why}")


def _siena_broadcast(run: ObservedRun) -> Found | None:
    # Kyra §II.A: "all subscriptions are broadcast over the entire network along the tree"
    ix = _index(run)
    adj = _siena_adj(run)
    trees: dict[tuple[str, str], _Tree] = {}
    for i, o in _obs(run):
        if o.name not in ("SubPropagate", "UnsubPropagate"):
            continue
        s = ix.subs.get(o.sub or "")
        if s is None:
            return i, f"{o.name} names no subscription of the trace ({o.sub!r})"
        if o.to not in adj.get(o.node, ()):
            return i, f"{o.name} {o.node}->{o.to} is not an edge of the server tree"
        tree = trees.setdefault((o.name, s.id), _Tree({s.subscriber}))
        why = tree.step(f"{s.id}", o.node, o.to or "")
        if why is not None:
            return i, f"{o.name}: {why}"
    for (name, sid), tree in trees.items():
        if name == "SubPropagate" and tree.holders != set(adj):
            return None, f"{sid} never reached {sorted(set(adj) - tree.holders)[:3]}"
    for sid in ix.subs:
        if len(adj) > 1 and ("SubPropagate", sid) not in trees:
            return None, f"{sid} was never broadcast"
    return None


def _siena_event_tree(run: ObservedRun) -> Found | None:
    # Kyra §II.A: events follow the acyclic server tree from the publisher, never back
    ix = _index(run)
    adj = _siena_adj(run)
    trees: dict[str, _Tree] = {}
    for i, o in _obs(run):
        if o.name != "EventRoute":
            continue
        e = ix.events.get(o.event or "")
        if e is None:
            return i, f"EventRoute names no event of the trace ({o.event!r})"
        if o.to not in adj.get(o.node, ()):
            return i, f"EventRoute {o.node}->{o.to} is not an edge of the server tree"
        why = trees.setdefault(e.id, _Tree({e.publisher})).step(e.id, o.node, o.to or "")
        if why is not None:
            return i, why
    return None


def _siena_reverse_path(run: ObservedRun) -> Found | None:
    # Kyra §II.A: an event is "forwarded toward only the directions with matching
    # subscriptions": the reverse path of a subscription's broadcast
    ix = _index(run)
    mode = run.trace.matching
    came: defaultdict[tuple[str, str], list[str]] = defaultdict(list)  # (server, dir) -> subs
    for i, o in _obs(run):
        if o.name == "SubPropagate":
            came[(o.to or "", o.node)].append(o.sub or "")
        elif o.name == "EventRoute":
            e = ix.events.get(o.event or "")
            if e is None:
                return i, f"EventRoute names no event of the trace ({o.event!r})"
            subs = (ix.subs.get(sid) for sid in came[(o.node, o.to or "")])
            if not any(s is not None and matches(s, e, mode) for s in subs):
                return i, (
                    f"EventRoute of {e.id} {o.node}->{o.to}: no matching subscription came "
                    "from that direction"
                )
    return None


# -- multicast groups (§II.B) ----------------------------------------------------------------
@dataclass
class _Groups:
    maps: dict[str, tuple[Attribute, list[Zone], list[int]]] = field(default_factory=dict)
    adj: dict[tuple[str, int], dict[str, set[str]]] = field(default_factory=dict)

    def read(self, ix: _Index, i: int, o: Observation) -> Found | None:
        f = o.fields
        if o.name == "group-map":
            schema = str(f.get("schema"))
            attr = _attr(ix, schema, f.get("attr"))
            cells_raw, groups = f.get("cells"), f.get("groups")
            cells = [_zone(c) for c in cells_raw] if isinstance(cells_raw, list) else None
            if (
                attr is None
                or cells is None
                or not isinstance(groups, list)
                or len(groups) != len(cells)
            ):
                return i, "a group-map needs schema, attr, cells and one group per cell"
            zs = [c for c in cells if c is not None]
            if len(zs) != len(cells) or not all(isinstance(g, int) for g in groups):
                return i, "a group-map's cells are zones, its groups integers"
            m = (attr, zs, list(groups))
            old = self.maps.get(schema)
            if old is not None and (old[0].name, old[1], old[2]) != (attr.name, zs, m[2]):
                return i, f"{o.node}'s group mapping of {schema} differs from another server's"
            self.maps[schema] = m
        elif o.name == "group-join":
            g, ns = f.get("group"), _names(f.get("neighbours"))
            if not isinstance(g, int) or ns is None:
                return i, "a group-join needs schema, group and neighbours"
            adj = self.adj.setdefault((str(f.get("schema")), g), {})
            adj.setdefault(o.node, set()).update(ns)
            for n in ns:
                adj.setdefault(n, set()).add(o.node)
        return None

    def group(self, event: Event) -> int | None:
        m = self.maps.get(event.schema)
        if m is None:
            return None
        k = event_key(event, m[0])
        for c, g in zip(m[1], m[2], strict=True):
            if c.contains(k):
                return g
        return None

    def groups_of(self, sub: Subscription, mode: MatchMode) -> set[int]:
        m = self.maps.get(sub.schema)
        if m is None:
            return set()
        lo, hi = extent(sub, m[0], mode)
        return {g for c, g in zip(m[1], m[2], strict=True) if c.overlaps(lo, hi)}


def _mc_mapping(run: ObservedRun) -> Found | None:
    # Kyra §II.B: the event space is partitioned into groups and "the routing table is the same
    # for every server": one mapping, reported identically by every server, cells partitioning
    # the domain
    ix = _index(run)
    gr = _Groups()
    reported: defaultdict[str, set[str]] = defaultdict(set)
    for i, o in _obs(run):
        if o.name == "group-map":
            bad = gr.read(ix, i, o)
            if bad is not None:
                return bad
            reported[str(o.fields.get("schema"))].add(o.node)
            m = gr.maps[str(o.fields.get("schema"))]
            why = _covers_domain(m[1], m[0])
            if why is not None:
                return i, f"the cells of {o.fields.get('schema')}: {why}"
    for schema, nodes in reported.items():
        if nodes != set(ix.servers):
            missing = sorted(set(ix.servers) - nodes)[:3]
            return None, f"servers without the mapping of {schema}: {missing}"
    return None


def _mc_event_group(run: ObservedRun) -> Found | None:
    # Kyra §II.B: "When an event is published, it is mapped into a group and multicast on the
    # corresponding tree": only to the one group whose cells contain it
    ix = _index(run)
    gr = _Groups()
    for i, o in _obs(run):
        if o.kind == "state":
            gr.read(ix, i, o)
            continue
        if o.name not in ("EventToGroup", "EventMulticast"):
            continue
        e = ix.events.get(o.event or "")
        if e is None:
            return i, f"{o.name} names no event of the trace ({o.event!r})"
        want = gr.group(e)
        if o.fields.get("group") != want:
            return i, f"{o.name} of {e.id} to group {o.fields.get('group')}, its group is {want}"
    return None


def _mc_event_tree(run: ObservedRun) -> Found | None:
    # Kyra §II.B: the event is multicast on its group's tree from the publisher (a non-member
    # publisher hands it to one member, K-D10): one tree, every copy received once
    ix = _index(run)
    gr = _Groups()
    trees: dict[str, _Tree] = {}
    for i, o in _obs(run):
        if o.kind == "state":
            gr.read(ix, i, o)
            continue
        if o.name not in ("EventToGroup", "EventMulticast"):
            continue
        e = ix.events.get(o.event or "")
        g = o.fields.get("group")
        if e is None or not isinstance(g, int):
            return i, f"{o.name} needs a trace event and a group"
        adj = gr.adj.get((e.schema, g), {})
        tree = trees.get(e.id)
        if tree is None:
            tree = trees[e.id] = _Tree({e.publisher})
        if o.name == "EventToGroup":
            if o.node != e.publisher or e.publisher in adj or o.to not in adj or tree.received:
                return i, (
                    f"EventToGroup of {e.id} {o.node}->{o.to}: only its publisher, not a member "
                    f"of group {g}, hands it once to a member"
                )
        elif o.to not in adj.get(o.node, ()):
            return i, f"EventMulticast of {e.id} {o.node}->{o.to}: not an edge of group {g}'s tree"
        why = tree.step(e.id, o.node, o.to or "")
        if why is not None:
            return i, why
    return None


def _mc_all_members(run: ObservedRun) -> Found | None:
    # Kyra §II.B: "multicast on the corresponding tree to all group members"
    ix = _index(run)
    gr = _Groups()
    want: dict[str, set[str]] = {}
    got: defaultdict[str, set[str]] = defaultdict(set)
    for i, o in _obs(run):
        if o.kind == "state":
            gr.read(ix, i, o)
            continue
        if o.name not in ("EventToGroup", "EventMulticast"):
            continue
        e = ix.events.get(o.event or "")
        if e is None:
            continue
        if e.id not in want:
            g = gr.group(e)
            want[e.id] = set(gr.adj.get((e.schema, g), {})) if g is not None else set()
        got[e.id].add(o.to or "")
    for eid, members in want.items():
        missing = members - got[eid] - {ix.events[eid].publisher}
        if missing:
            return None, f"{eid} never reached the group members {sorted(missing)[:3]}"
    return None


def _mc_membership(run: ObservedRun) -> Found | None:
    # Kyra §II.B: a group's tree "spans all servers with subscription for any event in that
    # group"; a later subscription grafts its server (GroupJoin, K-D10) onto a group it overlaps
    ix = _index(run)
    gr = _Groups()
    mode = run.trace.matching
    stored: list[tuple[int, Subscription]] = []
    for i, o in _obs(run):
        if o.kind == "state":
            gr.read(ix, i, o)
            s = ix.subs.get(o.sub or "")
            if o.name == "sub-store" and s is not None:
                stored.append((i, s))
            continue
        if o.name != "GroupJoin":
            continue
        s = ix.subs.get(o.sub or "")
        g = o.fields.get("group")
        if s is None or o.node != s.subscriber:
            return i, f"GroupJoin of {o.sub} from {o.node}: not from the subscription's server"
        if g not in gr.groups_of(s, mode):
            return i, f"GroupJoin of {s.id} to group {g}, which it does not overlap"
        if o.to not in gr.adj.get((s.schema, int(g) if isinstance(g, int) else -1), {}):
            return i, f"GroupJoin of {s.id} to {o.to}, not a member of group {g}"
    for i, s in stored:
        for g in sorted(gr.groups_of(s, mode)):
            if s.subscriber not in gr.adj.get((s.schema, g), {}):
                return i, f"{s.subscriber} subscribes {s.id} but never joined its group {g}"
    return None


def _mc_trees(run: ObservedRun) -> Found | None:
    # Kyra §II.B: one multicast tree per group (acyclic, spanning its members)
    ix = _index(run)
    gr = _Groups()
    for i, o in _obs(run):
        if o.name == "group-join":
            bad = gr.read(ix, i, o)
            if bad is not None:
                return bad
    for (schema, g), adj in sorted(gr.adj.items()):
        why = _tree_shape({k: sorted(v) for k, v in adj.items()}, set(adj))
        if why is not None:
            return None, f"group {g} of {schema}: {why}"
    return None


def _src(section: str) -> str:
    return f"{KYRA}, {section}"


RULES: dict[str, tuple[Rule, ...]] = {
    "kyra": (
        _rule(
            "kyra/zones",
            _src("§III (local partition), §III.A (cliques)"),
            "every server reports one zone per schema and its clique; cliques are disjoint and "
            "the zones of a clique partition the partition attribute's domain",
            _kyra_zones,
        ),
        _rule(
            "kyra/trees",
            _src("§III (global partition, tree membership), §III.A (MST)"),
            "the tree zones partition the domain; a server joins exactly the trees whose zone "
            "overlaps its own; each tree is one acyclic tree over its members",
            _kyra_trees,
        ),
        _rule(
            "kyra/subscription-movement",
            _src("§III (subscription movement)"),
            "a subscription moves from its original server to, and is stored by, exactly the "
            "members of its clique whose zone overlaps it",
            _kyra_proxies,
        ),
        _rule(
            "kyra/propagate-on-tree",
            _src("§III, §II.A; K-D4"),
            "a proxy's entry s ∩ Z_p ∩ Y_t is broadcast over tree t's edges only, once per "
            "server, from the proxy, only when not empty, and reaches every member",
            _kyra_propagate,
        ),
        _rule(
            "kyra/filters",
            _src("§III, §II.A (routing table per direction)"),
            "a server stores a tree entry under the direction a SubPropagate brought it from",
            lambda run: _filters(run, True),
        ),
        _rule(
            "kyra/event-to-zone",
            _src("§III (publication)"),
            "an event goes first, once, from its publisher to the member of the publisher's "
            "clique whose zone covers it (no message when that is the publisher)",
            _kyra_event_zone,
        ),
        _rule(
            "kyra/event-tree",
            _src("§III, §II.A"),
            "per event, EventToZone and EventRoute form one tree rooted at the publisher whose "
            "routing part starts at the covering clique member; no server receives it twice",
            _kyra_event_tree,
        ),
        _rule(
            "kyra/covering-tree",
            _src("§III (routing on the covering tree), §II.A (matching directions only)"),
            "an event is routed only on the tree whose zone covers it, along its edges, and "
            "only toward a direction holding an entry (s, p) with key(e) in Z_p and s matching e",
            _kyra_covering_tree,
        ),
        _rule(
            "kyra/notify",
            _src("§III (proxy subscriptions); K-D5"),
            "a Notify comes from a reached proxy whose zone covers the event, names its own "
            "matching proxy subscriptions of the receiver, each (event, subscription) once",
            _kyra_notify,
        ),
    ),
    "siena": (
        _rule(
            "siena/server-tree",
            _src("§II.A (acyclic peer-to-peer topology)"),
            "the servers' reported neighbours form one tree spanning every server",
            _siena_tree,
        ),
        _rule(
            "siena/subscription-broadcast",
            _src("§II.A"),
            "every subscription is broadcast from its server over the tree's edges, once to "
            "every server",
            _siena_broadcast,
        ),
        _rule(
            "siena/filters",
            _src("§II.A (routing table per direction)"),
            "a server stores a filter under the direction a SubPropagate brought it from",
            lambda run: _filters(run, False),
        ),
        _rule(
            "siena/event-tree",
            _src("§II.A"),
            "per event, the EventRoute messages follow the server tree from the publisher, "
            "no server receiving it twice",
            _siena_event_tree,
        ),
        _rule(
            "siena/reverse-path",
            _src("§II.A (forwarded toward matching directions only)"),
            "an event is forwarded only toward a neighbour from which a matching subscription "
            "was propagated (the reverse path of its broadcast)",
            _siena_reverse_path,
        ),
    ),
    "mcgroups": (
        _rule(
            "mcgroups/mapping",
            _src("§II.B (the same mapping table at every server)"),
            "every server reports the same event-to-group mapping, cells partitioning the domain",
            _mc_mapping,
        ),
        _rule(
            "mcgroups/event-group",
            _src("§II.B (an event is mapped into its group)"),
            "an event is sent only within the one group whose cell contains it",
            _mc_event_group,
        ),
        _rule(
            "mcgroups/event-tree",
            _src("§II.B; K-D10"),
            "per event: at most one EventToGroup from a non-member publisher to a member, then "
            "EventMulticast along the group tree's edges, no server receiving it twice",
            _mc_event_tree,
        ),
        _rule(
            "mcgroups/all-members",
            _src("§II.B (multicast to all group members)"),
            "an event reaches every member its group had when its multicast began",
            _mc_all_members,
        ),
        _rule(
            "mcgroups/membership",
            _src("§II.B (a group spans every server with a subscription in it); K-D10"),
            "a subscriber is a member of every group its subscription overlaps; a GroupJoin "
            "goes from the subscriber to a member of a group its subscription overlaps",
            _mc_membership,
        ),
        _rule(
            "mcgroups/group-trees",
            _src("§II.B (one multicast tree per group)"),
            "each group's reported neighbours form one acyclic tree over its members",
            _mc_trees,
        ),
    ),
}
