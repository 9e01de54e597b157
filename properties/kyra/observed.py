"""TLA+ trace validation of observed Kyra runs (conformance/OBSERVATIONS.md, "kyra, siena,
mcgroups", `kyra`): the observations an implementation reports, the built-in's or an outside
program's, are turned into the record of properties/kyra/trace_export.py (`KyraRun`: the same
constants, variables and state shape) and validated against spec/kyra/KyraRouting.tla by the
same module (`validate_kyra`), built from the log alone.

- Constants: `Clique`, `Zone` from the `zone` states, `Y`, `Adj` from the `tree-join` states
  (trees numbered in the order the log first names them; a zone [lo, hi, closed] is the keys
  lo <= k < hi, and k = hi when closed); `Orig`, `Ext`, `Pub`, `Key` from the trace, servers,
  subscriptions and events numbered as the map numbers them (trace order).
- Variables: `started`, `unsubbed`, `published`, `subAt` (the subscriptions started and not
  unsubscribed) and `activeAt` (those with no SubMove or SubPropagate in flight) from the ops;
  `proxy` from `proxy-store` / `proxy-remove`, `tab` from `filter-add` / `filter-remove`; `msgs`
  from the sends (SubMove "move", SubPropagate "prop", EventToZone "zone" on the covering tree,
  EventRoute "route", Notify "notify"); `dcount` from the Notifies handled and the deliveries
  the run reports that no Notify carried (a proxy that is the subscription's original server
  delivers without one: counted at its handling of the event).
- Steps (one handler is one spec step, as in trace_export.py): Init; each op where the log
  shows it (a subscribe before the first observation of its subscription, its SubMove sends
  being the step's; a publish before the first observation of its event, or after the other
  observations of its op; an unsubscription, at quiescence, is one step from its first
  observation to the next op's); each handling: a `proxy-store` of s at z with the
  SubPropagates z sends (consumes the SubMove of s to z), a `filter-add` with the SubPropagates
  it passes on (consumes that SubPropagate), a run of Notify and EventRoute sends of one event
  at one server (consumes the event's EventToZone or EventRoute to it, the first sent). Messages
  to oneself are not reported (OBSERVATIONS.md): a subscription whose original server's zone
  overlaps it moves to that server, a publication whose publisher's zone covers its key goes to
  the publisher, both in flight as in the spec. A message no block consumes (every Notify, an
  event reaching a server that forwards and notifies nothing) was handled silently, one step
  right after the step that sent it. So the states may differ from `KyraTraceSystem`'s in where
  such a handling stands (tests/test_observations_kyra_tla.py compares them); the spec admits
  any order of handling, and tables only grow between unsubscriptions, so a handling silent
  where it happened is silent earlier too. Any other observation is a step of its own that
  consumes nothing. Messages form a set, as in the spec: a message sent twice, or an entry
  recorded twice, is one (the protocol rules count sends; conformance/protocol_rules/kyra.py).

A step the log implies and the spec forbids (an EventRoute on a non-covering tree or toward a
direction with no admitting entry, a filter-add with no SubPropagate in flight, a SubMove whose
proxy never stores) makes the record no behaviour: tla-checker names the recorded step.

Runs outside the map's bound are not validated (`validate_observed` returns None; `fits` names
the bound): the claim is not `kyra`, a join, leave or fail op (K-D13: no churn), not one schema
with one int attribute on the map's keys 0..5 in strict matching, a subscription without an
integer range on it or an event without an integer value, no subscription or no publication,
or more servers, subscriptions or publications than tla-checker is given here. A log that the
map cannot read (no layout, a name outside the trace) gives a record with its `problem` set and
no validation.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from pubsub_spec.conformance.protocol_rules.base import ObservedRun
from pubsub_spec.properties.kyra.trace_export import KEYS, KyraRun, validate_kyra
from pubsub_spec.properties.thesis.tree_trace import Rec
from pubsub_spec.properties.tracecheck import TlaValue, Validation
from pubsub_spec.reference.common.ops import (
    Op,
    Publish,
    Subscribe,
    Unsubscribe,
    initial_node_names,
)
from pubsub_spec.reference.sim.observe import Observation

MAX_SERVERS = 8
MAX_SUBS = 8
MAX_EVENTS = 8
LAYOUT = ("zone", "tree-join")
UNSUB = ("UnsubMove", "UnsubPropagate", "proxy-remove", "filter-remove")
Msg = tuple[str, int, int, int, int, int, int, frozenset[int]]  # t from to tree s p e subs


def fits(run: ObservedRun) -> str | None:
    """None when the run is inside the map's bound, else the bound it breaks (module doc)."""
    if run.system != "kyra":
        return f"system {run.system!r} is not kyra"
    trace = run.trace
    if any(not isinstance(op, (Subscribe, Unsubscribe, Publish)) for op in trace.ops):
        return "no churn (no join, leave or fail op; K-D13)"
    if trace.matching != "strict":
        return "strict matching only"
    attrs = trace.schemas[0].attributes if len(trace.schemas) == 1 else ()
    if len(attrs) != 1 or attrs[0].type != "int" or (attrs[0].min, attrs[0].max) != (0, KEYS - 1):
        return f"one schema with one int attribute on 0..{KEYS - 1} (the map's keys)"
    a = attrs[0].name
    subs = [op.sub for op in trace.ops if isinstance(op, Subscribe)]
    events = [op.event for op in trace.ops if isinstance(op, Publish)]
    if not subs or not events:
        return "at least one subscription and one publication"
    if trace.initial_nodes > MAX_SERVERS or len(subs) > MAX_SUBS or len(events) > MAX_EVENTS:
        return (
            f"at most {MAX_SERVERS} servers, {MAX_SUBS} subscriptions and {MAX_EVENTS} publications"
        )
    for s in subs:
        p = s.predicate(a)
        if p is None or len(s.predicates) != 1 or not _ints(p.lo, p.hi):
            return f"subscription {s.id}: one integer range on {a}"
    for e in events:
        if len(e.values) != 1 or not _ints(e.value(a)):
            return f"event {e.id}: one integer value of {a}"
    return None


