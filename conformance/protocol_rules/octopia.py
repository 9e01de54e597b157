"""Protocol rules of the octopia family (systems: octopia-snr, octopia-idr, tid); see
conformance/OBSERVATIONS.md, "octopia-snr, octopia-idr, tid" (format version 1).

Sources: M. Shafique, "Adaptive Content-based Routing using Subscription Subgrouping in
Structured Overlays" (OctopiA), arXiv:1604.06853 ("OctopiA §x"); the TID baseline is its
reference [20] (Li, Muthusamy, Jacobsen, Middleware 2008) as OctopiA §II and §VIII describe it.

Nodes are brokers named by the paper's label `B(x,i)` (region x, cluster i, §III-B); trace
nodes are clients, each attached to one broker (`attach`). The rules read the SCOT from the
trace's configuration section of the claimed system (the overlay the paper defines, §III-IV),
and the subscriptions, events and advertisements from the trace (decisions O-IMPLICIT and
O-EXPLICIT, docs/octopia.md). One pass over the log replays the brokers' tables (SRT, PRT,
CIBs) and every event's forwarding, and records each rule's first offending observation; the
pass is cached per run, so the family's rules cost one pass together.

The per-event tree rules combine the shared `per_event_tree` helper of `generic.py` (a second
reception, a cycle) with the replay's own check (`_Replay.tree_send`), which adds the root the
paper prescribes (the publisher's broker) and that a broker forwards only an event it holds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pubsub_spec.conformance.protocol_rules.base import Deviation, ObservedRun, Rule
from pubsub_spec.conformance.protocol_rules.generic import per_event_tree
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.common.ops import (
    Advertise,
    Fail,
    Leave,
    Publish,
    Subscribe,
    Unsubscribe,
    has_advertisements,
)
from pubsub_spec.reference.octopia.advertisements import (
    Advertisement,
    conforms,
    implicit_advertisements,
    overlaps,
)
from pubsub_spec.reference.octopia.config import config_of
from pubsub_spec.reference.octopia.scot import Broker, Scot, broker_name

SNR, IDR, TID = "octopia-snr", "octopia-idr", "tid"
SRC = "Shafique, OctopiA (arXiv:1604.06853)"
TID_SRC = "Li, Muthusamy, Jacobsen, Middleware 2008 ([20] of OctopiA), as in OctopiA"

# The message types that forward an event, and those that install a subscription, per system
# (read by the generic rules).
DISSEMINATION: dict[str, frozenset[str]] = {s: frozenset({"Notification"}) for s in (SNR, IDR, TID)}
SUBSCRIPTION: dict[str, frozenset[str]] = {
    SNR: frozenset({"Subscription", "CIB_SET"}),
    IDR: frozenset({"Subscription", "CIB_SET"}),
    TID: frozenset({"Subscription"}),
}
# The state changes each system reports (conformance/OBSERVATIONS.md, the family section).
_COMMON_STATES = {"attach", "srt-add", "srt-remove", "prt-add", "prt-remove", "publish", "deliver"}
STATES: dict[str, frozenset[str]] = {
    SNR: frozenset(_COMMON_STATES | {"scb-set", "cib-set"}),
    IDR: frozenset(_COMMON_STATES | {"scb-set", "cib-set", "idr"}),
    TID: frozenset(_COMMON_STATES | {"adv-duplicate"}),
}

Found = dict[str, tuple[int | None, str]]


def parse_broker(name: str) -> Broker | None:
    """`B(x,i)` -> (x, i); None if the name is not a broker label."""
    if not (name.startswith("B(") and name.endswith(")")):
        return None
    x, _, i = name[2:-1].rpartition(",")
    if not x or not i.isdigit():
        return None
    return (x, int(i))


def depth_bound(system: str, scot: Scot) -> int | None:
    """The longest path a notification may take (ours, from OctopiA §VII): SNR routes by RPF
    along the host cluster's tree (at most diam(G_A) aLinks) and sends plain copies over at
    most one iLink, then RPF in the target cluster: diam(G_A) + 1. Under IDR every iLink copy
    carrying a CIV-N flags fewer clusters than its sender's targets (§VII-B cases (i), (iv)),
    so a path crosses at most m - 1 iLinks and visits at most m clusters, in each at most
    diam(G_A) aLinks (RPF never turns back in a tree): m·diam(G_A) + m - 1. TID: none (the
    first-arrival tree of the flood)."""
    d = scot.factor.diameter()
    if system == SNR:
        return d + 1
    if system == IDR:
        return scot.m * d + scot.m - 1
    return None


@dataclass
class _Trace:
    """What the rules take from the trace: subscriptions, events, advertisements and which
    subscriptions are still active at the end."""

    subs: dict[str, Subscription]
    events: dict[str, Event]
    adverts: dict[str, Advertisement]
    active_at_end: set[str]

    @staticmethod
    def of(run: ObservedRun) -> _Trace:
        subs: dict[str, Subscription] = {}
        events: dict[str, Event] = {}
        adverts: dict[str, Advertisement] = {}
        active: dict[str, Subscription] = {}
        for op in run.trace.ops:
            if isinstance(op, Subscribe):
                subs[op.sub.id] = active[op.sub.id] = op.sub
            elif isinstance(op, Unsubscribe):
                active.pop(op.sub_id, None)
            elif isinstance(op, Leave | Fail):
                gone = {op.node} if isinstance(op, Leave) else set(op.nodes)
                for sid in [s for s, sub in active.items() if sub.subscriber in gone]:
                    del active[sid]
            elif isinstance(op, Publish):
                events[op.event.id] = op.event
            elif isinstance(op, Advertise):
                adverts[op.id] = Advertisement(op.id, op.publisher, op.schema, op.predicates)
        config = config_of(run.trace, run.system)
        if config.implicit_advertisements and not has_advertisements(run.trace):
            adverts.update((a.id, a) for a in implicit_advertisements(run.trace))  # O-IMPLICIT
        return _Trace(subs, events, adverts, set(active))


@dataclass
class _Replay:
    """The state every rule of the family reads, replayed observation by observation."""

    run: ObservedRun
    scot: Scot
    tr: _Trace
    found: Found = field(default_factory=dict)
    attach: dict[str, str] = field(default_factory=dict)  # client -> broker name
    # per event: broker -> the broker it got the event from (None: the root)
    got: dict[str, dict[str, str | None]] = field(default_factory=lambda: defaultdict(dict))
    hops: dict[tuple[str, str], int] = field(default_factory=dict)
    root: dict[str, str] = field(default_factory=dict)
    delivered: set[tuple[str, str]] = field(default_factory=set)
    bound: int | None = None  # depth_bound of the claimed system on this SCOT
    names: dict[str, Broker | None] = field(default_factory=dict)  # parsed broker names

    def __post_init__(self) -> None:
        self.bound = depth_bound(self.run.system, self.scot)

    def flag(self, rule: str, index: int | None, detail: str) -> None:
        self.found.setdefault(rule, (index, detail))

    def broker(self, name: str | None) -> Broker | None:
        if name is None:
            return None
        if name not in self.names:
            b = parse_broker(name)
            self.names[name] = b if b is not None and b in self.scot.adjacency else None
        return self.names[name]

    def host(self, client: str) -> str | None:
        return self.attach.get(client)

    def matches(self, sid: str, eid: str) -> bool:
        sub, ev = self.tr.subs.get(sid), self.tr.events.get(eid)
        return sub is not None and ev is not None and matches(sub, ev, self.run.trace.matching)

    def check_link(self, rule: str, i: int, node: str, to: str | None, link: object) -> bool:
        """§III-B, §IV-A: a message travels one SCOT link between two brokers."""
        a, b = self.broker(node), self.broker(to)
        if a is None or b is None:
            self.flag(rule, i, f"{node} -> {to}: not brokers B(x,i) of the trace's SCOT")
            return False
        if b not in self.scot.neighbours(a):
            self.flag(rule, i, f"{node} -> {to} is not a SCOT link")
            return False
        kind = "alink" if self.scot.is_alink(a, b) else "ilink"
        if link is not None and link != kind:
            self.flag(rule, i, f"{node} -> {to} is an {kind}, reported as {link!r}")
            return False
        return True

    def tree_send(self, rule: str, i: int, eid: str, node: str, to: str, hops: object) -> bool:
        """One forwarded copy of an event (§VII, I3): its sender holds the event (the root,
        the publisher's broker, or a broker that received it), the receiver has not had it:
        so each event's copies form a tree rooted at the publisher's broker, without a second
        reception or a cycle. Also checks the hop count the copy reports."""
        ev = self.tr.events.get(eid)
        if ev is None:
            self.flag(rule, i, f"a copy of {eid!r}, which the trace never publishes")
            return False
        got = self.got[eid]
        if not got:
            self.start_event(rule, i, eid)
        if node not in got:
            self.flag(rule, i, f"{node} forwards {eid} without having received it")
            return False
        if to in got:
            what = "the root" if got[to] is None else f"already from {got[to]}"
            self.flag(rule, i, f"{to} receives {eid} a second time (it has it: {what})")
            return False
        got[to] = node
        h = self.hops.get((eid, node), 0) + 1
        self.hops[(eid, to)] = h
        if hops is not None and hops != h:
            self.flag(
                self.prefix + "/depth", i, f"{eid} reaches {to} at depth {h}, reported {hops}"
            )
        bound = self.bound
        if bound is not None and h > bound:
            self.flag(self.prefix + "/depth", i, f"{eid} reaches {to} at depth {h} > {bound}")
        return True

    @property
    def prefix(self) -> str:
        return "tid" if self.run.system == TID else "octopia"

    def start_event(self, rule: str, i: int, eid: str) -> str | None:
        """The root of `eid`'s tree: the publisher's broker (§VII; [20])."""
        ev = self.tr.events[eid]
        root = self.host(ev.publisher)
        if root is None:
            self.flag(rule, i, f"{eid}: its publisher {ev.publisher} was never attached")
            return None
        self.got[eid].setdefault(root, None)
        self.root[eid] = root
        return root

    def deliver(self, i: int, node: str, eid: str | None, sid: str | None, local: bool) -> None:
        """§I-II (I1): the subscriber's broker hands a matching event to its client once,
        having received it (or being the publisher's), from a local PRT entry."""
        rule = self.prefix + "/notify-once"
        if eid is None or sid is None or sid not in self.tr.subs or eid not in self.tr.events:
            self.flag(rule, i, f"deliver of unknown event {eid!r} or subscription {sid!r}")
            return
        if (eid, sid) in self.delivered:
            self.flag(rule, i, f"{eid} delivered to {sid} a second time")
            return
        self.delivered.add((eid, sid))
        sub = self.tr.subs[sid]
        if self.host(sub.subscriber) != node:
            self.flag(rule, i, f"{node} delivers {eid} to {sid}, whose client is not its own")
        elif not self.matches(sid, eid):
            self.flag(rule, i, f"{eid} does not match {sid}")
        elif not self.got[eid] and self.start_event(rule, i, eid) is None:
            return
        elif node not in self.got[eid]:
            self.flag(rule, i, f"{node} delivers {eid}, which it never received")
        elif not local:
            self.flag(rule, i, f"{node} delivers {eid} to {sid} without a local PRT entry")

    def attached(self, i: int, node: str, fields: dict[str, object]) -> None:
        client = fields.get("client")
        if self.broker(node) is None or not isinstance(client, str):
            self.flag(self.prefix + "/links", i, f"attach at {node} of {client!r}: not a broker")
            return
        self.attach[client] = node


@dataclass
class _SrtRow:
    host: str
    last_hop: str | None
    cibs: set[int] = field(default_factory=set)


def _octopia(run: ObservedRun) -> Found:
    config = config_of(run.trace, run.system)
    scot = Scot(config.factor(), config.m)
    tr = _Trace.of(run)
    r = _Replay(run, scot, tr)
    idr = run.system == IDR
    srt: dict[str, dict[str, _SrtRow]] = defaultdict(dict)
    prt: dict[str, dict[str, str | None]] = defaultdict(dict)
    via: dict[tuple[str, str], set[str]] = defaultdict(set)  # (broker, lastHop) -> its subs
    adv_sent: set[tuple[str, str, str]] = set()  # (adv, from, to)
    sub_sent: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)  # (kind, sub) -> to: from
    sub_pairs: set[tuple[str, str, str, str]] = set()
    cib_sent: dict[tuple[str, str], set[int]] = defaultdict(set)  # (host, adv) -> clusters
    cib_from: set[tuple[str, str]] = set()  # (adv, sender)
    owed: dict[tuple[str, str], int] = {}  # (adv, broker) -> where a CIB_SET became due

    def owe(i: int, node: str, adv: str, sid: str) -> None:
        """§V step 3, §VI (ii): a broker holding an advertisement of another cluster in
        secondary context and an overlapping subscription owes the host one CIB_SET."""
        row, nb = srt[node].get(adv), r.broker(node)
        a, sub = tr.adverts.get(adv), tr.subs.get(sid)
        if row is None or row.last_hop is None or nb is None or a is None or sub is None:
            return
        hb = r.broker(row.host)
        fresh = (adv, node) not in cib_from
        if hb is not None and hb[1] != nb[1] and fresh and overlaps(a, sub):
            owed.setdefault((adv, node), i)

    targets: dict[tuple[str, str], frozenset[int]] = {}  # (event, broker) -> target clusters
    decisions: dict[tuple[str, str], tuple[int, dict[str, object]]] = {}
    copies: dict[tuple[str, str], list[tuple[int, str, frozenset[int]]]] = defaultdict(list)

    def host_of_adv(adv: str) -> str | None:
        a = tr.adverts.get(adv)
        return None if a is None else r.host(a.publisher)

    def sub_cluster(sid: str | None) -> int | None:
        sub = tr.subs.get(sid or "")
        h = None if sub is None else r.broker(r.host(sub.subscriber))
        return None if h is None else h[1]

    def root_targets(eid: str) -> frozenset[int]:
        """§VII-A, A13: the clusters whose CIB is ON in the host's entries of the event's
        conforming advertisements."""
        root = r.root[eid]
        ev = tr.events[eid]
        out: set[int] = set()
        for adv, row in srt[root].items():
            a = tr.adverts.get(adv)
            if row.last_hop is None and a is not None and conforms(ev, a):
                out |= row.cibs
        return frozenset(out)

    def ensure_root(i: int, eid: str) -> bool:
        if eid in r.root:
            return True
        if eid not in tr.events or r.start_event("octopia/notification-tree", i, eid) is None:
            return False
        targets[(eid, r.root[eid])] = root_targets(eid)
        ev = tr.events[eid]
        for (adv, node), at in owed.items():  # due before the host publishes under it
            a = tr.adverts.get(adv)
            if a is not None and conforms(ev, a):
                r.flag(
                    "octopia/cib-set",
                    at,
                    f"{node} holds {adv} (SCB OFF) and an "
                    f"overlapping subscription; {eid} is published before its CIB_SET",
                )
                break
        return True

    for i, ob in enumerate(run.log):
        o = ob.obs
        f = dict(o.fields)
        if o.kind == "send":
            if not r.check_link("octopia/links", i, o.node, o.to, f.get("link")):
                continue
            assert o.to is not None
            a, b = r.broker(o.node), r.broker(o.to)
            assert a is not None and b is not None
            if o.name in ("Advertisement", "Unadvertisement"):
                # §V scotAFP: the host sends to its m-1 secondary neighbours, no further.
                adv = str(f.get("adv"))
                host = host_of_adv(adv)
                if host != o.node or not scot.is_ilink(a, b):
                    r.flag(
                        "octopia/adv-region",
                        i,
                        f"{o.name} {adv} {o.node} -> {o.to}: not "
                        f"from its host {host} to a secondary neighbour",
                    )
                elif o.name == "Advertisement":
                    if (adv, o.node, o.to) in adv_sent:
                        r.flag("octopia/adv-region", i, f"{adv} sent twice to {o.to}")
                    adv_sent.add((adv, o.node, o.to))
                    if f.get("host", o.node) != o.node or f.get("cluster", a[1]) != a[1]:
                        r.flag("octopia/adv-region", i, f"{adv}: host/cluster fields wrong")
            elif o.name in ("Subscription", "Unsubscription"):
                # §VI: broadcast over the aLinks of the subscriber's host cluster only.
                sid = o.sub or ""
                j = sub_cluster(o.sub)
                if j is None or not scot.is_alink(a, b) or a[1] != j:
                    r.flag(
                        "octopia/sub-in-host-cluster",
                        i,
                        f"{o.name} {sid} {o.node} -> {o.to} leaves its host cluster C{j}",
                    )
                    continue
                came = sub_sent[(o.name, sid)]
                if came.get(o.node) == o.to or (o.name, sid, o.node, o.to) in sub_pairs:
                    r.flag(
                        "octopia/sub-in-host-cluster",
                        i,
                        f"{o.name} {sid} {o.node} -> "
                        f"{o.to}: back to its sender or sent twice (a broadcast tree)",
                    )
                sub_pairs.add((o.name, sid, o.node, o.to))
                came.setdefault(o.to, o.node)
            elif o.name == "CIB_SET":
                adv = str(f.get("adv"))
                row = srt[o.node].get(adv)
                if row is None or row.last_hop is None or row.host != o.to:
                    r.flag(
                        "octopia/cib-set",
                        i,
                        f"CIB_SET {adv} {o.node} -> {o.to}: not to "
                        "the host of an advertisement it holds in secondary context",
                    )
                    continue
                if f.get("cluster", a[1]) != a[1]:
                    r.flag("octopia/cib-set", i, f"CIB_SET from C{a[1]} names {f.get('cluster')}")
                if (adv, o.node) in cib_from:
                    r.flag("octopia/cib-set", i, f"second CIB_SET {adv} from {o.node} (A6)")
                cib_from.add((adv, o.node))
                owed.pop((adv, o.node), None)
                advert = tr.adverts.get(adv)
                if o.sub is not None:  # §VI (ii): an overlapping subscription it stores
                    sub = tr.subs.get(o.sub)
                    if sub is None or advert is None or not overlaps(advert, sub):
                        r.flag("octopia/cib-set", i, f"{o.sub} does not overlap {adv}")
                    elif o.sub not in prt[o.node]:
                        r.flag("octopia/cib-set", i, f"{o.node} does not hold {o.sub}")
                elif advert is None or not any(
                    (s := tr.subs.get(x)) is not None and overlaps(advert, s) for x in prt[o.node]
                ):  # §V step 3: the SCB is ON iff the PRT holds an overlapping subscription
                    r.flag("octopia/cib-set", i, f"AFP reply for {adv}: no overlapping sub")
                cib_sent[(o.to, adv)].add(a[1])
            elif o.name == "Notification":
                eid = o.event or ""
                if not ensure_root(i, eid):
                    continue
                sender = r.got[eid].get(o.node)
                if not r.tree_send(
                    "octopia/notification-tree", i, eid, o.node, o.to, f.get("depth")
                ):
                    continue
                raw = f.get("civ", [])
                civ = (
                    frozenset(x for x in raw if isinstance(x, int))
                    if isinstance(raw, list)
                    else frozenset()
                )
                mine = targets.get((eid, o.node), frozenset())
                rule = "octopia/notification-route"
                if scot.is_alink(a, b):  # RPF on the PRT (§VII-A), never back
                    ok = o.to != sender and any(
                        r.matches(s, eid) for s in via.get((o.node, o.to), ())
                    )
                    if not ok:
                        r.flag(
                            rule,
                            i,
                            f"{o.node} -> {o.to}: no PRT entry of a subscription "
                            f"matching {eid} with that lastHop (or back to its sender)",
                        )
                elif b[1] not in mine:  # iLinks: only to the clusters in the CIV (§VII-A)
                    r.flag(
                        rule,
                        i,
                        f"{o.node} -> {o.to}: cluster {b[1]} is not a target "
                        f"cluster of {eid} there ({sorted(mine)})",
                    )
                if civ and not idr:
                    r.flag(rule, i, f"a CIV-N {sorted(civ)} under SNR (§VII-A sends none)")
                elif civ and (not civ <= mine or b[1] in civ):
                    r.flag(
                        rule,
                        i,
                        f"CIV-N {sorted(civ)} from {o.node} not within its targets "
                        f"{sorted(mine)} less the receiver's cluster (§VII-B, A10)",
                    )
                targets[(eid, o.to)] = civ
                if idr:  # the IDR decisions are judged on the copies (_idr_cases)
                    copies[(eid, o.node)].append((i, o.to, civ))
        else:
            node = o.node
            if o.name == "attach":
                r.attached(i, node, f)
            elif o.name == "srt-add":
                adv = str(f.get("adv"))
                host = host_of_adv(adv)
                last = f.get("last_hop")
                nb = r.broker(node)
                hb = r.broker(host)
                if nb is None or hb is None:
                    r.flag("octopia/adv-region", i, f"{adv} stored at {node}, host {host}")
                    continue
                if last is None:
                    if node != host:
                        r.flag(
                            "octopia/adv-region",
                            i,
                            f"{node} stores {adv} as its host; the publisher is at {host}",
                        )
                elif nb[0] != hb[0] or nb == hb or last != host:
                    r.flag(
                        "octopia/adv-region",
                        i,
                        f"{node} stores {adv} outside the host {host}'s region R_{hb[0]} (§V)",
                    )
                elif (adv, host, node) not in adv_sent and not f.get("initial"):
                    r.flag("octopia/adv-region", i, f"{node} stores {adv} never sent to it")
                srt[node][adv] = _SrtRow(str(host), None if last is None else str(last))
                for sid in prt[node]:
                    owe(i, node, adv, sid)
            elif o.name == "srt-remove":
                srt[node].pop(str(f.get("adv")), None)
                owed.pop((str(f.get("adv")), node), None)
            elif o.name == "cib-set":
                adv = str(f.get("adv"))
                row = srt[node].get(adv)
                j = f.get("cluster")
                if row is None or row.last_hop is not None or not isinstance(j, int):
                    r.flag("octopia/cib-set", i, f"{node} sets a CIB of {adv} it does not host")
                    continue
                if j not in cib_sent[(node, adv)] and not f.get("initial"):
                    r.flag(
                        "octopia/cib-set",
                        i,
                        f"{node} sets CIB {j} of {adv} without a CIB_SET from cluster {j} (§VI)",
                    )
                row.cibs.add(j)
            elif o.name == "prt-add":
                sid = o.sub or ""
                j = sub_cluster(o.sub)
                nb = r.broker(node)
                last = f.get("last_hop")
                if j is None or nb is None or nb[1] != j:
                    r.flag(
                        "octopia/sub-in-host-cluster",
                        i,
                        f"{node} stores {sid} outside its host cluster C{j} (§VI)",
                    )
                elif last is None and node != r.host(tr.subs[sid].subscriber):
                    r.flag("octopia/sub-in-host-cluster", i, f"{node} stores {sid} as local")
                elif (
                    last is not None
                    and sub_sent[("Subscription", sid)].get(node) != last
                    and not f.get("initial")
                ):
                    r.flag(
                        "octopia/sub-in-host-cluster",
                        i,
                        f"{node} stores {sid} with lastHop {last}, which did not send it",
                    )
                old = prt[node].get(sid)
                if old is not None:
                    via[(node, old)].discard(sid)
                prt[node][sid] = None if last is None else str(last)
                if last is not None:
                    via[(node, str(last))].add(sid)
                for adv in srt[node]:
                    owe(i, node, adv, sid)
            elif o.name == "prt-remove":
                old = prt[node].pop(o.sub or "", None)
                if old is not None:
                    via[(node, old)].discard(o.sub or "")
            elif o.name == "publish":
                eid = o.event or ""
                if eid not in tr.events or not ensure_root(i, eid):
                    r.flag("octopia/notification-tree", i, f"publish of {eid!r} unrooted")
                    continue
                if r.root[eid] != node:
                    r.flag(
                        "octopia/notification-tree",
                        i,
                        f"{eid} published at {node}, its publisher is at {r.root[eid]}",
                    )
                    continue
                want = root_targets(eid)
                targets[(eid, node)] = want
                got = f.get("civ")
                if isinstance(got, list) and frozenset(got) != want:
                    r.flag(
                        "octopia/publication-civ",
                        i,
                        f"{eid}: the host's CIV {sorted(got)} "
                        f"is not the CIBs set on its conforming advertisements {sorted(want)}",
                    )
            elif o.name == "idr":
                eid = o.event or ""
                decisions[(eid, node)] = (i, f)
            elif o.name == "deliver":
                sid = o.sub or ""
                if o.event is not None and o.event in tr.events:
                    ensure_root(i, o.event)
                r.deliver(i, node, o.event, o.sub, sid in prt[node] and prt[node][sid] is None)
    for (adv, node), i in sorted(owed.items(), key=lambda kv: kv[1])[:1]:
        r.flag(
            "octopia/cib-set",
            i,
            f"{node} holds {adv} (SCB OFF) and an overlapping "
            "subscription, and never sends its host the CIB_SET (§V step 3, §VI (ii))",
        )
    # §VI subgrouping: an active subscription is in the PRT of every broker of its cluster.
    for sid in sorted(tr.active_at_end):
        j = sub_cluster(sid)
        holders = {n for n, t in prt.items() if sid in t}
        members = {broker_name(b) for b in scot.cluster(j)} if j is not None else set()
        if holders != members:
            r.flag(
                "octopia/subgrouping",
                None,
                f"{sid} is stored at {sorted(holders)}, its host cluster C{j} is {sorted(members)}",
            )
            break
    if idr:
        _idr_cases(r, scot, targets, decisions, copies)
    return r.found


def _idr_cases(
    r: _Replay,
    scot: Scot,
    targets: dict[tuple[str, str], frozenset[int]],
    decisions: dict[tuple[str, str], tuple[int, dict[str, object]]],
    copies: dict[tuple[str, str], list[tuple[int, str, frozenset[int]]]],
) -> None:
    """§VII-B: the copies a broker with target iLinks sends follow the case its link status
    gives (the overloaded links are the implementation's report, as the TLA+ model takes any
    choice of them: docs/octopia.md)."""
    rule = "octopia/idr-case"
    for (eid, node), mine in sorted(targets.items()):
        if not mine or node not in r.got[eid]:
            continue
        if (eid, node) not in decisions:
            r.flag(
                rule,
                None,
                f"{node} has target clusters {sorted(mine)} for {eid}, no IDR decision reported",
            )
            continue
        i, f = decisions[(eid, node)]
        over = set(_strs(f.get("overloaded")))
        free = set(_strs(f.get("free")))
        nb = r.broker(node)
        assert nb is not None
        ilink = {j: broker_name((nb[0], j)) for j in mine}
        t_over = {j for j, n in ilink.items() if n in over}
        sent = copies.get((eid, node), [])
        on_i = {to: civ for _, to, civ in sent if (p := r.broker(to)) is not None and p[0] == nb[0]}
        on_a = {to: civ for _, to, civ in sent if to not in on_i}
        case = f.get("case")
        plain = {ilink[j] for j in mine}
        if sorted(_ints(f.get("targets"))) != sorted(mine):
            r.flag(rule, i, f"{node}: IDR targets {f.get('targets')} for {eid}, not {sorted(mine)}")
        elif not t_over:
            if case != "free" or on_i != {n: frozenset() for n in plain}:
                r.flag(
                    rule,
                    i,
                    f"{node}: no target iLink overloaded, so one plain copy per "
                    f"target iLink {sorted(plain)}; sent {sorted(on_i)} (case {case})",
                )
        elif t_over != set(mine):  # (i)
            cn = [n for n, c in on_i.items() if c]
            ok = (
                case == "i"
                and len(cn) == 1
                and on_i[cn[0]] == frozenset(t_over)
                and set(on_i) == {ilink[j] for j in mine if j not in t_over}
            )
            if not ok:
                r.flag(
                    rule,
                    i,
                    f"{node}: case (i), overloaded {sorted(t_over)}: no copy on "
                    "them, their CIBs on one unoverloaded target iLink",
                )
        elif a_free := {n for n in free if (p := r.broker(n)) is not None and p[1] == nb[1]}:
            cn = [n for n, c in on_a.items() if c]  # (ii)/(iii): an unoverloaded target aLink
            ok = (
                case == "ii"
                and not on_i
                and len(cn) == 1
                and on_a[cn[0]] == frozenset(mine)
                and cn[0] in a_free
            )
            if not ok:
                r.flag(
                    rule,
                    i,
                    f"{node}: case (ii), all target iLinks overloaded: the CIV-N "
                    "of every target on one unoverloaded aLink, no iLink copy",
                )
        else:  # (iv)
            ok = case == "iv" and len(on_i) == 1
            if ok:
                ((to, civ),) = on_i.items()
                p = r.broker(to)
                ok = p is not None and p[1] in mine and civ == frozenset(mine) - {p[1]}
            if not ok:
                r.flag(
                    rule,
                    i,
                    f"{node}: case (iv), every target link overloaded: one copy on "
                    "one target iLink carrying the other targets",
                )


def _strs(v: object) -> list[str]:
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def _ints(v: object) -> list[int]:
    return [x for x in v if isinstance(x, int)] if isinstance(v, list) else []


def _tid(run: ObservedRun) -> Found:
    config = config_of(run.trace, run.system)
    scot = Scot(config.factor(), config.m)
    tr = _Trace.of(run)
    r = _Replay(run, scot, tr)
    srt: dict[str, dict[str, str | None]] = defaultdict(dict)  # broker -> tid -> lastHop
    prt: dict[str, dict[tuple[str, str], str | None]] = defaultdict(dict)
    tvia: dict[tuple[str, str, str], set[str]] = defaultdict(set)  # (broker, TID, lastHop)
    adv_sent: set[tuple[str, str, str]] = set()
    sub_sent: set[tuple[str, str, str, str]] = set()  # (sub, tid, from, to)
    tid_of: dict[str, str] = {}

    def publisher_host(adv: str) -> str | None:
        a = tr.adverts.get(adv)
        return None if a is None else r.host(a.publisher)

    def event_tid(i: int, eid: str, tid: object) -> bool:
        """[20] (OctopiA §II): a notification carries the TID of an advertisement it
        conforms to, the same on every copy."""
        a = tr.adverts.get(str(tid))
        ev = tr.events.get(eid)
        if a is None or ev is None or not conforms(ev, a):
            r.flag(
                "tid/notification-tid",
                i,
                f"{eid} carries TID {tid!r}, an advertisement it does not conform to",
            )
            return False
        if tid_of.setdefault(eid, str(tid)) != tid:
            r.flag("tid/notification-tid", i, f"{eid} carries {tid}, earlier {tid_of[eid]}")
            return False
        return True

    for i, ob in enumerate(run.log):
        o = ob.obs
        f = dict(o.fields)
        if o.kind == "send":
            if not r.check_link("tid/links", i, o.node, o.to, f.get("link")):
                continue
            assert o.to is not None
            tid = str(f.get("tid", f.get("adv")))
            if o.name == "Advertisement":
                # [20], OctopiA §II, Fig. 1(a): flood: a broker forwards its first copy to every
                # neighbour but the one it came from, once.
                if tid not in srt[o.node] or srt[o.node][tid] == o.to:
                    r.flag(
                        "tid/adv-flood",
                        i,
                        f"{o.node} -> {o.to}: forwards {tid} without "
                        "holding it, or back to its lastHop",
                    )
                elif (tid, o.node, o.to) in adv_sent:
                    r.flag("tid/adv-flood", i, f"{o.node} floods {tid} to {o.to} twice")
                adv_sent.add((tid, o.node, o.to))
            elif o.name in ("Subscription", "Unsubscription"):
                # [20], OctopiA §II, Fig. 1(c): along the reverse path of a bound TID.
                sid = o.sub or ""
                a, sub = tr.adverts.get(tid), tr.subs.get(sid)
                if srt[o.node].get(tid) != o.to:
                    r.flag(
                        "tid/sub-reverse-path",
                        i,
                        f"{o.name} {sid} {o.node} -> {o.to}: "
                        f"not the lastHop of TID {tid} there ({srt[o.node].get(tid)})",
                    )
                elif a is None or sub is None or not overlaps(a, sub):
                    r.flag("tid/sub-reverse-path", i, f"{sid} bound to {tid}, not overlapping")
                elif o.name == "Subscription":
                    if (sid, tid) not in prt[o.node]:
                        r.flag(
                            "tid/sub-reverse-path", i, f"{o.node} forwards {sid} it does not store"
                        )
                    sub_sent.add((sid, tid, o.node, o.to))
            elif o.name == "Notification":
                eid = o.event or ""
                if eid not in tr.events or not event_tid(i, eid, f.get("tid")):
                    continue
                if not r.got[eid] and r.start_event("tid/notification-tree", i, eid) is None:
                    continue
                sender = r.got[eid].get(o.node)
                if not r.tree_send("tid/notification-tree", i, eid, o.node, o.to, f.get("depth")):
                    continue
                ok = o.to != sender and any(
                    r.matches(s, eid) for s in tvia.get((o.node, tid, o.to), ())
                )
                if not ok:
                    r.flag(
                        "tid/notification-route",
                        i,
                        f"{o.node} -> {o.to}: no PRT entry "
                        f"(s, {tid}, lastHop {o.to}) of a subscription matching {eid}",
                    )
        else:
            node = o.node
            tid = str(f.get("tid", f.get("adv")))
            if o.name == "attach":
                r.attached(i, node, f)
            elif o.name == "srt-add":
                last = f.get("last_hop")
                if tid in srt[node]:
                    r.flag(
                        "tid/adv-flood", i, f"{node} stores {tid} twice (a duplicate is discarded)"
                    )
                elif last is None and node != publisher_host(tid):
                    r.flag(
                        "tid/adv-flood",
                        i,
                        f"{node} roots {tid}; its publisher is at {publisher_host(tid)}",
                    )
                elif (
                    last is not None and (tid, last, node) not in adv_sent and not f.get("initial")
                ):
                    r.flag(
                        "tid/adv-flood",
                        i,
                        f"{node} stores {tid} from {last}, which did not send it",
                    )
                srt[node][tid] = None if last is None else str(last)
            elif o.name == "srt-remove":
                srt[node].pop(tid, None)
            elif o.name == "prt-add":
                sid = o.sub or ""
                last = f.get("last_hop")
                if tid not in srt[node]:
                    r.flag(
                        "tid/sub-reverse-path",
                        i,
                        f"{node} binds {sid} to {tid}, which it does not hold",
                    )
                elif last is None and (
                    sid not in tr.subs or node != r.host(tr.subs[sid].subscriber)
                ):
                    r.flag("tid/sub-reverse-path", i, f"{node} stores {sid} as local")
                elif (
                    last is not None
                    and (sid, tid, str(last), node) not in sub_sent
                    and not f.get("initial")
                ):
                    r.flag(
                        "tid/sub-reverse-path",
                        i,
                        f"{node} stores ({sid}, {tid}) from {last}, which did not send it",
                    )
                old = prt[node].get((sid, tid))
                if old is not None:
                    tvia[(node, tid, old)].discard(sid)
                prt[node][(sid, tid)] = None if last is None else str(last)
                if last is not None:
                    tvia[(node, tid, str(last))].add(sid)
            elif o.name == "prt-remove":
                old = prt[node].pop((o.sub or "", tid), None)
                if old is not None:
                    tvia[(node, tid, old)].discard(o.sub or "")
            elif o.name == "publish":
                eid = o.event or ""
                if eid not in tr.events or r.start_event("tid/notification-tree", i, eid) is None:
                    continue
                if r.root[eid] != node:
                    r.flag(
                        "tid/notification-tree",
                        i,
                        f"{eid} published at {node}, its publisher is at {r.root[eid]}",
                    )
                event_tid(i, eid, f.get("tid"))
            elif o.name == "deliver":
                eid, sid = o.event or "", o.sub or ""
                local = prt[node].get((sid, tid_of.get(eid, "")), "") is None
                r.deliver(i, node, o.event, o.sub, local)
    return r.found


_ANALYSE: dict[str, Callable[[ObservedRun], Found]] = {SNR: _octopia, IDR: _octopia, TID: _tid}
_cache: list[tuple[ObservedRun, Found]] = []


def _found(run: ObservedRun) -> Found:
    """The one pass over `run`, cached for the last run (the rules of one run ask in turn)."""
    if _cache and _cache[0][0] is run:
        return _cache[0][1]
    found = _ANALYSE[run.system](run)
    # The shared tree helper (generic.py) on the same copies: a second reception or a cycle;
    # the replay adds the root (the publisher's broker) and "forwards only what it holds".
    broken = per_event_tree(run, DISSEMINATION[run.system])
    tree = ("tid" if run.system == TID else "octopia") + "/notification-tree"
    mine = found.get(tree)
    if broken is not None and (mine is None or mine[0] is None or broken.index < mine[0]):
        what = "a second time" if broken.how == "twice" else "after forwarding it (a cycle)"
        found[tree] = (broken.index, f"{broken.node} receives {broken.event} {what}")
    _cache[:] = [(run, found)]
    return found


def _rule(rid: str, source: str, doc: str) -> Rule:
    def check(run: ObservedRun, reference: ObservedRun) -> Deviation | None:
        hit = _found(run).get(rid)
        return None if hit is None else rule.deviation(hit[0], hit[1])

    rule = Rule(rid, source, doc, check)
    return rule


def _rules(specs: Iterable[tuple[str, str, str]]) -> tuple[Rule, ...]:
    return tuple(_rule(rid, source, doc) for rid, source, doc in specs)


_OCTOPIA_SPECS = [
    (
        "octopia/links",
        f"{SRC} §III-B, §IV-A",
        "every message goes between two brokers B(x,i) of the trace's SCOT joined by a link, "
        "an aLink (one cluster) or an iLink (one region) as reported",
    ),
    (
        "octopia/adv-region",
        f"{SRC} §V (scotAFP)",
        "an advertisement is stored at its publisher's broker and sent by it only to its m-1 "
        "secondary neighbours (its region), once each; they store it with the host as lastHop",
    ),
    (
        "octopia/cib-set",
        f"{SRC} §V step 3, §VI (ii); A5, A6",
        "a CIB_SET goes from a broker holding the advertisement in secondary context to its "
        "host, names the sender's cluster, at most once per (advertisement, broker), for an "
        "overlapping subscription the sender stores; the host sets CIB j only on a CIB_SET from j",
    ),
    (
        "octopia/sub-in-host-cluster",
        f"{SRC} §VI",
        "a subscription (and its unsubscription) is broadcast only over aLinks of its host "
        "cluster, never back to its sender nor twice over a link, and stored only there, with "
        "the broker it came from as lastHop",
    ),
    (
        "octopia/subgrouping",
        f"{SRC} §VI (subscription subgrouping)",
        "at the end every active subscription is in the PRT of exactly the brokers of its host "
        "cluster",
    ),
    (
        "octopia/publication-civ",
        f"{SRC} §VII-A, §IV-C; A13",
        "the host's publication CIV is the union of the CIBs set on the event's conforming "
        "advertisements",
    ),
    (
        "octopia/notification-tree",
        f"{SRC} §VII (I3)",
        "per event, the copies form a tree rooted at the publisher's broker: a broker forwards "
        "only an event it holds, none receives it twice, no cycle",
    ),
    (
        "octopia/notification-route",
        f"{SRC} §VII-A (SNR), §VII-B (IDR)",
        "an aLink copy goes to the lastHop of a PRT entry of a matching subscription, never "
        "back (RPF); an iLink copy only to a target cluster (the host's CIV, or a received "
        "CIV-N); a CIV-N only under IDR, within the sender's targets less the receiver's cluster",
    ),
    (
        "octopia/depth",
        f"{SRC} §VII-A, §VII-B (bound ours, OBSERVATIONS.md)",
        "a copy's hop count is its sender's plus one and at most diam(G_A)+1 (SNR), "
        "m·diam(G_A)+m-1 (IDR)",
    ),
    (
        "octopia/notify-once",
        f"{SRC} §I-II (I1)",
        "the subscriber's broker hands each matching event it received to the subscription's "
        "client once, from a local PRT entry",
    ),
]
_IDR_SPEC = (
    "octopia/idr-case",
    f"{SRC} §VII-B, Eq. 10; A8-A10",
    "a broker with target iLinks reports its IDR decision and its copies follow the case its "
    "reported link status gives: free (a copy per target), (i), (ii)/(iii), (iv)",
)
_TID_SPECS = [
    (
        "tid/links",
        f"{TID_SRC} §II",
        "every message goes between two brokers of the trace's SCOT joined by a link",
    ),
    (
        "tid/adv-flood",
        f"{TID_SRC} §II, Fig. 1(a)",
        "an advertisement is rooted at its publisher's broker and flooded: a broker stores the "
        "first copy with its sender as lastHop and forwards it once to every other neighbour; "
        "duplicates are discarded",
    ),
    (
        "tid/sub-reverse-path",
        f"{TID_SRC} §II, Fig. 1(c)",
        "a subscription bound to an overlapping advertisement's TID travels that advertisement "
        "tree's reverse path (to the lastHop of the TID) and is stored as (s, TID, lastHop)",
    ),
    (
        "tid/notification-tid",
        f"{TID_SRC} §II (decision O-TID)",
        "a notification carries the TID of an advertisement it conforms to, the same on every copy",
    ),
    (
        "tid/notification-tree",
        f"{TID_SRC} §II",
        "per event, the copies form a tree rooted at the publisher's broker",
    ),
    (
        "tid/notification-route",
        f"{TID_SRC} §II",
        "a copy goes to the lastHop of a PRT entry (s, TID, lastHop) of a subscription matching "
        "the event, never back",
    ),
    (
        "tid/notify-once",
        f"{TID_SRC} §II; OctopiA §I-II",
        "the subscriber's broker hands each matching event it received to the subscription's "
        "client once, from a local PRT entry of the event's TID",
    ),
]

_SNR_RULES = _rules(_OCTOPIA_SPECS)
_IDR_RULES = _rules([*_OCTOPIA_SPECS, _IDR_SPEC])
_TID_RULES = _rules(_TID_SPECS)

# claimed system name -> its rules (beside the generic ones of protocol_rules/generic.py)
RULES: dict[str, tuple[Rule, ...]] = {SNR: _SNR_RULES, IDR: _IDR_RULES, TID: _TID_RULES}
