"""Step vectors of Kyra and its two baselines (Fengyun Cao, Jaswinder Pal Singh, "Efficient
Event Routing in Content-based Publish-Subscribe Service Networks", IEEE INFOCOM 2004): one
server of `kyra` (§III), `siena` (filter-based routing, §II.A) or `mcgroups` (multicast
groups, §II.B), each handler of reference/kyra/system.py, siena.py and mcgroups.py run on one
server.

The server's state (`pre.node`, `post.node`) is what its handlers read and change: its name,
the subscriptions it holds as their original server (`subs`), and per system
- kyra: its proxy subscriptions (`proxy`, the fragments s ∩ Z_z of K-D4 are recomputed from
  the zone) and its routing tables, one per routing tree (`tables`: tree -> direction ->
  entries, each entry `sub`, `proxy`, `extent` and `zones` as K-D4 restricts it);
- siena: its routing table (`table`: direction -> entries with `sub`, `origin`, `extent`);
- mcgroups: the groups as the server knows them (`groups`: `schema`, `group`, `members` and,
  when it is a member, its tree `neighbours`; a GroupJoin grafts a leaf, K-D10).
`pre.context` is what the server knows of the rest of the network and does not change: the
schemas and the matching mode, and per system the clique with its members' zones and the
routing trees (their zones, and the server's neighbours on those it joins, §III.A), the
server's neighbours on the one server tree (Siena §II.A), or the cells, the cell-to-group map
and the closest member of each group (§II.B, K-D10: the latency model's answer).

A zone (a `Box`, K-D18) is a list of `[lo, hi, closed]`, one per cut attribute. A send is the
`send` observation of conformance/OBSERVATIONS.md ("kyra, siena, mcgroups") with the whole
`message`; a message to the server itself is reported too (`to` = `node`: the next local step).
Deliveries are `[event, sub]` pairs in `post.delivered`. The installation bookkeeping (K-D12,
when a subscribe completes) and the cut-off of events published before a subscription are the
driver's, not a server's: a server matches every subscription it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pubsub_spec.conformance.protocol import observation_to_json
from pubsub_spec.conformance.steps import kyra_model
from pubsub_spec.conformance.steps.base import (
    JSON,
    Case,
    Handler,
    Outcome,
    StepInputError,
    StepSystem,
    check_name,
    check_number,
    field,
)
from pubsub_spec.conformance.steps.thesis import dec_schema, dec_sub, enc_schema, enc_sub
from pubsub_spec.reference.common.model import Event, MatchMode, Schema, Subscription
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.kyra.base import Arrival, BrokerMetrics, BrokerSystem, SubState
from pubsub_spec.reference.kyra.config import KyraConfig
from pubsub_spec.reference.kyra.filters import Filter, RoutingTable, extents
from pubsub_spec.reference.kyra.mcgroups import McGroupsSystem
from pubsub_spec.reference.kyra.messages import (
    EventMulticast,
    EventRoute,
    EventToGroup,
    EventToZone,
    GroupJoin,
    Message,
    Notify,
    SubMove,
    SubPropagate,
    observation_of,
    type_of,
)
from pubsub_spec.reference.kyra.siena import SienaSystem
from pubsub_spec.reference.kyra.system import KyraSystem, RoutingTree, SchemaLayout
from pubsub_spec.reference.kyra.zones import Box, Zone
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.system import System

PAPER = (
    'Fengyun Cao, Jaswinder Pal Singh, "Efficient Event Routing in Content-based '
    'Publish-Subscribe Service Networks", IEEE INFOCOM 2004'
)

# -- the canonical encoding ------------------------------------------------------------------


Seqs = dict[str, int]  # the publication sequence number of each event a step names


def enc_event(e: Event, seqs: Seqs) -> JSON:
    return {"id": e.id, "publisher": e.publisher, "schema": e.schema,
            "values": [[n, x] for n, x in e.values], "seq": seqs.get(e.id, 0)}  # fmt: skip


def _seq(v: JSON, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 2**53:
        raise StepInputError(f"{where}: an integer in [0, 2^53]")
    return v


def dec_event(v: JSON, where: str, seqs: Seqs) -> Event:
    values = []
    for i, p in enumerate(_list(field(v, "values", where), f"{where}.values")):
        w = f"{where}.values[{i}]"
        if not isinstance(p, list) or len(p) != 2:
            raise StepInputError(f"{w}: expected [attribute, value]")
        values.append((check_name(p[0], w), check_number(p[1], w)))
    event = Event(
        check_name(field(v, "id", where), f"{where}.id"),
        check_name(field(v, "publisher", where), f"{where}.publisher"),
        check_name(field(v, "schema", where), f"{where}.schema"),
        tuple(values),
    )
    seqs[event.id] = _seq(field(v, "seq", where), f"{where}.seq")
    return event


def _list(v: JSON, where: str) -> list[Any]:
    if not isinstance(v, list):
        raise StepInputError(f"{where}: expected a list")
    return v


def _names(v: JSON, where: str) -> list[str]:
    return [check_name(x, f"{where}[{i}]") for i, x in enumerate(_list(v, where))]


def _int(v: JSON, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2**31:
        raise StepInputError(f"{where}: an integer in [0, 2^31)")
    return v


def enc_box(b: Box) -> JSON:
    return [[z.lo, z.hi, z.closed] for z in b.dims]


def dec_box(v: JSON, where: str) -> Box:
    dims = []
    for i, z in enumerate(_list(v, where)):
        w = f"{where}[{i}]"
        if not isinstance(z, list) or len(z) != 3 or not isinstance(z[2], bool):
            raise StepInputError(f"{w}: expected [lo, hi, closed]")
        dims.append(Zone(check_number(z[0], w), check_number(z[1], w), z[2]))
    if not dims:
        raise StepInputError(f"{where}: a zone cuts at least one attribute")
    return Box(tuple(dims))


def enc_filter(f: Filter, origin: str) -> JSON:
    """A routing-table entry (Siena §II.A; K-D4): `origin` names the field of its origin
    (`proxy` on a Kyra tree, `origin` in Siena), as the observations name it."""
    out: dict[str, JSON] = {"sub": enc_sub(f.sub), origin: f.origin,
                            "extent": [[lo, hi] for lo, hi in f.extent]}  # fmt: skip
    if origin == "proxy":
        out["zones"] = [enc_box(z) for z in f.zones]
    return out


def dec_filter(v: JSON, origin: str, where: str) -> Filter:
    extent = []
    for i, r in enumerate(_list(field(v, "extent", where), f"{where}.extent")):
        w = f"{where}.extent[{i}]"
        if not isinstance(r, list) or len(r) != 2:
            raise StepInputError(f"{w}: expected [lo, hi]")
        extent.append((check_number(r[0], w), check_number(r[1], w)))
    zones: tuple[Box, ...] = ()
    if origin == "proxy":
        zs = _list(field(v, "zones", where), f"{where}.zones")
        zones = tuple(dec_box(z, f"{where}.zones[{i}]") for i, z in enumerate(zs))
    return Filter(dec_sub(field(v, "sub", where), f"{where}.sub"),
                  check_name(field(v, origin, where), f"{where}.{origin}"),
                  tuple(extent), zones)  # fmt: skip


def enc_table(t: RoutingTable | None, origin: str) -> JSON:
    if t is None:
        return {}
    return {d: [enc_filter(f, origin) for _, f in sorted(es.items())]
            for d, es in sorted(t.entries.items()) if es}  # fmt: skip


def dec_table(v: JSON, origin: str, where: str) -> RoutingTable:
    if not isinstance(v, dict):
        raise StepInputError(f"{where}: an object (direction -> entries)")
    t = RoutingTable()
    for d, es in sorted(v.items()):
        check_name(d, f"{where} (a direction)")
        for i, e in enumerate(_list(es, f"{where}.{d}")):
            t.add(d, dec_filter(e, origin, f"{where}.{d}[{i}]"))
    return t


def _subs(v: JSON, where: str, ordered: bool = True) -> list[Subscription]:
    """Subscriptions sorted by id, or (`ordered` False) in the order they were stored."""
    subs = [dec_sub(s, f"{where}[{i}]") for i, s in enumerate(_list(v, where))]
    ids = [s.id for s in subs]
    if len(set(ids)) != len(ids) or (ordered and ids != sorted(ids)):
        raise StepInputError(f"{where}: each id once{', sorted by id' if ordered else ''}")
    return subs


def _enc_subs(subs: Sequence[Subscription]) -> JSON:
    return [enc_sub(s) for s in sorted(subs, key=lambda s: s.id)]


def _context_common(v: JSON, where: str) -> tuple[list[Schema], MatchMode]:
    listed = _list(field(v, "schemas", where), f"{where}.schemas")
    schemas = [dec_schema(s, f"{where}.schemas[{i}]") for i, s in enumerate(listed)]
    mode = field(v, "matching", where)
    if mode not in ("strict", "lenient"):
        raise StepInputError(f"{where}.matching: strict or lenient")
    return schemas, mode


def enc_message(m: Message, src: str, seqs: Seqs) -> JSON:
    """One message of the declared types (conformance/OBSERVATIONS.md, "kyra, siena,
    mcgroups"), with `from`, the server it comes from."""
    kind = type_of(m)
    out: dict[str, JSON] = {"type": kind, "from": src}
    if isinstance(m, SubMove):
        out["sub"] = enc_sub(m.sub)
    elif isinstance(m, SubPropagate):
        if m.tree:
            out["tree"] = m.tree
        out.update(enc_filter(m.filter, "proxy" if m.tree else "origin"))
    elif isinstance(m, EventToZone):
        out["event"] = enc_event(m.event, seqs)
    elif isinstance(m, EventRoute):
        if m.tree:
            out["tree"] = m.tree
        out["event"] = enc_event(m.event, seqs)
    elif isinstance(m, Notify):
        out.update(event=enc_event(m.event, seqs), subs=list(m.sub_ids))
    elif isinstance(m, GroupJoin):
        out.update(schema=m.schema, group=m.group, server=m.server, sub=m.sub_id)
    else:
        out.update(event=enc_event(m.event, seqs), group=m.group)
    return out


def dec_message(v: JSON, where: str, system: str, seqs: Seqs) -> tuple[str, Message]:
    kind = field(v, "type", where)
    src = check_name(field(v, "from", where), f"{where}.from")
    allowed = MESSAGES[system]
    if kind not in allowed:
        raise StepInputError(f"{where}.type: one of {', '.join(allowed)}")
    remove = kind.startswith("Unsub")
    if kind in ("SubMove", "UnsubMove"):
        return src, SubMove(dec_sub(field(v, "sub", where), f"{where}.sub"), remove)
    if kind in ("SubPropagate", "UnsubPropagate"):
        if system == "kyra":
            tree = check_name(field(v, "tree", where), f"{where}.tree")
            return src, SubPropagate(tree, dec_filter(v, "proxy", where), remove)
        return src, SubPropagate("", dec_filter(v, "origin", where), remove)
    if kind in ("GroupJoin",):
        return src, GroupJoin(
            check_name(field(v, "schema", where), f"{where}.schema"),
            _int(field(v, "group", where), f"{where}.group"),
            check_name(field(v, "server", where), f"{where}.server"),
            check_name(field(v, "sub", where), f"{where}.sub"),
        )
    event = dec_event(field(v, "event", where), f"{where}.event", seqs)
    if kind == "EventToZone":
        return src, EventToZone(event)
    if kind == "EventRoute":
        tree = check_name(field(v, "tree", where), f"{where}.tree") if system == "kyra" else ""
        return src, EventRoute(tree, event)
    if kind == "Notify":
        return src, Notify(event, tuple(_names(field(v, "subs", where), f"{where}.subs")))
    group = _int(field(v, "group", where), f"{where}.group")
    return src, (EventToGroup if kind == "EventToGroup" else EventMulticast)(event, group)


MESSAGES: dict[str, tuple[str, ...]] = {
    "kyra": ("SubMove", "UnsubMove", "SubPropagate", "UnsubPropagate", "EventToZone",
             "EventRoute", "Notify"),
    "siena": ("SubPropagate", "UnsubPropagate", "EventRoute"),
    "mcgroups": ("GroupJoin", "EventToGroup", "EventMulticast"),
}  # fmt: skip
OPS = ("subscribe", "unsubscribe", "publish")


# -- one server's state, read from a system (the harness or a whole simulated network) -------


def _own_subs(sys: BrokerSystem, me: str) -> list[Subscription]:
    return [st.sub for st in sys.subs.values() if st.active and st.sub.subscriber == me]


def _status(sys: BrokerSystem, me: str, also: Sequence[str] = ()) -> JSON:
    """`pre.context.status`: [id, original server, seq, active] of the subscriptions the
    server's handlers ask about (decision K-D12, the driver's bookkeeping: a subscription is
    matched only for events published after it, and while it is active at its original
    server): the server's own, its proxy subscriptions (kyra) and those in `also` (the ones
    the input names)."""
    ids = {sid for sid, st in sys.subs.items() if st.sub.subscriber == me} | set(also)
    proxy = getattr(sys, "proxy", None)
    if isinstance(proxy, dict):
        ids |= set(proxy.get(me, ()))
    return [[sid, sys.subs[sid].sub.subscriber, sys.subs[sid].seq, sys.subs[sid].active]
            for sid in sorted(ids) if sid in sys.subs]  # fmt: skip


def _dec_status(v: JSON, where: str) -> list[tuple[str, str, int, bool]]:
    out = []
    for i, x in enumerate(_list(v, where)):
        w = f"{where}[{i}]"
        if not isinstance(x, list) or len(x) != 4 or not isinstance(x[3], bool):
            raise StepInputError(f"{w}: expected [sub, original server, seq, active]")
        out.append((check_name(x[0], w), check_name(x[1], w), _seq(x[2], w), x[3]))
    if [x[0] for x in out] != sorted({x[0] for x in out}):
        raise StepInputError(f"{where}: sorted by id, each id once")
    return out


def kyra_state(sys: KyraSystem, me: str) -> JSON:
    tables = {tree: enc_table(t, "proxy") for (s, tree), t in sorted(sys.tables.items())
              if s == me and enc_table(t, "proxy")}  # fmt: skip
    node = {"name": me, "subs": _enc_subs(_own_subs(sys, me)),
            "proxy": [enc_sub(f.sub) for f in sys.proxy[me].values()],
            "tables": tables}  # fmt: skip
    layouts = {}
    for name, lay in sorted(sys.layouts.items()):
        layouts[name] = {
            "attrs": [a.name for a in lay.attrs],
            "zones": {z: enc_box(lay.zones[z]) for z in sorted(sys.clique_of[me])},
            "trees": [{"name": t.name, "zone": enc_box(t.zone),
                       "neighbours": list(t.adj[me]) if me in t.adj else None}
                      for t in lay.trees],
        }  # fmt: skip
    ctx = {"schemas": [enc_schema(s) for _, s in sorted(sys.schemas.items())],
           "matching": sys.matching, "clique": sorted(sys.clique_of[me]),
           "layouts": layouts}  # fmt: skip
    return {"node": node, "context": ctx}


def siena_state(sys: SienaSystem, me: str) -> JSON:
    node = {"name": me, "subs": _enc_subs(list(sys.local[me].values())),
            "table": enc_table(sys.tables[me], "origin")}  # fmt: skip
    attrs = {s: sys.config.partition_attribute(sys.schemas[s]).name for s in sorted(sys.schemas)}
    ctx = {"schemas": [enc_schema(s) for _, s in sorted(sys.schemas.items())],
           "matching": sys.matching, "partition": attrs,
           "neighbours": list(sys.adj[me])}  # fmt: skip
    return {"node": node, "context": ctx}


def mcgroups_state(sys: McGroupsSystem, me: str) -> JSON:
    groups = []
    closest = {}
    for (schema, g), members in sorted(sys.members.items()):
        adj = sys.adj[(schema, g)]
        groups.append({"schema": schema, "group": g, "members": sorted(members),
                       "neighbours": list(adj[me]) if me in members else None})  # fmt: skip
        closest[f"{schema}/{g}"] = sys.closest_member(me, (schema, g))
    node = {"name": me, "subs": _enc_subs(list(sys.local[me].values())), "groups": groups}
    maps = {s: {"attr": sys.config.partition_attribute(sys.schemas[s]).name,
                "cells": [[c.lo, c.hi, c.closed] for c in sys.cells[s]],
                "groups": list(sys.group_of_cell[s])} for s in sorted(sys.schemas)}  # fmt: skip
    ctx = {"schemas": [enc_schema(s) for _, s in sorted(sys.schemas.items())],
           "matching": sys.matching, "maps": maps, "closest": closest}  # fmt: skip
    return {"node": node, "context": ctx}


STATE_OF: dict[str, Callable[[Any, str], JSON]] = {
    "kyra": kyra_state, "siena": siena_state, "mcgroups": mcgroups_state,
}  # fmt: skip


# -- the harness: the reference's system holding one server ----------------------------------


class _Zero(dict[str, float]):
    def __missing__(self, key: str) -> float:
        return 0.0


def _harness_common(h: BrokerSystem, me: str, schemas: list[Schema], mode: MatchMode,
                    subs: list[Subscription], config: KyraConfig, pre: JSON) -> None:  # fmt: skip
    System.__init__(h, 0)
    h.config = config
    h.matching = mode
    h.schemas = {s.name: s for s in schemas}
    h.servers = [me]
    h.metrics = BrokerMetrics()
    known = {s.id: s for s in subs}
    h.subs = {}
    ctx = field(pre, "context", "pre")
    for sid, origin, seq, active in _dec_status(field(ctx, "status", "pre.context"),
                                                "pre.context.status"):  # fmt: skip
        # a subscription the state does not hold is known by its id and original server
        sub = known.get(sid, Subscription(sid, origin, "", ()))
        h.subs[sid] = SubState(sub, seq, Installation(0.0), active)
    h.event_seq = {}
    h.published_at = _Zero()
    h._layout_observed = True
    h.observer = None


class _Capture:
    """The harness's side of a step: sends captured instead of scheduled, the installation
    bookkeeping (K-D12: when a subscribe completes, the driver's) left out."""

    sent: list[tuple[str, str, Message]]

    def send(self, src: str, dst: str, msg: Message) -> None:
        self.sent.append((src, dst, msg))

    def _expect(self, sub_id: str) -> None:
        return None

    def _arrived(self, sub_id: str) -> None:
        return None


class _KyraHarness(_Capture, KyraSystem):
    pass


class _SienaHarness(_Capture, SienaSystem):
    pass


class _McHarness(_Capture, McGroupsSystem):
    closest: dict[tuple[str, int], str | None]

    def closest_member(self, server: str, key: tuple[str, int]) -> str | None:
        return self.closest.get(key)


def _kyra_harness(pre: JSON, cls: type[KyraSystem]) -> tuple[KyraSystem, str]:
    node, ctx = field(pre, "node", "pre"), field(pre, "context", "pre")
    me = check_name(field(node, "name", "pre.node"), "pre.node.name")
    schemas, mode = _context_common(ctx, "pre.context")
    h = object.__new__(cls)
    own = _subs(field(node, "subs", "pre.node"), "pre.node.subs")
    proxy = _subs(field(node, "proxy", "pre.node"), "pre.node.proxy", ordered=False)
    _harness_common(h, me, schemas, mode, own + proxy, KyraConfig(), pre)
    clique = tuple(_names(field(ctx, "clique", "pre.context"), "pre.context.clique"))
    if me not in clique:
        raise StepInputError("pre.context.clique: includes the server itself")
    h.cliques, h.clique_of, h.n_trees = [clique], {me: clique}, 0
    h.layouts, h.trees = {}, {}
    lays = field(ctx, "layouts", "pre.context")
    for s in schemas:
        w = f"pre.context.layouts.{s.name}"
        lay = field(lays, s.name, "pre.context.layouts")
        attrs = tuple(s.attribute(a) for a in _names(field(lay, "attrs", w), f"{w}.attrs"))
        zs = field(lay, "zones", w)
        zones = {z: dec_box(field(zs, z, f"{w}.zones"), f"{w}.zones.{z}") for z in clique}
        trees = []
        for i, t in enumerate(_list(field(lay, "trees", w), f"{w}.trees")):
            tw = f"{w}.trees[{i}]"
            nb = field(t, "neighbours", tw)
            adj = {} if nb is None else {me: _names(nb, f"{tw}.neighbours")}
            name = check_name(field(t, "name", tw), f"{tw}.name")
            trees.append(RoutingTree(name, dec_box(field(t, "zone", tw), f"{tw}.zone"),
                                     tuple(adj), adj))  # fmt: skip
        h.layouts[s.name] = SchemaLayout(s, attrs, zones, tuple(trees),
                                         tuple(t.zone for t in trees))  # fmt: skip
        h.trees.update({t.name: t for t in trees})
    h.tables = {}
    tabs = field(node, "tables", "pre.node")
    if not isinstance(tabs, dict):
        raise StepInputError("pre.node.tables: an object (tree -> table)")
    for tree, t in sorted(tabs.items()):
        h.tables[(me, tree)] = dec_table(t, "proxy", f"pre.node.tables.{tree}")
    h.proxy = {me: {}}
    h._proxy_subs = {}
    for sub in proxy:
        lay = h.layouts[sub.schema]
        h.proxy[me][sub.id] = Filter(sub, me, extents(sub, lay.attrs, mode), (lay.zones[me],))
        h._proxy_subs[sub.id] = sub
    return h, me


def _siena_harness(pre: JSON, cls: type[SienaSystem]) -> tuple[SienaSystem, str]:
    node, ctx = field(pre, "node", "pre"), field(pre, "context", "pre")
    me = check_name(field(node, "name", "pre.node"), "pre.node.name")
    schemas, mode = _context_common(ctx, "pre.context")
    part = field(ctx, "partition", "pre.context")
    quals = tuple(f"{s.name}/{check_name(field(part, s.name, 'pre.context.partition'), 'a')}"
                  for s in schemas)  # fmt: skip
    subs = _subs(field(node, "subs", "pre.node"), "pre.node.subs")
    h = object.__new__(cls)
    _harness_common(h, me, schemas, mode, subs, KyraConfig(partition_attr=quals), pre)
    h.adj = {me: _names(field(ctx, "neighbours", "pre.context"), "pre.context.neighbours")}
    h.tables = {me: dec_table(field(node, "table", "pre.node"), "origin", "pre.node.table")}
    h.local = {me: {s.id: s for s in subs}}
    return h, me


def _mc_harness(pre: JSON, cls: type[McGroupsSystem]) -> tuple[McGroupsSystem, str]:
    node, ctx = field(pre, "node", "pre"), field(pre, "context", "pre")
    me = check_name(field(node, "name", "pre.node"), "pre.node.name")
    schemas, mode = _context_common(ctx, "pre.context")
    maps = field(ctx, "maps", "pre.context")
    quals, h_cells, h_groups = [], {}, {}
    for s in schemas:
        w = f"pre.context.maps.{s.name}"
        m = field(maps, s.name, "pre.context.maps")
        quals.append(f"{s.name}/{check_name(field(m, 'attr', w), f'{w}.attr')}")
        cells = dec_box(field(m, "cells", w), f"{w}.cells").dims
        groups = [_int(g, f"{w}.groups") for g in _list(field(m, "groups", w), f"{w}.groups")]
        if len(groups) != len(cells):
            raise StepInputError(f"{w}.groups: one group per cell")
        h_cells[s.name], h_groups[s.name] = cells, groups
    subs = _subs(field(node, "subs", "pre.node"), "pre.node.subs")
    h = object.__new__(cls)
    _harness_common(h, me, schemas, mode, subs, KyraConfig(partition_attr=tuple(quals)), pre)
    h.cells, h.group_of_cell = h_cells, h_groups
    h.local = {me: {s.id: s for s in subs}}
    h.members, h.adj = {}, {}
    for i, g in enumerate(_list(field(node, "groups", "pre.node"), "pre.node.groups")):
        w = f"pre.node.groups[{i}]"
        key = (check_name(field(g, "schema", w), f"{w}.schema"), _int(field(g, "group", w), w))
        members = set(_names(field(g, "members", w), f"{w}.members"))
        nb = field(g, "neighbours", w)
        if (nb is None) == (me in members):
            raise StepInputError(f"{w}.neighbours: a list exactly when the server is a member")
        h.members[key] = members
        h.adj[key] = {} if nb is None else {me: _names(nb, f"{w}.neighbours")}
    closest = field(ctx, "closest", "pre.context")
    if not isinstance(closest, dict):
        raise StepInputError("pre.context.closest: an object")
    assert isinstance(h, _McHarness)
    h.closest = {}
    for k, v in closest.items():
        schema, _, g = k.rpartition("/")
        if not g.isdigit() or (v is not None and not isinstance(v, str)):
            raise StepInputError(f"pre.context.closest.{k}: '<schema>/<group>' -> name or null")
        h.closest[(schema, int(g))] = v
    return h, me


def _send(sys_name: str, src: str, dst: str, m: Message, seqs: Seqs) -> JSON:
    out = observation_to_json(observation_of(type_of(m), src, dst, m))
    fields = out.setdefault("fields", {})
    fields["route"] = "direct"  # every message goes to a known server (§II, §III)
    fields["message"] = enc_message(m, src, seqs)
    return out


def _op(step_input: JSON, seqs: Seqs) -> tuple[str, Any]:
    op = field(step_input, "op", "input")
    if op == "subscribe":
        sub = dec_sub(field(step_input, "sub", "input"), "input.sub")
        seqs[sub.id] = _seq(field(step_input, "seq", "input"), "input.seq")
        return op, sub
    if op == "unsubscribe":
        return op, check_name(field(step_input, "sub", "input"), "input.sub")
    if op == "publish":
        return op, dec_event(field(step_input, "event", "input"), "input.event", seqs)
    raise StepInputError(f"input.op: one of {', '.join(OPS)}")


def enc_op(op: Subscribe | Unsubscribe | Publish) -> JSON:
    """An op applied at its server (`seq`: the op's sequence number, D-OPS)."""
    if isinstance(op, Subscribe):
        return {"op": "subscribe", "sub": enc_sub(op.sub), "seq": op.seq}
    if isinstance(op, Unsubscribe):
        return {"op": "unsubscribe", "sub": op.sub_id}
    return {"op": "publish", "event": enc_event(op.event, {op.event.id: op.seq})}


HARNESS_OF: dict[str, Callable[[JSON, Any], tuple[BrokerSystem, str]]] = {
    "kyra": _kyra_harness, "siena": _siena_harness, "mcgroups": _mc_harness,
}  # fmt: skip


def run_step(system: str, pre: JSON, step_input: JSON, cls: type[BrokerSystem]) -> Outcome:
    """Apply one input (a message received or an op applied) to one server's pre-state."""
    h, me = HARNESS_OF[system](pre, cls)
    assert isinstance(h, _Capture) and isinstance(h, BrokerSystem)
    h.sent = []
    if "op" in step_input if isinstance(step_input, dict) else False:
        op, arg = _op(step_input, h.event_seq)
        if op == "subscribe" and arg.subscriber != me:
            return Outcome(invalid="a subscription is applied at its original server (§I)")
        if op == "publish" and arg.publisher != me:
            return Outcome(invalid="an event is published at its publishing server (§I)")
        own = h.subs.get(arg) if op == "unsubscribe" else None
        if op == "unsubscribe" and (own is None or not own.active or own.sub.subscriber != me):
            return Outcome(invalid="an unsubscription names an active subscription of this "
                                   "server (D-OPS)")  # fmt: skip
        if op in ("subscribe", "publish") and arg.schema not in h.schemas:
            return Outcome(invalid=f"{op}: an unknown schema")
        seq = h.event_seq.get(arg.id, 0) if op != "unsubscribe" else 0
        action: Callable[[], object] = {"subscribe": lambda: h.subscribe(arg, seq),
                  "unsubscribe": lambda: h.unsubscribe(arg),
                  "publish": lambda: h.publish(arg, seq)}[op]  # fmt: skip
    else:
        src, msg = dec_message(step_input, "input", system, h.event_seq)
        event = getattr(msg, "event", None)
        schema = event.schema if event is not None else getattr(getattr(msg, "sub", None),
                                                                  "schema", None)  # fmt: skip
        if schema is not None and schema not in h.schemas:
            return Outcome(invalid=f"{type_of(msg)}: an unknown schema")

        def action() -> object:
            return h._dispatch(Arrival(src, me, msg))

    try:
        action()
    except (KeyError, AssertionError, ValueError, TypeError) as e:
        if isinstance(e, StepInputError):
            raise
        # a message the server must refuse: for a tree it is not on, for a subscription it
        # does not hold, for a group it is not a member of (the reason names what is missing)
        return Outcome(invalid=f"{_kind(step_input)} refused: {type(e).__name__} {e}")
    post = STATE_OF[system](h, me)  # the context is unchanged: post holds the node only
    out = {"node": post["node"], "delivered": sorted([d.event_id, d.sub_id] for d in h.deliveries)}
    return Outcome(out, [_send(system, s, d, m, h.event_seq) for s, d, m in h.sent])


def _kind(step_input: JSON) -> str:
    if isinstance(step_input, dict):
        k = step_input.get("type", step_input.get("op"))
        if isinstance(k, str):
            return k
    raise StepInputError("input: `type` (a message) or `op`")


# -- candidates: every step of small simulated networks ---------------------------------------


def _named(step_input: JSON) -> list[str]:
    """The subscription ids an input names."""
    sub = step_input.get("sub")
    out = [sub if isinstance(sub, str) else sub["id"]] if sub is not None else []
    return out + list(step_input.get("subs", ()))


class Step:
    """One step of a whole run at one server: its pre-state and input, and what the whole
    network's system did (the server's post-state, deliveries and sends), to check the
    one-server harness against."""

    def __init__(self, me: str, pre: JSON, step_input: JSON) -> None:
        self.me, self.pre, self.input = me, pre, step_input
        self.post: JSON = None
        self.sent: list[JSON] = []


def _recorder(cls: type[BrokerSystem], system: str, out: list[Step]) -> Any:
    """A subclass of the system that records each step (so every step of a whole run becomes
    a candidate on one server)."""

    def state(self: BrokerSystem, me: str) -> JSON:
        return STATE_OF[system](self, me)

    class Recorder(cls):  # type: ignore[misc, valid-type]
        def _step(self, me: str, step_input: JSON, run: Callable[[], object]) -> None:
            pre = state(self, me)
            pre["context"]["status"] = _status(self, me, _named(step_input))
            step = Step(me, pre, step_input)
            out.append(step)
            before = len(self.deliveries)
            run()
            delivered = sorted([d.event_id, d.sub_id] for d in self.deliveries[before:])
            step.post = {"node": state(self, me)["node"], "delivered": delivered}

        def send(self, src: str, dst: str, msg: Message) -> None:
            out[-1].sent.append(_send(system, src, dst, msg, self.event_seq))
            super().send(src, dst, msg)

        def _dispatch(self, item: Arrival) -> str:
            got: list[str] = []
            self._step(item.dst, enc_message(item.msg, item.src, self.event_seq),
                       lambda: got.append(super(Recorder, self)._dispatch(item)))  # fmt: skip
            return got[0]

        def subscribe(self, sub: Subscription, seq: int) -> None:
            self._step(sub.subscriber, enc_op(Subscribe(seq, sub)),
                       lambda: super(Recorder, self).subscribe(sub, seq))  # fmt: skip

        def unsubscribe(self, sub_id: str) -> None:
            me = self.subs[sub_id].sub.subscriber
            self._step(me, enc_op(Unsubscribe(0, sub_id)),
                       lambda: super(Recorder, self).unsubscribe(sub_id))  # fmt: skip

        def publish(self, event: Event, seq: int) -> None:
            self._step(event.publisher, enc_op(Publish(seq, event)),
                       lambda: super(Recorder, self).publish(event, seq))  # fmt: skip

    return Recorder


def recorded(system: str, trace: Trace) -> list[Step]:
    """Every step of a run of the trace, on the whole network."""
    from pubsub_spec.reference.sim.run import run_trace

    bases: dict[str, type[BrokerSystem]] = {"kyra": KyraSystem, "siena": SienaSystem,
                                            "mcgroups": McGroupsSystem}  # fmt: skip
    base = bases[system]
    out: list[Step] = []
    run_trace(trace, _recorder(base, system, out))
    return out


def _traces(system: str) -> Iterator[tuple[str, Trace]]:
    from pubsub_spec.conformance.generators import GENERATORS

    for gen in ("uniform", "boundaries", "partial-lenient", "zipf", "degenerate"):
        for seed in (0, 1):
            yield f"{gen}-{seed}", GENERATORS[gen](seed, 0, "tiny")


def _invalid_cases(system: str, pre: JSON, me: str) -> Iterator[Case]:
    """Inputs a server must refuse, built on a recorded pre-state."""
    schema = pre["context"]["schemas"][0]["name"]
    other = f"{me}-elsewhere"
    sub = {"id": "s-foreign", "subscriber": other, "schema": schema, "predicates": []}
    ev = {"id": "e-foreign", "publisher": other, "schema": schema, "values": [], "seq": 1}
    yield Case("subscribe", "not-the-original-server", pre,
               {"op": "subscribe", "sub": sub, "seq": 1})  # fmt: skip
    yield Case("publish", "not-the-publisher", pre, {"op": "publish", "event": ev})
    yield Case("unsubscribe", "unknown-subscription", pre, {"op": "unsubscribe", "sub": "s-none"})
    if system == "kyra":
        yield Case("Notify", "unknown-subscription", pre,
                   {"type": "Notify", "from": other, "event": {**ev, "publisher": me},
                    "subs": ["s-none"]})  # fmt: skip
        yield Case("EventRoute", "unknown-tree", pre,
                   {"type": "EventRoute", "from": other, "tree": "no-such-tree",
                    "event": ev})  # fmt: skip
        yield Case("SubPropagate", "unknown-tree", pre,
                   {"type": "SubPropagate", "from": other, "tree": "no-such-tree", "sub": sub,
                    "proxy": other, "extent": [[0, 1]], "zones": []})  # fmt: skip
    if system == "mcgroups":
        yield Case("EventMulticast", "unknown-group", pre,
                   {"type": "EventMulticast", "from": other, "event": ev,
                    "group": 99999})  # fmt: skip
        yield Case("GroupJoin", "unknown-group", pre,
                   {"type": "GroupJoin", "from": other, "schema": schema, "group": 99999,
                    "server": other, "sub": "s-foreign"})  # fmt: skip


def _crafted(system: str, steps: list[Step]) -> Iterator[Case]:
    """Steps the generators' runs do not reach, made from their recorded pre-states: a
    subscription of a server outside a group it overlaps (the offline groups hold every
    server of the trace's subscriptions, K-D10), a GroupJoin of a new or an old member, a
    Notify for a subscription that has ended (K-D12)."""
    import copy

    for i, st in enumerate(steps):
        kind = _kind(st.input)
        if system == "mcgroups" and kind == "subscribe":
            schema = st.input["sub"]["schema"]
            for variant in ("graft", "firstmember"):
                pre = copy.deepcopy(st.pre)
                for g in pre["node"]["groups"]:
                    if g["schema"] != schema:
                        continue
                    g["members"] = [m for m in g["members"] if m != st.me]
                    if variant == "firstmember":
                        g["members"] = []
                    g["neighbours"] = None
                    key = f"{schema}/{g['group']}"
                    pre["context"]["closest"][key] = g["members"][0] if g["members"] else None
                yield Case("subscribe", f"{i:04d}-{variant}", pre, st.input)
        if system == "mcgroups" and kind in ("EventMulticast", "EventToGroup"):
            g = next(x for x in st.pre["node"]["groups"] if x["neighbours"] is not None)
            for who in (f"0new-{st.me}", *g["members"][:1]):  # a name before the others
                join = {"type": "GroupJoin", "from": who, "schema": g["schema"],
                        "group": g["group"], "server": who, "sub": f"s-of-{who}"}  # fmt: skip
                label = "new" if who.startswith("0new-") else "member"
                yield Case("GroupJoin", f"{i:04d}-{label}", st.pre, join)
        if system == "kyra" and kind == "EventRoute" and st.sent:
            yield Case("EventRoute", f"{i:04d}-relay", _relay(st), st.input)
        if system in ("kyra", "siena") and kind == "EventRoute":
            yield Case("EventRoute", f"{i:04d}-behind", _behind(system, st), st.input)
            for bound in ("atlo", "athi"):
                pre = _at_bound(system, st, bound)
                if pre is not None:
                    yield Case("EventRoute", f"{i:04d}-{bound}", pre, st.input)
        if system == "kyra" and kind == "Notify":
            pre = copy.deepcopy(st.pre)
            for x in pre["context"]["status"]:
                x[3] = False
            yield Case("Notify", f"{i:04d}-ended", pre, st.input)


def _behind(system: str, st: Step) -> JSON:
    """The pre-state of an EventRoute with a subscription matching every event recorded from
    the direction the event came from: it must not go back there (§II.A)."""
    import copy

    pre = copy.deepcopy(st.pre)
    event, src = st.input["event"], st.input["from"]
    schema = next(x for x in pre["context"]["schemas"] if x["name"] == event["schema"])
    sub = {"id": f"s-behind-{src}", "subscriber": src, "schema": schema["name"], "predicates": []}
    if system == "siena":
        attr = pre["context"]["partition"][schema["name"]]
        a = next(x for x in schema["attributes"] if x["name"] == attr)
        entry = {"sub": sub, "origin": src, "extent": [[a["min"], a["max"]]]}
        table = pre["node"]["table"]
    else:
        names = pre["context"]["layouts"][schema["name"]]["attrs"]
        extent = [[a["min"], a["max"]] for n in names for a in schema["attributes"]
                  if a["name"] == n]  # fmt: skip
        entry = {"sub": sub, "proxy": src, "extent": extent, "zones": []}
        table = pre["node"]["tables"].setdefault(st.input["tree"], {})
    origin = "origin" if system == "siena" else "proxy"
    table[src] = sorted([*table.get(src, []), entry], key=lambda e: (e["sub"]["id"], e[origin]))
    return pre


def _at_bound(system: str, st: Step, bound: str) -> JSON:
    """The pre-state of an EventRoute whose first forward is owed to one entry only, a
    subscription whose range on the partition attribute starts (`atlo`) or ends (`athi`) at
    the event's value: closed ranges, the event goes there (§II.A; K-D6)."""
    import copy

    if not st.sent:
        return None
    pre = copy.deepcopy(st.pre)
    event, to = st.input["event"], st.sent[0]["to"]
    schema = next(x for x in pre["context"]["schemas"] if x["name"] == event["schema"])
    if system == "siena":
        attr = pre["context"]["partition"][schema["name"]]
        table = pre["node"]["table"]
    else:
        attr = pre["context"]["layouts"][schema["name"]]["attrs"][0]
        table = pre["node"]["tables"].get(st.input["tree"], {})
    value = dict((n, v) for n, v in event["values"]).get(attr)
    a = next(x for x in schema["attributes"] if x["name"] == attr)
    if value is None or not table.get(to):
        return None
    lo, hi = (value, a["max"]) if bound == "atlo" else (a["min"], value)
    sub = {"id": f"s-{bound}", "subscriber": to, "schema": schema["name"],
           "predicates": [[attr, lo, hi]]}  # fmt: skip
    entry = {**table[to][0], "sub": sub, "extent": [[lo, hi], *table[to][0]["extent"][1:]]}
    entry["origin" if system == "siena" else "proxy"] = to
    if system == "kyra":
        entry["zones"] = []  # the entry's own zone restriction (K-D4) aside
    table[to] = [entry]
    return pre


def _relay(st: Step) -> JSON:
    """The pre-state of a Kyra EventRoute with the server's clique split in two: the server's
    zone stops below the event's key, a second member (`<name>-peer`) holds the rest, so the
    server is a relay on the covering tree (§III: it forwards, and matches nothing)."""
    import copy

    pre = copy.deepcopy(st.pre)
    event = st.input["event"]
    lay = pre["context"]["layouts"][event["schema"]]
    schema = next(x for x in pre["context"]["schemas"] if x["name"] == event["schema"])
    attr = next(a for a in schema["attributes"] if a["name"] == lay["attrs"][0])
    key = dict((n, v) for n, v in event["values"]).get(attr["name"], attr["min"])
    zone = lay["zones"][st.me]
    lo, hi, closed = zone[0]
    peer = f"{st.me}-peer"
    mine, theirs = ([lo, key, False], [key, hi, closed]) if key > lo else ([lo, lo, False], zone[0])
    lay["zones"][st.me] = [mine, *zone[1:]]
    lay["zones"][peer] = [theirs, *zone[1:]]
    for other in pre["context"]["layouts"].values():
        if other is not lay:
            other["zones"][peer] = other["zones"][st.me]
    pre["context"]["clique"] = sorted([*pre["context"]["clique"], peer])
    return pre


def candidates(system: str) -> Iterator[Case]:
    """Every step of runs of the conformance generators' tiny traces (each on a fresh
    network; every random choice is the generators' and the systems' seeded ones), then the
    refused inputs."""
    from pubsub_spec.reference.kyra.info import INFOS
    from pubsub_spec.reference.sim.system import missing_features

    info = next(i for i in INFOS if i.name == system)
    first: tuple[JSON, str] | None = None
    for label, trace in _traces(system):
        if missing_features(trace, info.features) is not None:
            continue
        steps = recorded(system, trace)
        for i, step in enumerate(steps):
            if first is None:
                first = (step.pre, step.me)
            yield Case(_kind(step.input), f"{label}-{i:04d}", step.pre, step.input)
        for case in _crafted(system, steps):
            yield Case(case.handler, f"{label}-{case.name}", case.pre, case.input)
    if first is not None:
        yield from _invalid_cases(system, first[0], first[1])


# -- the systems' part of the framework --------------------------------------------------------

KYRA_HANDLERS = (
    Handler("subscribe", "Kyra §III (subscription movement)",
            "the original server moves the subscription to every member of its clique whose "
            "zone overlaps it (SubMove, to itself included)"),
    Handler("unsubscribe", "Kyra §III; decision K-D11",
            "the original server sends UnsubMove to the same proxies"),
    Handler("publish", "Kyra §III",
            "the publisher sends the event to the member of its clique whose zone covers it "
            "(EventToZone)"),
    Handler("SubMove", "Kyra §III; decision K-D4",
            "the proxy stores s ∩ Z_z and broadcasts the entry s ∩ Z_z ∩ Y_t on each tree t "
            "it joins where the entry is not empty"),
    Handler("UnsubMove", "Kyra §III; decision K-D11",
            "the proxy drops the subscription and broadcasts the removal of its entries"),
    Handler("SubPropagate", "Kyra §III with §II.A (each tree a filter-based network)",
            "the entry recorded under the direction it came from and passed on to the other "
            "neighbours on the tree"),
    Handler("UnsubPropagate", "Kyra §II.A; decision K-D11",
            "the entry removed from that direction and the removal passed on"),
    Handler("EventToZone", "Kyra §III",
            "the covering member routes the event on the tree whose zone covers it"),
    Handler("EventRoute", "Kyra §III with §II.A; decision K-D5",
            "a server on the covering tree matches its proxy subscriptions when its zone "
            "covers the event (delivering or sending Notify to their original servers), and "
            "forwards toward neighbours with an admitting entry, never back"),
    Handler("Notify", "decision K-D5",
            "the original server delivers the matched subscriptions it holds"),
)  # fmt: skip
SIENA_HANDLERS = (
    Handler("subscribe", "Kyra §II.A (Siena)",
            "the subscription stored at its server and broadcast over the server tree"),
    Handler("unsubscribe", "Kyra §II.A; decision K-D11",
            "the subscription removed and its removal broadcast likewise"),
    Handler("publish", "Kyra §II.A",
            "the publisher matches its own subscriptions and forwards toward neighbours with "
            "a matching filter"),
    Handler("SubPropagate", "Kyra §II.A",
            "the filter recorded under the direction it came from, passed on to every other "
            "neighbour"),
    Handler("UnsubPropagate", "Kyra §II.A; decision K-D11",
            "the filter removed from that direction, the removal passed on"),
    Handler("EventRoute", "Kyra §II.A",
            "match the local subscriptions, forward toward matching directions, never back"),
)  # fmt: skip
MCGROUPS_HANDLERS = (
    Handler("subscribe", "Kyra §II.B; decision K-D10",
            "the subscription stored; for each group it overlaps where its server is not a "
            "member, a GroupJoin to the closest member (or the server becomes the first)"),
    Handler("unsubscribe", "Kyra §II.B",
            "the subscription removed; the server stays a member (the groups are offline)"),
    Handler("publish", "Kyra §II.B; decision K-D10",
            "a member multicasts the event on its group's tree; a non-member sends it to the "
            "closest member (EventToGroup)"),
    Handler("GroupJoin", "decision K-D10",
            "a new member grafted onto the group's tree as a leaf of the receiving member"),
    Handler("EventToGroup", "Kyra §II.B; decision K-D10",
            "the member multicasts the event on the group's tree"),
    Handler("EventMulticast", "Kyra §II.B",
            "every member matches its own subscriptions and passes the event on, never back"),
)  # fmt: skip


class _BrokerSteps(StepSystem):
    base: type[BrokerSystem]
    harness: type[BrokerSystem]
    paper = PAPER

    def __init__(self, variant: type[BrokerSystem] | None = None) -> None:
        """`variant`: a subclass of the reference system (a mutant) whose handlers run."""
        self.cls = self.harness
        if variant is not None:
            self.cls = type(f"_Harness{variant.__name__}", (_Capture, variant), {})
            if self.harness is _McHarness:
                self.cls = type(f"_Harness{variant.__name__}", (_McHarness, variant), {})

    def handler_of(self, step_input: JSON) -> str:
        return _kind(step_input)

    def apply(self, pre: JSON, step_input: JSON) -> Outcome:
        return run_step(self.name, pre, step_input, self.cls)

    def candidates(self) -> Iterator[Case]:
        return candidates(self.name)

    def schema(self) -> dict[str, JSON]:
        from pubsub_spec.conformance.steps.kyra_schema import schema

        return schema(self.name)

    def roundtrip(self, document: str, value: JSON) -> JSON:
        if document == "input":
            if "op" in value:
                seqs: Seqs = {}
                op, arg = _op(value, seqs)
                if op == "subscribe":
                    return enc_op(Subscribe(seqs[arg.id], arg))
                if op == "unsubscribe":
                    return enc_op(Unsubscribe(0, arg))
                return enc_op(Publish(seqs[arg.id], arg))
            seqs = {}
            src, msg = dec_message(value, "input", self.name, seqs)
            return enc_message(msg, src, seqs)
        node = node_roundtrip(self.name, field(value, "node", document))
        if document == "pre":
            h, me = HARNESS_OF[self.name](value, self.harness)
            ctx = STATE_OF[self.name](h, me)["context"]
            status = field(value["context"], "status", "pre.context")
            ctx["status"] = [list(x) for x in _dec_status(status, "pre.context.status")]
            return {"node": node, "context": ctx}
        return {
            "node": node,
            "delivered": [
                [check_name(e, "event"), check_name(s, "sub")]
                for e, s in field(value, "delivered", document)
            ],
        }


def node_roundtrip(system: str, v: JSON) -> JSON:
    """A server's state decoded and encoded again, without its context."""
    subs = _subs(field(v, "subs", "node"), "node.subs")
    out: dict[str, JSON] = {"name": check_name(field(v, "name", "node"), "node.name"),
                            "subs": _enc_subs(subs)}  # fmt: skip
    if system == "kyra":
        out["proxy"] = [enc_sub(x) for x in _subs(field(v, "proxy", "node"), "node.proxy", False)]
        tabs = field(v, "tables", "node")
        if not isinstance(tabs, dict):
            raise StepInputError("node.tables: an object")
        out["tables"] = {t: enc_table(dec_table(x, "proxy", f"node.tables.{t}"), "proxy")
                         for t, x in sorted(tabs.items())}  # fmt: skip
    elif system == "siena":
        out["table"] = enc_table(dec_table(field(v, "table", "node"), "origin", "node.table"),
                                 "origin")  # fmt: skip
    else:
        groups = []
        for i, g in enumerate(_list(field(v, "groups", "node"), "node.groups")):
            w = f"node.groups[{i}]"
            nb = field(g, "neighbours", w)
            groups.append({"schema": check_name(field(g, "schema", w), w),
                           "group": _int(field(g, "group", w), w),
                           "members": sorted(_names(field(g, "members", w), w)),
                           "neighbours": None if nb is None else _names(nb, w)})  # fmt: skip
        out["groups"] = groups
    return out


class KyraSteps(_BrokerSteps):
    name = "kyra"
    base = KyraSystem
    harness = _KyraHarness
    handlers = KYRA_HANDLERS

    def candidates(self) -> Iterator[Case]:
        yield from candidates(self.name)
        if kyra_model.available():  # every distinct one-server (state, action) of MCKyraRouting
            yield from kyra_model.cases(self.apply)

    def keep(self, case: Case) -> bool:
        return case.name.startswith("model-")
    coverage = (
        ("reference/kyra/system.py", ("subscribe", "unsubscribe", "publish", "handle",
                                      "_on_sub_move", "_on_propagate", "_route",
                                      "proxies_for", "covering_tree", "covering_server",
                                      "table")),
        ("reference/kyra/filters.py", ("nonempty", "admits", "_common", "forward_to",
                                       "add", "remove")),
        ("reference/kyra/base.py", ("deliver", "local_matches")),
    )  # fmt: skip


class SienaSteps(_BrokerSteps):
    name = "siena"
    base = SienaSystem
    harness = _SienaHarness
    handlers = SIENA_HANDLERS
    coverage = (
        ("reference/kyra/siena.py", ("subscribe", "unsubscribe", "publish", "handle", "_route",
                                     "_filter")),
        ("reference/kyra/filters.py", ("admits", "forward_to", "add", "remove")),
    )  # fmt: skip


class McGroupsSteps(_BrokerSteps):
    name = "mcgroups"
    base = McGroupsSystem
    harness = _McHarness
    handlers = MCGROUPS_HANDLERS
    coverage = (
        ("reference/kyra/mcgroups.py", ("subscribe", "unsubscribe", "publish", "handle",
                                        "_multicast", "groups_of", "group_of", "_cells_of")),
    )  # fmt: skip


SYSTEMS: dict[str, StepSystem] = {"kyra": KyraSteps(), "siena": SienaSteps(),
                                  "mcgroups": McGroupsSteps()}  # fmt: skip
SYSTEM = SYSTEMS["kyra"]