def _ints(*xs: object) -> bool:
    return all(isinstance(x, int) and not isinstance(x, bool) for x in xs)


class _Unreadable(Exception):
    """The log leaves the map (module doc): the record's `problem`."""


def _keys(zone: object, where: str) -> frozenset[int]:
    """The keys of a zone [lo, hi, closed] (OBSERVATIONS.md, "Zones and keys")."""
    if not (isinstance(zone, list) and len(zone) == 3 and isinstance(zone[2], bool)):
        raise _Unreadable(f"{where}: zone {zone!r} is not [lo, hi, closed]")
    lo, hi, closed = zone
    if not all(isinstance(x, (int, float)) for x in (lo, hi)):
        raise _Unreadable(f"{where}: zone {zone!r} is not [lo, hi, closed]")
    return frozenset(k for k in range(KEYS) if lo <= k < hi or (closed and k == hi))


@dataclass
class _Layout:
    """The constants of the run (module doc) and the names they number."""

    num: dict[str, int]
    trees: dict[str, int] = field(default_factory=dict)
    subs: dict[str, int] = field(default_factory=dict)
    events: dict[str, int] = field(default_factory=dict)
    clique: list[frozenset[int]] = field(default_factory=list)  # per server, from 1
    zone: list[frozenset[int]] = field(default_factory=list)
    y: list[frozenset[int]] = field(default_factory=list)  # per tree, from 1
    adj: list[tuple[frozenset[int], ...]] = field(default_factory=list)
    orig: list[int] = field(default_factory=list)  # per subscription, from 1
    ext: list[frozenset[int]] = field(default_factory=list)
    pub: list[int] = field(default_factory=list)  # per event, from 1
    key: list[int] = field(default_factory=list)

    def constants(self) -> dict[str, TlaValue]:
        return {
            "Clique": tuple(self.clique),
            "Zone": tuple(self.zone),
            "Y": tuple(self.y),
            "Adj": tuple(self.adj),
            "Orig": tuple(self.orig),
            "Ext": tuple(self.ext),
            "Pub": tuple(self.pub),
            "Key": tuple(self.key),
        }

    def node(self, name: object, where: str) -> int:
        if not isinstance(name, str) or name not in self.num:
            raise _Unreadable(f"{where} names {name!r}, not a server of the trace")
        return self.num[name]

    def tree(self, name: object, where: str) -> int:
        if not isinstance(name, str) or name not in self.trees:
            raise _Unreadable(f"{where} names tree {name!r}, which no tree-join reports")
        return self.trees[name]

    def sub(self, name: object, where: str) -> int:
        if not isinstance(name, str) or name not in self.subs:
            raise _Unreadable(f"{where} names {name!r}, not a subscription of the trace")
        return self.subs[name]

    def event(self, name: object, where: str) -> int:
        if not isinstance(name, str) or name not in self.events:
            raise _Unreadable(f"{where} names {name!r}, not an event of the trace")
        return self.events[name]

    def covering_server(self, n: int, key: int) -> int:
        """Kyra §III: the member of n's clique whose zone covers the key (0: none)."""
        return next((z for z in sorted(self.clique[n - 1]) if key in self.zone[z - 1]), 0)

    def covering_tree(self, key: int) -> int:
        """Kyra §III: the tree whose zone covers the key (0: none)."""
        return next((t for t, y in enumerate(self.y, 1) if key in y), 0)

    def proxies(self, s: int) -> frozenset[int]:
        """Kyra §III, subscription movement: the members of the original server's clique whose
        zone overlaps the subscription."""
        clique = self.clique[self.orig[s - 1] - 1]
        return frozenset(z for z in clique if self.ext[s - 1] & self.zone[z - 1])


def _layout(run: ObservedRun) -> _Layout:
    trace = run.trace
    servers = initial_node_names(trace.initial_nodes)
    lay = _Layout({s: i for i, s in enumerate(servers, 1)})
    attr = trace.schemas[0].attributes[0].name
    zones: dict[int, frozenset[int]] = {}
    cliques: dict[int, frozenset[int]] = {}
    y: dict[int, frozenset[int]] = {}
    adj: dict[tuple[int, int], frozenset[int]] = {}
    for k, o in enumerate(run.log):
        ob, where = o.obs, f"observation {k} ({o.obs.name})"
        if ob.kind != "state" or ob.name not in LAYOUT:
            continue
        n = lay.node(ob.node, where)
        f = ob.fields
        if ob.name == "zone":
            if f.get("attr") != attr:
                raise _Unreadable(f"{where}: partition attribute {f.get('attr')!r}, not {attr!r}")
            members = f.get("clique")
            if not isinstance(members, list):
                raise _Unreadable(f"{where}: clique {members!r} is not a list")
            zones[n] = _keys(f.get("zone"), where)
            cliques[n] = frozenset(lay.node(m, where) for m in members)
        else:
            t = lay.trees.setdefault(str(f.get("tree")), len(lay.trees) + 1)
            zone = _keys(f.get("zone"), where)
            if y.setdefault(t, zone) != zone:
                raise _Unreadable(f"{where}: tree {f.get('tree')!r} reported with two zones")
            nbrs = f.get("neighbours")
            if not isinstance(nbrs, list):
                raise _Unreadable(f"{where}: neighbours {nbrs!r} is not a list")
            adj[(t, n)] = frozenset(lay.node(m, where) for m in nbrs)
    missing = [s for s in servers if lay.num[s] not in zones]
    if missing:
        raise _Unreadable(f"no zone observed for {missing[0]}")
    if not lay.trees:
        raise _Unreadable("no tree-join observed")
    ns = range(1, len(servers) + 1)
    ts = range(1, len(lay.trees) + 1)
    lay.clique = [cliques[n] for n in ns]
    lay.zone = [zones[n] for n in ns]
    lay.y = [y[t] for t in ts]
    lay.adj = [tuple(adj.get((t, n), frozenset()) for n in ns) for t in ts]
    for op in trace.ops:
        if isinstance(op, Subscribe):
            s = op.sub
            lay.subs[s.id] = len(lay.subs) + 1
            lay.orig.append(lay.node(s.subscriber, f"subscription {s.id}"))
            lo, hi = s.predicates[0].lo, s.predicates[0].hi
            assert isinstance(lo, int) and isinstance(hi, int)  # fits
            lay.ext.append(frozenset(range(max(lo, 0), min(hi, KEYS - 1) + 1)))
        elif isinstance(op, Publish):
            e = op.event
            lay.events[e.id] = len(lay.events) + 1
            lay.pub.append(lay.node(e.publisher, f"event {e.id}"))
            lay.key.append(int(e.values[0][1]))
    return lay


@dataclass
class _Step:
    """One recorded step: an op, a handling block, or an observation that is neither."""

    node: str
    obs: list[tuple[int, Observation]]
    op: Op | None = None
    sends: list[int] = field(default_factory=list)  # ids of the messages it sends
    takes: int | None = None  # id of the message it consumes


def _op_positions(run: ObservedRun) -> list[tuple[int, Op]]:
    """Where each op stands in the log (module doc), in op order."""
    log = run.log
    out: list[tuple[int, Op]] = []
    last = 0
    for op in run.trace.ops:
        k = op.seq
        first = next((i for i, o in enumerate(log) if o.seq >= k), len(log))
        nxt = next((i for i, o in enumerate(log) if o.seq > k), len(log))
        if isinstance(op, Subscribe):
            at = next((i for i in range(first, len(log)) if log[i].obs.sub == op.sub.id), nxt)
        elif isinstance(op, Publish):
            eid = op.event.id
            at = next((i for i in range(first, nxt) if log[i].obs.event == eid), nxt)
        else:
            assert isinstance(op, Unsubscribe)
            at = next(
                (
                    i
                    for i in range(first, nxt)
                    if log[i].obs.sub == op.sub_id and log[i].obs.name in UNSUB
                ),
                nxt,
            )
        last = max(last, at)
        out.append((last, op))
    return out


def _blocks(run: ObservedRun) -> list[_Step]:
    """The steps of the log in order: ops where they stand, handlings between (module doc)."""
    log = run.log
    ops = _op_positions(run)
    ends = [at for at, _ in ops[1:]] + [len(log)]
    steps: list[_Step] = []
    i = 0

    def handlings(upto: int) -> None:
        nonlocal i
        while i < upto:
            k, ob = i, log[i].obs
            i += 1
            if ob.kind == "state" and ob.name in LAYOUT:
                continue
            cur = steps[-1] if steps and steps[-1].op is None and steps[-1].obs else None
            if cur is not None and cur.node == ob.node and _continues(cur.obs[0][1], ob):
                cur.obs.append((k, ob))
            else:
                steps.append(_Step(ob.node, [(k, ob)]))

    for (at, op), end in zip(ops, ends, strict=True):
        handlings(at)
        step = _Step("", [], op)
        steps.append(step)
        while i < len(log) and _in_op(op, log[i].obs, end, i):
            if not (log[i].obs.kind == "state" and log[i].obs.name in LAYOUT):
                step.obs.append((i, log[i].obs))
            i += 1
    handlings(len(log))
    return [s for s in steps if s.op is not None or s.obs]


def _in_op(op: Op, ob: Observation, end: int, i: int) -> bool:
    """Whether the observation at i belongs to the op's own step (module doc)."""
    if ob.kind == "state" and ob.name in LAYOUT:
        return True
    if isinstance(op, Subscribe):
        return ob.kind == "send" and ob.name == "SubMove" and ob.sub == op.sub.id
    if isinstance(op, Publish):
        return ob.kind == "send" and ob.name == "EventToZone" and ob.event == op.event.id
    return i < end  # an unsubscription: everything until the next op (quiescence)


def _continues(head: Observation, ob: Observation) -> bool:
    """Whether `ob` continues the handling that `head` (at the same server) begins."""
    if ob.kind != "send":
        return False
    f, h = ob.fields, head.fields
    if head.name == "proxy-store":
        return ob.name == "SubPropagate" and ob.sub == head.sub and f.get("proxy") == head.node
    if head.name == "filter-add":
        return (
            ob.name == "SubPropagate"
            and ob.sub == head.sub
            and (f.get("tree"), f.get("proxy")) == (h.get("tree"), h.get("proxy"))
        )
    if head.kind == "send" and head.name in ("Notify", "EventRoute"):
        return ob.name in ("Notify", "EventRoute") and ob.event == head.event
    return False


class _Record:
    """The variables as the log tells them (module doc), one snapshot per step."""

    def __init__(self, lay: _Layout, run: ObservedRun) -> None:
        self.lay = lay
        self.n = len(lay.num)
        self.nt = len(lay.trees)
        self.ne = len(lay.events)
        self.started: set[int] = set()
        self.unsubbed: set[int] = set()
        self.proxy: dict[int, set[int]] = {}
        self.tab: dict[tuple[int, int], set[tuple[int, int, int]]] = {}
        self.msgs: dict[int, Msg] = {}
        self.published: set[int] = set()
        self.sub_at: dict[int, frozenset[int]] = {}
        self.active_at: dict[int, frozenset[int]] = {}
        self.dcount: Counter[tuple[int, int]] = Counter()
        self.states: list[dict[str, TlaValue]] = []
        self.steps: list[str] = []  # what made each recorded state (the step tla-checker names)
        # deliveries no Notify carried: made at the original server's handling of the event
        notified: Counter[tuple[int, int]] = Counter()
        for k, o in enumerate(run.log):
            if o.obs.kind == "send" and o.obs.name == "Notify":
                e = lay.event(o.obs.event, f"observation {k} (Notify)")
                for s in self._subs(o.obs.fields.get("subs"), f"observation {k} (Notify)"):
                    notified[(e, s)] += 1
        self.local: Counter[tuple[int, int]] = Counter()
        for d in run.deliveries:
            q = (lay.event(d.event_id, "a delivery"), lay.sub(d.sub_id, "a delivery"))
            self.local[q] += 1
        self.local -= notified  # keeps the positive counts only
        self.snapshot("Init")

    def _subs(self, ids: object, where: str) -> frozenset[int]:
        if not isinstance(ids, list):
            raise _Unreadable(f"{where}: subs {ids!r} is not a list")
        return frozenset(self.lay.sub(i, where) for i in ids)

    def snapshot(self, step: str) -> None:
        events = range(1, self.ne + 1)
        s: dict[str, TlaValue] = {
            "started": frozenset(self.started),
            "unsubbed": frozenset(self.unsubbed),
            "proxy": tuple(frozenset(self.proxy.get(n, ())) for n in range(1, self.n + 1)),
            "tab": tuple(
                tuple(frozenset(self.tab.get((t, n), ())) for n in range(1, self.n + 1))
                for t in range(1, self.nt + 1)
            ),
            "msgs": frozenset(_rec(m) for m in self.msgs.values()),
            "published": frozenset(self.published),
            "subAt": tuple(self.sub_at.get(j, frozenset()) for j in events),
            "activeAt": tuple(self.active_at.get(j, frozenset()) for j in events),
            "dcount": frozenset((q, min(2, c)) for q, c in self.dcount.items() if c),
        }
        if not self.states or self.states[-1] != s:
            self.states.append(s)
            self.steps.append(step)

    # -- what an observation says -----------------------------------------------------------
    def message(self, k: int, ob: Observation) -> Msg | None:
        """The spec message of a send observation (None: not one the spec has in flight)."""
        lay, where = self.lay, f"observation {k} ({ob.name})"
        f = ob.fields
        frm = lay.node(ob.node, where)
        to = lay.node(ob.to, where)
        if ob.name == "SubMove":
            return ("move", frm, to, 0, lay.sub(ob.sub, where), 0, 0, frozenset())
        if ob.name == "SubPropagate":
            s, p = lay.sub(ob.sub, where), lay.node(f.get("proxy"), where)
            return ("prop", frm, to, lay.tree(f.get("tree"), where), s, p, 0, frozenset())
        if ob.name == "EventToZone":
            e = lay.event(ob.event, where)
            return ("zone", frm, to, lay.covering_tree(lay.key[e - 1]), 0, 0, e, frozenset())
        if ob.name == "EventRoute":
            e = lay.event(ob.event, where)
            return ("route", frm, to, lay.tree(f.get("tree"), where), 0, 0, e, frozenset())
        if ob.name == "Notify":
            e = lay.event(ob.event, where)
            return ("notify", frm, to, 0, 0, 0, e, self._subs(f.get("subs"), where))
        return None

    def change(self, k: int, ob: Observation) -> None:
        """A state observation's change of `proxy` or `tab`."""
        lay, where, f = self.lay, f"observation {k} ({ob.name})", ob.fields
        n = lay.node(ob.node, where)
        if ob.name in ("proxy-store", "proxy-remove"):
            s = lay.sub(ob.sub, where)
            if ob.name == "proxy-store":
                self.proxy.setdefault(n, set()).add(s)
            else:
                self.proxy.get(n, set()).discard(s)
        elif ob.name in ("filter-add", "filter-remove"):
            entry = (lay.node(f.get("direction"), where), lay.sub(ob.sub, where),
                     lay.node(f.get("proxy"), where))  # fmt: skip
            t = lay.tree(f.get("tree"), where)
            if ob.name == "filter-add":
                self.tab.setdefault((t, n), set()).add(entry)
            else:
                self.tab.get((t, n), set()).discard(entry)

    def handled(self, m: Msg) -> None:
        """The effect of handling m besides its sends: the deliveries it makes."""
        t, _, to, _, _, _, e, subs = m
        if t == "notify":  # RecvNotify: the original server delivers what is still subscribed
            for s in subs - self.unsubbed:
                self.dcount[(e, s)] += 1
        elif t in ("zone", "route"):  # Route: a proxy that is the original server delivers
            orig = self.lay.orig
            for q in [q for q in self.local if q[0] == e and orig[q[1] - 1] == to]:
                self.dcount[q] += self.local.pop(q)


def _rec(m: Msg) -> TlaValue:
    t, frm, to, tree, s, p, e, subs = m
    return Rec(t=t, **{"from": frm}, to=to, tree=tree, s=s, p=p, e=e, subs=subs)


def _wants(ob: Observation) -> Iterable[tuple[str, ...]]:
    """What a block's head observation consumes, as match keys (module doc)."""
    if ob.name == "proxy-store":
        yield ("move", ob.node, str(ob.sub))
    elif ob.name == "filter-add":
        f = ob.fields
        yield ("prop", ob.node, str(ob.sub), str(f.get("tree")), str(f.get("direction")),
               str(f.get("proxy")))  # fmt: skip
    elif ob.kind == "send" and ob.name in ("Notify", "EventRoute"):
        yield ("event", ob.node, str(ob.event))


def _key_of(m: Msg, lay: _Layout) -> tuple[str, ...]:
    names = {v: k for k, v in lay.num.items()}
    trees = {v: k for k, v in lay.trees.items()}
    subs = {v: k for k, v in lay.subs.items()}
    events = {v: k for k, v in lay.events.items()}
    t, frm, to, tree, s, p, e, _ = m
    if t == "move":
        return ("move", names[to], subs[s])
    if t == "prop":
        return ("prop", names[to], subs[s], trees[tree], names[frm], names[p])
    if t in ("zone", "route"):
        return ("event", names[to], events[e])
    return ("notify",)


def observed_kyra_run(run: ObservedRun) -> KyraRun:
    """The record of a run inside the bound (module doc); `problem` names what the map cannot
    read."""
    return observed_steps(run)[0]


def observed_steps(run: ObservedRun) -> tuple[KyraRun, list[str]]:
    """The record and, per recorded state, the step that made it: "Init", an op, the head
    observation of a handling (its index in the log), or a message handled silently."""
    try:
        return _observed(run)
    except _Unreadable as exc:
        return KyraRun(run.trace, [], {}, run.trace.initial_nodes, 0, frozenset(), str(exc)), []


def _label(step: _Step) -> str:
    op = step.op
    if isinstance(op, Subscribe):
        return f"op {op.seq}: subscribe {op.sub.id}"
    if isinstance(op, Publish):
        return f"op {op.seq}: publish {op.event.id}"
    if isinstance(op, Unsubscribe):
        return f"op {op.seq}: unsubscribe {op.sub_id}"
    k, ob = step.obs[0]
    what = ob.sub or ob.event or ""
    return f"observation {k}: {ob.kind} {ob.name} {what} at {ob.node}".replace("  ", " ")


def _observed(run: ObservedRun) -> tuple[KyraRun, list[str]]:
    lay = _layout(run)
    rec = _Record(lay, run)
    steps = _blocks(run)
    # pass 1: the messages each step sends (self-messages inferred), each block's consumption
    sent: list[Msg] = []
    flight: list[int] = []
    for step in steps:
        op = step.op
        for k, ob in step.obs:  # an unsubscription's own messages are not in flight
            m = rec.message(k, ob) if ob.kind == "send" else None
            if m is not None:
                step.sends.append(len(sent))
                sent.append(m)
        if isinstance(op, Subscribe):
            s = lay.subs[op.sub.id]
            orig = lay.node(op.sub.subscriber, f"subscription {op.sub.id}")
            if orig in lay.proxies(s):  # the move to oneself (module doc)
                step.sends.append(len(sent))
                sent.append(("move", orig, orig, 0, s, 0, 0, frozenset()))
        elif isinstance(op, Publish):
            e = lay.events[op.event.id]
            pub = lay.node(op.event.publisher, f"event {op.event.id}")
            key = lay.key[e - 1]
            if lay.covering_server(pub, key) == pub:  # the EventToZone to oneself
                step.sends.append(len(sent))
                sent.append(("zone", pub, pub, lay.covering_tree(key), 0, 0, e, frozenset()))
        elif op is None and step.obs:
            head = step.obs[0][1]
            wants = set(_wants(head))
            step.takes = next((i for i in flight if _key_of(sent[i], lay) in wants), None)
            if step.takes is not None:
                flight.remove(step.takes)
        flight += step.sends
    silent = set(flight)
    names = {v: k for k, v in lay.num.items()}
    # pass 2: the states
    for step in steps:
        op = step.op
        if isinstance(op, Subscribe):
            rec.started.add(lay.subs[op.sub.id])
        elif isinstance(op, Publish):
            e = lay.events[op.event.id]
            live = frozenset(rec.started - rec.unsubbed)
            busy = {m[4] for m in rec.msgs.values() if m[0] in ("move", "prop")}
            rec.published.add(e)
            rec.sub_at[e] = live
            rec.active_at[e] = live - busy  # K-D12: installed, nothing it caused in flight
        elif isinstance(op, Unsubscribe):
            rec.unsubbed.add(lay.sub(op.sub_id, f"unsubscription {op.seq}"))
        if step.takes is not None:
            rec.handled(rec.msgs.pop(step.takes))
        for k, ob in step.obs:
            if ob.kind == "state":
                rec.change(k, ob)
        for i in step.sends:
            rec.msgs[i] = sent[i]
        label = _label(step)
        rec.snapshot(label)
        for i in step.sends:  # handled silently, right after the step that sent it
            if i in silent:
                m = rec.msgs.pop(i)
                rec.handled(m)
                hop = f"{names[m[1]]}>{names[m[2]]}"
                rec.snapshot(f"{m[0]} {hop} handled silently (sent by {label})")
    if rec.local:  # deliveries no handling of the event at the original server accounts for
        rec.dcount += rec.local
        rec.snapshot("deliveries at no handling of their event")
    unsubs = frozenset(
        lay.sub(op.sub_id, f"unsubscription {op.seq}")
        for op in run.trace.ops
        if isinstance(op, Unsubscribe)
    )
    record = KyraRun(
        run.trace, rec.states, lay.constants(), len(lay.num), len(lay.trees), unsubs, ""
    )
    return record, rec.steps


def validate_observed(run: ObservedRun) -> list[tuple[str, Validation | None]] | None:
    """The run's validation against KyraRouting.tla (None when the log cannot be mapped,
    named in `observed_kyra_run(run).problem`), or None when the run is outside the map's
    bound (`fits` names it)."""
    if fits(run) is not None:
        return None
    record, steps = observed_steps(run)
    v = validate_kyra(record, "TVKyraObserved")
    step = re.search(r"recorded step (\d+) ", v.detail) if v is not None else None
    if v is not None and step is not None and int(step.group(1)) < len(steps):
        v = replace(v, detail=f"{v.detail} ({steps[int(step.group(1))]})")
    return [("run", v)]
