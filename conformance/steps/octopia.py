"""Step vectors of OctopiA (Muhammad Shafique, "Adaptive Content-based Routing using
Subscription Subgrouping in Structured Overlays", arXiv:1604.06853) with SNR (`octopia-snr`,
§VII-A) or IDR (`octopia-idr`, §VII-B) routing, and of the TID baseline (`tid`, PADRES [20] as
OctopiA §II describes it): one broker, each handler of reference/octopia/system.py and
reference/octopia/tid.py run on one broker.

The broker's state (`pre.node`, `post.node`) is what its handlers read and change: its name
`B(x,i)` (§III-B), its SRT (OctopiA: per advertisement `adv`, `host_ci`, `last_hop` (null at
the host), the CIBs set (`stc`, the advertisement context's CIV) and `scb` (§V, §VI); TID: per
advertisement (its TID) the `last_hop`), its PRT (per subscription `sub` and `last_hop`, null
for a local subscriber; TID: per (subscription, TID)), the receptions of each event (`received`,
I3's loop guard) and, for TID, its local subscriptions and the (event, subscription) pairs it
has handed over (`handed`, O-TID-DYN). `pre.context` does not change: the matching mode, the
number of clusters `m`, the broker's links (`primary`: its aLinks' neighbours in its cluster;
`secondary`: its iLink neighbour per other cluster, §IV-B), the link status table IDR and
O-TID-DYN read (`links`: per neighbour `overloaded` (Eq. 10) and its `rank`, §VII-B), the
advertisements active for a publish (`adverts`), the driver's bookkeeping of the subscriptions
a broker delivers to (`status`: [id, subscriber, seq, active]) and, for TID, `tid_dynamic` and
the TID each event started with (`event_tid`).

A send is the reference's own `send` observation (conformance/OBSERVATIONS.md, "octopia-snr,
octopia-idr, tid": `link`, `civ`, `depth`, `tid`, ...) with `route` (`direct`: one link) and the
whole `message`; a Notification input carries its `depth` (the hops from the publisher's
broker). Deliveries are `[event, sub]` pairs. Queueing and processing time (O-QUEUE, O-PROC)
are the network's, not a broker's rules: a step is the handler after the message is taken off
the input queue.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from pubsub_spec.conformance.protocol import observation_to_json
from pubsub_spec.conformance.steps import octopia_model
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
from pubsub_spec.conformance.steps.kyra import (
    Seqs,
    _dec_status,
    _int,
    _list,
    _seq,
    dec_event,
    enc_event,
)
from pubsub_spec.conformance.steps.thesis import dec_sub, enc_sub
from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.advertisements import Advertisement
from pubsub_spec.reference.octopia.civ import bits, civ_of
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.messages import (
    TYPE_OF,
    Adv,
    CibSet,
    Message,
    Notification,
    Sub,
    Unadv,
    Unsub,
)
from pubsub_spec.reference.octopia.routing import FREE
from pubsub_spec.reference.octopia.scot import Broker, broker_name
from pubsub_spec.reference.octopia.subscriptions import SrtEntry
from pubsub_spec.reference.octopia.system import (
    Arrival,
    BrokerNetwork,
    OctopiaMetrics,
    OctopiaSystem,
    PrtEntry,
    SubState,
)
from pubsub_spec.reference.octopia.tid import TidSrtEntry, TidSystem
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.observe import SEND, Observation
from pubsub_spec.reference.sim.system import System

PAPER = (
    'Muhammad Shafique, "Adaptive Content-based Routing using Subscription Subgrouping in '
    'Structured Overlays", arXiv:1604.06853'
)
MESSAGES: dict[str, tuple[str, ...]] = {
    "octopia-snr": ("Advertisement", "Unadvertisement", "Subscription", "Unsubscription",
                    "CIB_SET", "Notification"),
    "octopia-idr": ("Advertisement", "Unadvertisement", "Subscription", "Unsubscription",
                    "CIB_SET", "Notification"),
    "tid": ("Advertisement", "Unadvertisement", "Subscription", "Unsubscription",
            "Notification"),
}  # fmt: skip
OPS = ("advertise", "unadvertise", "subscribe", "unsubscribe", "publish")
_BROKER = re.compile(r"^B\((.+),(\d+)\)$")


def dec_broker(v: JSON, where: str) -> Broker:
    m = _BROKER.match(check_name(v, where))
    if m is None:
        raise StepInputError(f"{where}: a broker B(x,i)")
    return (m.group(1), int(m.group(2)))


def _opt_broker(v: JSON, where: str) -> Broker | None:
    return None if v is None else dec_broker(v, where)


def _name(b: Broker | None) -> str | None:
    return None if b is None else broker_name(b)


def enc_adv(a: Advertisement) -> JSON:
    return {"id": a.id, "publisher": a.publisher, "schema": a.schema,
            "predicates": [[p.attribute, p.lo, p.hi] for p in a.predicates]}  # fmt: skip


def dec_adv(v: JSON, where: str) -> Advertisement:
    s = dec_sub({"id": field(v, "id", where), "subscriber": field(v, "publisher", where),
                 "schema": field(v, "schema", where),
                 "predicates": field(v, "predicates", where)}, where)  # fmt: skip
    return Advertisement(s.id, s.subscriber, s.schema, s.predicates)


def _tid(v: JSON, where: str) -> str | None:
    return None if v is None else check_name(v, where)


# -- messages ----------------------------------------------------------------------------------


def enc_message(m: Message, src: Broker, seqs: Seqs, depth: int) -> JSON:
    kind = TYPE_OF[type(m)]
    out: dict[str, JSON] = {"type": kind, "from": broker_name(src)}
    if isinstance(m, Adv):
        out.update(adv=enc_adv(m.adv), host=broker_name(m.host), tid=m.tid)
    elif isinstance(m, Unadv):
        out.update(adv=m.adv_id, tid=m.tid)
    elif isinstance(m, Sub):
        out.update(sub=enc_sub(m.sub), tid=m.tid)
    elif isinstance(m, Unsub):
        out.update(sub=m.sub_id, tid=m.tid)
    elif isinstance(m, CibSet):
        out.update(adv=m.adv_id, cluster=m.from_ci,
                   sub=None if m.sub is None else enc_sub(m.sub))  # fmt: skip
    else:
        out.update(event=enc_event(m.event, seqs), civ=list(bits(m.civ)), tid=m.tid,
                   depth=depth)  # fmt: skip
    return out


def dec_message(v: JSON, system: str, seqs: Seqs) -> tuple[Broker, Message, int]:
    """(sender, message, depth) of a message input."""
    w = "input"
    kind = field(v, "type", w)
    if kind not in MESSAGES[system]:
        raise StepInputError(f"input.type: one of {', '.join(MESSAGES[system])}")
    src = dec_broker(field(v, "from", w), "input.from")
    tid = _tid(v.get("tid"), "input.tid") if kind != "CIB_SET" else None
    if system == "tid" and kind != "Advertisement" and tid is None:
        raise StepInputError("input.tid: a TID message carries its TID ([20])")
    if kind == "Advertisement":
        adv = dec_adv(field(v, "adv", w), "input.adv")
        return src, Adv(adv, dec_broker(field(v, "host", w), "input.host"), tid), 0
    if kind == "Unadvertisement":
        return src, Unadv(check_name(field(v, "adv", w), "input.adv"), tid), 0
    if kind == "Subscription":
        return src, Sub(dec_sub(field(v, "sub", w), "input.sub"), tid), 0
    if kind == "Unsubscription":
        return src, Unsub(check_name(field(v, "sub", w), "input.sub"), tid), 0
    if kind == "CIB_SET":
        sub = field(v, "sub", w)
        return src, CibSet(check_name(field(v, "adv", w), "input.adv"),
                           _int(field(v, "cluster", w), "input.cluster"),
                           None if sub is None else dec_sub(sub, "input.sub")), 0  # fmt: skip
    event = dec_event(field(v, "event", w), "input.event", seqs)
    civ = civ_of([_int(j, "input.civ") for j in _list(field(v, "civ", w), "input.civ")])
    depth = _int(field(v, "depth", w), "input.depth")
    return src, Notification(event, civ, tid), depth


def _kind(step_input: JSON) -> str:
    if isinstance(step_input, dict):
        k = step_input.get("type", step_input.get("op"))
        if isinstance(k, str):
            return k
    raise StepInputError("input: `type` (a message) or `op`")


# -- one broker's state, read from a system (the harness or a whole simulated network) ---------


def _enc_prt(p: PrtEntry, tid: str | None = None) -> JSON:
    out = {"sub": enc_sub(p.sub), "last_hop": _name(p.last_hop)}
    if tid is not None:
        out["tid"] = tid
    return out


def octopia_node(sys: OctopiaSystem, b: Broker) -> JSON:
    srt = [{"adv": enc_adv(e.adv), "host_ci": e.host_ci, "last_hop": _name(e.last_hop),
            "stc": list(bits(e.stc_mask)), "scb": e.scb}
           for _, e in sorted(sys.srt[b].items())]  # fmt: skip
    prt = [_enc_prt(p) for _, p in sorted(sys.prt[b].items())]
    return {"name": broker_name(b), "srt": srt, "prt": prt, "received": _received(sys, b)}


def tid_node(sys: TidSystem, b: Broker) -> JSON:
    srt = [{"adv": enc_adv(e.adv), "last_hop": _name(e.last_hop)}
           for _, e in sorted(sys.srt[b].items())]  # fmt: skip
    prt = [_enc_prt(p, tid) for (_, tid), p in sorted(sys.prt[b].items())]
    local = [enc_sub(s) for _, s in sorted(sys.local[b].items())]
    mine = {sid for (sid, _), p in sys.prt[b].items() if p.last_hop is None} | set(sys.local[b])
    handed = sorted([e, s] for e, s in sys.delivered if s in mine)
    return {"name": broker_name(b), "srt": srt, "prt": prt, "local": local,
            "received": _received(sys, b), "handed": handed}  # fmt: skip


def _received(sys: BrokerNetwork, b: Broker) -> JSON:
    return {e: n for (e, x), n in sorted(sys.receptions.items()) if x == b}


NODE_OF: dict[str, Callable[[Any, Broker], JSON]] = {
    "octopia-snr": octopia_node, "octopia-idr": octopia_node, "tid": tid_node,
}  # fmt: skip


def _link(sys: BrokerNetwork, b: Broker, nb: Broker) -> JSON:
    """The link status the broker reads for one of its links (§VII-B, Eq. 10), without the
    side effects of `overloaded` (no queue is created, no random draw)."""
    q = sys.queues.get((b, nb))
    st = FREE if q is None else q.status(sys.engine.now, sys.config.window_ms)
    over = (b, nb) in sys._forced or st.overloaded(sys.config.theta, sys.config.overload_rule)
    return {"overloaded": over, "rank": [_enc_real(x) for x in st.rank()]}


def _enc_real(x: float) -> JSON:
    """A rank component: a finite number, or "inf" (A2: CE is infinite when a window had
    arrivals and no departures)."""
    return "inf" if x == float("inf") else x


def _dec_real(v: JSON, where: str) -> float:
    return float("inf") if v == "inf" else float(check_number(v, where))


def context_of(sys: BrokerNetwork, b: Broker, status: JSON, publisher: str | None,
               event_id: str | None) -> JSON:  # fmt: skip
    scot = sys.scot
    links = {broker_name(nb): _link(sys, b, nb) for nb in sorted(scot.neighbours(b))}
    adverts = sorted((a for a, _ in sys.adverts.values() if a.publisher == publisher),
                     key=lambda a: a.id)  # fmt: skip
    out: dict[str, JSON] = {
        "matching": sys.matching, "m": scot.m,
        "primary": [broker_name(x) for x in scot.primary_neighbours(b)],
        "secondary": [[j, broker_name(x)] for j, x in sorted(scot.secondary_neighbours(b).items())],
        "links": links, "adverts": [enc_adv(a) for a in adverts], "status": status,
    }  # fmt: skip
    if isinstance(sys, TidSystem):
        out["tid_dynamic"] = sys.config.tid_dynamic
        tid = sys.event_tid.get(event_id) if event_id is not None else None
        out["event_tid"] = {} if tid is None or event_id is None else {event_id: tid}
    return out


def _status(sys: BrokerNetwork, ids: Sequence[str]) -> JSON:
    return [[sid, sys.subs[sid].sub.subscriber, sys.subs[sid].seq, sys.subs[sid].active]
            for sid in sorted(set(ids)) if sid in sys.subs]  # fmt: skip


def _status_ids(sys: BrokerNetwork, b: Broker, step_input: JSON) -> list[str]:
    """The subscriptions a step may deliver to or count: the broker's local ones and the one
    the input names."""
    prt: dict[Any, PrtEntry] = cast(Any, sys).prt[b]
    ids = [k[0] if isinstance(k, tuple) else k for k, p in prt.items() if p.last_hop is None]
    sub = step_input.get("sub")
    if isinstance(sub, dict):
        ids.append(sub["id"])
    elif isinstance(sub, str):
        ids.append(sub)
    return ids


# -- the harness: the reference's system holding one broker ------------------------------------


class _Scot:
    """The SCOT as one broker sees it: its aLink and iLink neighbours (§IV-B)."""

    def __init__(self, me: Broker, m: int, primary: list[Broker], secondary: dict[int, Broker]):
        self.me, self.m = me, m
        self.primary, self.secondary = tuple(sorted(primary)), secondary
        self.brokers = (me,)

    def primary_neighbours(self, b: Broker) -> tuple[Broker, ...]:
        assert b == self.me
        return self.primary

    def secondary_neighbours(self, b: Broker) -> dict[int, Broker]:
        assert b == self.me
        return dict(self.secondary)

    def neighbours(self, b: Broker) -> frozenset[Broker]:
        assert b == self.me
        return frozenset([*self.primary, *self.secondary.values()])

    def is_alink(self, a: Broker, b: Broker) -> bool:
        return (a == self.me and b in self.primary) or (b == self.me and a in self.primary)


class _Attach(dict[str, Broker]):
    """Every client a step names is attached to the broker (an op is applied at its host)."""

    def __init__(self, me: Broker) -> None:
        super().__init__()
        self.me = me

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: str) -> Broker:
        return self.me


class _Capture:
    """The harness's side of a step: sends captured (with their observation), the link
    status read from the context, queueing and installation bookkeeping left out."""

    sent: list[tuple[Broker, Broker, Message]]
    links: dict[Broker, tuple[bool, tuple[float, float]]]

    def send(self, src: Broker, dst: Broker, msg: Message) -> None:
        net = cast(BrokerNetwork, self)
        if dst not in net.scot.neighbours(src):
            raise AssertionError(f"{broker_name(src)} -> {broker_name(dst)} is not a link")
        net.observe_send(src, dst, msg)
        self.sent.append((src, dst, msg))

    def overloaded(self, src: Broker, dst: Broker) -> bool:
        return self._status(dst)[0]

    def rank(self, src: Broker, dst: Broker) -> tuple[float, float]:
        return self._status(dst)[1]

    def _status(self, nb: Broker) -> tuple[bool, tuple[float, float]]:
        got = self.links.get(nb)
        if got is None:
            raise StepInputError(f"pre.context.links has no entry {broker_name(nb)}")
        return got

    def installed_now(self, st: SubState) -> None:
        return None


class _OctopiaHarness(_Capture, OctopiaSystem):
    pass


class _TidHarness(_Capture, TidSystem):
    pass


class _Zero(dict[str, float]):
    def __missing__(self, key: str) -> float:
        return 0.0


class _Subs(dict[str, SubState]):
    """The driver's subscriptions (pre.context.status); one a step names without status is
    unknown to the driver, and its installation is not counted."""


@dataclass
class _Step:
    h: BrokerNetwork
    me: Broker
    observed: list[Observation]


def harness(pre: JSON, system: str, cls: type[BrokerNetwork]) -> _Step:
    node, ctx = field(pre, "node", "pre"), field(pre, "context", "pre")
    me = dec_broker(field(node, "name", "pre.node"), "pre.node.name")
    mode = field(ctx, "matching", "pre.context")
    if mode not in ("strict", "lenient"):
        raise StepInputError("pre.context.matching: strict or lenient")
    m = _int(field(ctx, "m", "pre.context"), "pre.context.m")
    listed = _list(field(ctx, "primary", "pre.context"), "pre.context.primary")
    primary = [dec_broker(x, "pre.context.primary") for x in listed]
    secondary: dict[int, Broker] = {}
    for x in _list(field(ctx, "secondary", "pre.context"), "pre.context.secondary"):
        if not isinstance(x, list) or len(x) != 2:
            raise StepInputError("pre.context.secondary: [cluster, broker] pairs")
        secondary[_int(x[0], "pre.context.secondary")] = dec_broker(x[1], "pre.context.secondary")
    h = object.__new__(cls)
    System.__init__(h, 0)
    h._attached_seen, h._hops, h._routing_event = set(), {}, None
    config = OctopiaConfig()
    if system == "tid":
        dyn = field(ctx, "tid_dynamic", "pre.context")
        if not isinstance(dyn, bool):
            raise StepInputError("pre.context.tid_dynamic: a boolean")
        config = replace(config, tid_dynamic=dyn)
    h.config, h.matching = config, mode
    h.scot = _Scot(me, m, primary, secondary)  # type: ignore[assignment]
    h.metrics = OctopiaMetrics()
    h.queues, h._attach = {}, _Attach(me)
    h._processing = False
    h.subs, h.adverts, h.event_seq, h.published_at = _Subs(), {}, {}, _Zero()
    h.receptions = Counter()
    cap = cast(_Capture, h)
    cap.sent, cap.links = [], {}
    links = field(ctx, "links", "pre.context")
    if not isinstance(links, dict):
        raise StepInputError("pre.context.links: an object (neighbour -> status)")
    for nb, st in links.items():
        w = f"pre.context.links.{nb}"
        over, rank = field(st, "overloaded", w), _list(field(st, "rank", w), f"{w}.rank")
        if not isinstance(over, bool) or len(rank) != 2:
            raise StepInputError(f"{w}: overloaded a boolean, rank two numbers")
        cap.links[dec_broker(nb, w)] = (over, (_dec_real(rank[0], w), _dec_real(rank[1], w)))
    for i, a in enumerate(_list(field(ctx, "adverts", "pre.context"), "pre.context.adverts")):
        adv = dec_adv(a, f"pre.context.adverts[{i}]")
        h.adverts[adv.id] = (adv, me)
    for sid, origin, seq, active in _dec_status(field(ctx, "status", "pre.context"),
                                                "pre.context.status"):  # fmt: skip
        h.subs[sid] = SubState(Subscription(sid, origin, "", ()), seq, me, _pending(), active)
    rec = field(node, "received", "pre.node")
    if not isinstance(rec, dict):
        raise StepInputError("pre.node.received: an object (event -> receptions)")
    for e, n in rec.items():
        h.receptions[(check_name(e, "pre.node.received"), me)] = _int(n, f"pre.node.received.{e}")
    observed: list[Observation] = []
    h._observer = observed.append
    if system == "tid":
        _tid_tables(cast(TidSystem, h), me, node, ctx)
    else:
        _octopia_tables(cast(OctopiaSystem, h), me, node, system)
    return _Step(h, me, observed)


def _pending() -> Installation:
    """An installation that counts the messages it waits for, never complete in a step (the
    driver's bookkeeping, D-OPS)."""
    return Installation(0.0, 1 << 30)


def _prt_entries(h: BrokerNetwork, me: Broker) -> list[PrtEntry]:
    prt = cast(Any, h).prt[me]
    return list(prt.values())


def _octopia_tables(h: OctopiaSystem, me: Broker, node: JSON, system: str) -> None:
    h.routing = "snr" if system == "octopia-snr" else "idr"
    h.srt, h.prt = {me: {}}, {me: {}}
    for i, e in enumerate(_list(field(node, "srt", "pre.node"), "pre.node.srt")):
        w = f"pre.node.srt[{i}]"
        adv = dec_adv(field(e, "adv", w), f"{w}.adv")
        scb = field(e, "scb", w)
        if not isinstance(scb, bool):
            raise StepInputError(f"{w}.scb: a boolean")
        stc = civ_of([_int(j, f"{w}.stc") for j in _list(field(e, "stc", w), f"{w}.stc")])
        h.srt[me][adv.id] = SrtEntry(adv, _int(field(e, "host_ci", w), f"{w}.host_ci"),
                                     _opt_broker(field(e, "last_hop", w), f"{w}.last_hop"),
                                     stc, scb)  # fmt: skip
    for i, p in enumerate(_list(field(node, "prt", "pre.node"), "pre.node.prt")):
        w = f"pre.node.prt[{i}]"
        sub = dec_sub(field(p, "sub", w), f"{w}.sub")
        h.prt[me][sub.id] = PrtEntry(sub, _opt_broker(field(p, "last_hop", w), f"{w}.last_hop"))


def _tid_tables(h: TidSystem, me: Broker, node: JSON, ctx: JSON) -> None:
    h.srt, h.prt, h.local = {me: {}}, {me: {}}, {me: {}}
    for i, e in enumerate(_list(field(node, "srt", "pre.node"), "pre.node.srt")):
        w = f"pre.node.srt[{i}]"
        adv = dec_adv(field(e, "adv", w), f"{w}.adv")
        h.srt[me][adv.id] = TidSrtEntry(adv, _opt_broker(field(e, "last_hop", w),
                                                         f"{w}.last_hop"))  # fmt: skip
    for i, p in enumerate(_list(field(node, "prt", "pre.node"), "pre.node.prt")):
        w = f"pre.node.prt[{i}]"
        sub = dec_sub(field(p, "sub", w), f"{w}.sub")
        tid = check_name(field(p, "tid", w), f"{w}.tid")
        h.prt[me][(sub.id, tid)] = PrtEntry(sub, _opt_broker(field(p, "last_hop", w),
                                                             f"{w}.last_hop"))  # fmt: skip
    for i, s in enumerate(_list(field(node, "local", "pre.node"), "pre.node.local")):
        sub = dec_sub(s, f"pre.node.local[{i}]")
        h.local[me][sub.id] = sub
    h.delivered = set()
    for i, x in enumerate(_list(field(node, "handed", "pre.node"), "pre.node.handed")):
        if not isinstance(x, list) or len(x) != 2:
            raise StepInputError(f"pre.node.handed[{i}]: [event, sub]")
        h.delivered.add((check_name(x[0], "pre.node.handed"), check_name(x[1], "pre.node.handed")))
    et = field(ctx, "event_tid", "pre.context")
    if not isinstance(et, dict):
        raise StepInputError("pre.context.event_tid: an object (event -> TID)")
    h.event_tid = {check_name(e, "pre.context.event_tid"): check_name(t, "event_tid")
                   for e, t in et.items()}  # fmt: skip
    h.switches = 0


def _sends(h: BrokerNetwork, observed: Sequence[Observation],
           sent: Sequence[tuple[Broker, Broker, Message]], seqs: Seqs) -> list[JSON]:  # fmt: skip
    obs = [o for o in observed if o.kind == SEND]
    assert len(obs) == len(sent), "one send observation per message"
    out = []
    for o, (src, dst, msg) in zip(obs, sent, strict=True):
        j = observation_to_json(o)
        fields = j.setdefault("fields", {})
        fields["route"] = "direct"  # one link of the SCOT
        depth = h._hops.get((msg.event.id, dst), 0) if isinstance(msg, Notification) else 0
        fields["message"] = enc_message(msg, src, seqs, depth)
        out.append(j)
    return out


def _op(step_input: JSON, seqs: Seqs) -> tuple[str, Any]:
    op = field(step_input, "op", "input")
    if op == "subscribe":
        sub = dec_sub(field(step_input, "sub", "input"), "input.sub")
        seqs[sub.id] = _seq(field(step_input, "seq", "input"), "input.seq")
        return op, sub
    if op in ("unsubscribe", "unadvertise"):
        return op, check_name(field(step_input, "sub" if op == "unsubscribe" else "adv",
                                    "input"), "input")  # fmt: skip
    if op == "publish":
        return op, dec_event(field(step_input, "event", "input"), "input.event", seqs)
    if op == "advertise":
        return op, dec_adv(field(step_input, "adv", "input"), "input.adv")
    raise StepInputError(f"input.op: one of {', '.join(OPS)}")


def enc_op(op: str, arg: Any, seqs: Seqs) -> JSON:
    if op == "subscribe":
        return {"op": op, "sub": enc_sub(arg), "seq": seqs.get(arg.id, 0)}
    if op == "unsubscribe":
        return {"op": op, "sub": arg}
    if op == "unadvertise":
        return {"op": op, "adv": arg}
    if op == "advertise":
        return {"op": op, "adv": enc_adv(arg)}
    return {"op": op, "event": enc_event(arg, seqs)}


def run_step(system: str, pre: JSON, step_input: JSON, cls: type[BrokerNetwork]) -> Outcome:
    """Apply one input (a message received or an op applied) to one broker's pre-state."""
    step = harness(pre, system, cls)
    h, me = step.h, step.me
    action: Callable[[], object]
    if isinstance(step_input, dict) and "op" in step_input:
        op, arg = _op(step_input, h.event_seq)
        if op == "unsubscribe":
            st = h.subs.get(arg)
            local = any(p.sub.id == arg and p.last_hop is None for p in _prt_entries(h, me))
            if system == "tid":
                local = local or arg in cast(TidSystem, h).local[me]
            if st is None or not st.active or not local:
                return Outcome(invalid="an unsubscription names an active subscription of a "
                                       "client of this broker (A18)")  # fmt: skip
        if op == "unadvertise" and arg not in h.adverts:
            return Outcome(invalid="an unadvertisement names an active advertisement of a "
                                   "client of this broker (A18)")  # fmt: skip
        if op == "advertise" and arg.id in h.adverts:
            return Outcome(invalid="advertise: an advertisement id already used (O-EXPLICIT)")
        if op == "subscribe" and arg.id in h.subs:
            return Outcome(invalid="subscribe: a subscription id already used (D-OPS)")
        seq = h.event_seq.get(arg.id, 0) if op in ("subscribe", "publish") else 0
        action = {"subscribe": lambda: h.subscribe(arg, seq),
                  "unsubscribe": lambda: h.unsubscribe(arg),
                  "publish": lambda: h.publish(arg, seq),
                  "advertise": lambda: h.advertise(arg.publisher, arg),
                  "unadvertise": lambda: h.unadvertise(arg)}[op]  # fmt: skip
    else:
        src, msg, depth = dec_message(step_input, system, h.event_seq)
        if src not in h.scot.neighbours(me):
            return Outcome(invalid="a message comes over one of the broker's links (§IV)")
        if isinstance(msg, Notification):
            h._hops[(msg.event.id, me)] = depth

        def action() -> object:
            return h._dispatch(Arrival(src, me, msg))

    try:
        action()
    except StepInputError:
        raise
    except (KeyError, AssertionError, ValueError) as e:
        # an input the broker must refuse: a publication no advertisement covers (A7), a
        # message naming what the broker does not hold (the reason names it)
        return Outcome(invalid=f"{_kind(step_input)} refused: {type(e).__name__} {e}")
    post = {"node": NODE_OF[system](h, me),
            "delivered": sorted([d.event_id, d.sub_id] for d in h.deliveries)}  # fmt: skip
    return Outcome(post, _sends(h, step.observed, cast(_Capture, h).sent, h.event_seq))


# -- candidates: every step of small simulated networks ---------------------------------------


class Step:
    def __init__(self, me: Broker, pre: JSON, step_input: JSON) -> None:
        self.me, self.pre, self.input = me, pre, step_input
        self.post: JSON = None
        self.sent: list[JSON] = []


def _recorder(cls: type[BrokerNetwork], system: str, out: list[Step]) -> Any:
    class Recorder(cls):  # type: ignore[misc, valid-type]
        _inside: Step | None = None
        _sent: list[tuple[Broker, Broker, Message]]
        _obs: list[Observation]

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._observer = self._collect
            super().__init__(*args, **kwargs)

        def _collect(self, o: Observation) -> None:
            if self._inside is not None:
                self._obs.append(o)

        def send(self, src: Broker, dst: Broker, msg: Message) -> None:
            if self._inside is not None:
                self._sent.append((src, dst, msg))
            super().send(src, dst, msg)

        def _step(self, b: Broker, step_input: JSON, publisher: str | None,
                  event_id: str | None, run: Callable[[], object]) -> None:  # fmt: skip
            status = _status(self, _status_ids(self, b, step_input))
            pre = {"node": NODE_OF[system](self, b),
                   "context": context_of(self, b, status, publisher, event_id)}  # fmt: skip
            step = Step(b, pre, step_input)
            out.append(step)
            before = len(self.deliveries)
            self._inside, self._sent, self._obs = step, [], []
            run()
            self._inside = None
            delivered = sorted([d.event_id, d.sub_id] for d in self.deliveries[before:])
            step.post = {"node": NODE_OF[system](self, b), "delivered": delivered}
            step.sent = _sends(self, self._obs, self._sent, self.event_seq)

        def _dispatch(self, item: Arrival) -> str:
            assert item.src is not None and not self._processing
            msg = item.msg
            depth = self._hops.get((msg.event.id, item.dst), 0) if isinstance(
                msg, Notification) else 0  # fmt: skip
            step_input = enc_message(msg, item.src, self.event_seq, depth)
            got: list[str] = []
            event_id = msg.event.id if isinstance(msg, Notification) else None
            self._step(item.dst, step_input, None, event_id,
                       lambda: got.append(super(Recorder, self)._dispatch(item)))  # fmt: skip
            return got[0]

        def subscribe(self, sub: Subscription, seq: int) -> None:
            b = self.host_of(sub.subscriber)
            self._step(b, enc_op("subscribe", sub, {sub.id: seq}), None, None,
                       lambda: super(Recorder, self).subscribe(sub, seq))  # fmt: skip

        def unsubscribe(self, sub_id: str) -> None:
            b = self.subs[sub_id].host
            self._step(b, enc_op("unsubscribe", sub_id, {}), None, None,
                       lambda: super(Recorder, self).unsubscribe(sub_id))  # fmt: skip

        def publish(self, event: Event, seq: int) -> None:
            b = self.host_of(event.publisher)
            seqs = {event.id: seq}
            self._step(b, enc_op("publish", event, seqs), event.publisher, event.id,
                       lambda: super(Recorder, self).publish(event, seq))  # fmt: skip

        def advertise(self, publisher: str, adv: Advertisement) -> None:
            b = self.host_of(publisher)
            self._step(b, enc_op("advertise", adv, {}), publisher, None,
                       lambda: super(Recorder, self).advertise(publisher, adv))  # fmt: skip

        def unadvertise(self, adv_id: str) -> None:
            adv, b = self.adverts[adv_id]
            self._step(b, enc_op("unadvertise", adv_id, {}), adv.publisher, None,
                       lambda: super(Recorder, self).unadvertise(adv_id))  # fmt: skip

    return Recorder


def recorded(system: str, trace: Trace) -> list[Step]:
    """Every step of a run of the trace, on the whole network."""
    from pubsub_spec.reference.sim.run import run_trace

    out: list[Step] = []
    if system == "tid":
        rec = _recorder(TidSystem, system, out)
        run_trace(trace, lambda t: rec.for_trace(t, "tid"))
    else:
        rec = _recorder(OctopiaSystem, system, out)
        run_trace(trace, lambda t: rec.for_trace(t, system, system.split("-")[1]))
    return out


def _traces(system: str) -> Iterator[tuple[str, Trace]]:
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.reference.octopia.config import config_of

    for gen in ("octopia-stock", "octopia-burst", "uniform", "partial-lenient", "churn",
                "identical", "boundaries"):  # fmt: skip
        for seed in (0, 1):
            t = GENERATORS[gen](seed, 0, "tiny")
            config = replace(config_of(t, system), m=3, acyclic_edges=(("a", "b"), ("b", "c")))
            if system == "tid" and seed == 1:
                config = replace(config, tid_dynamic=True)
            yield f"{gen}-{seed}", t.with_section(system, config)


def _crafted(system: str, steps: list[Step]) -> Iterator[Case]:
    """Steps the runs do not reach, from their recorded pre-states: overloaded links (IDR's
    cases (i), (ii)/(iii), (iv), §VII-B; O-TID-DYN's detours), a reception past the loop
    guard (I3)."""
    done: set[str] = set()
    for i, s in enumerate(steps):
        kind = _kind(s.input)
        if kind not in ("Notification", "publish") or not s.sent:
            continue
        links = s.pre["context"]["links"]
        targets = sorted({x["to"] for x in s.sent})
        secondary = {b for _, b in s.pre["context"]["secondary"]}
        variants = {
            "firstover": targets[:1],
            "ilinksover": [t for t in targets if t in secondary],
            "allover": sorted(links),
        }
        if len(secondary & set(targets)) < 2:  # IDR's cases differ from SNR's with 2 iLinks
            variants = {}
        came = s.input.get("from")
        down = [nb for nb in s.pre["context"]["primary"] if nb != came]
        if len(down) >= 2 and secondary & set(targets) and "twoalinks" not in done:
            # case (ii)/(iii) with two target aLinks (a subscription down each, §VII): the
            # CIV-N rides the least loaded one, the other copy is plain
            done.add("twoalinks")
            pre = copy.deepcopy(s.pre)
            schema = s.input["event"]["schema"]
            extra = [{"sub": {"id": f"s-via-{nb}", "subscriber": f"c-via-{nb}",
                              "schema": schema, "predicates": []}, "last_hop": nb}
                     for nb in down]  # fmt: skip
            if system == "tid":
                extra = [{**e, "tid": s.sent[0]["fields"]["message"]["tid"]} for e in extra]
            prt = [*pre["node"]["prt"], *extra]
            pre["node"]["prt"] = sorted(prt, key=lambda p: (p["sub"]["id"], p.get("tid", "")))
            for t in targets:
                if t in secondary:
                    pre["context"]["links"][t]["overloaded"] = True
            yield Case(kind, f"{i:04d}-twoalinks", pre, s.input)
        for label, over in variants.items():
            key = f"{label}-{len(targets)}"
            if not over or key in done:
                continue
            done.add(key)
            pre = copy.deepcopy(s.pre)
            for nb in over:
                pre["context"]["links"][nb]["overloaded"] = True
            for j, nb in enumerate(sorted(pre["context"]["links"])):
                pre["context"]["links"][nb]["rank"] = [float(j % 3), float(j)]
            yield Case(kind, f"{i:04d}-{label}", pre, s.input)
        if kind == "Notification" and "loop" not in done:
            done.add("loop")
            for n, label in ((3, "loopguard"), (2, "loopbound")):  # dropped past the guard
                pre = copy.deepcopy(s.pre)
                pre["node"]["received"][s.input["event"]["id"]] = n
                yield Case(kind, f"{i:04d}-{label}", pre, s.input)


def _edited(system: str, steps: list[Step]) -> Iterator[Case]:
    """Recorded steps with the state changed where the runs do not go: a subscriber that has
    ended, an entry the broker no longer holds (after an unadvertisement or unsubscription),
    a copy handed over already or from downstream, and (O-TID-DYN) an overloaded next hop
    with another bound TID's path around it."""
    done: set[str] = set()

    def once(label: str) -> bool:
        if label in done:
            return False
        done.add(label)
        return True

    for i, s in enumerate(steps):
        kind = _kind(s.input)
        pre = s.pre
        if kind in ("Notification", "publish") and s.post["delivered"] and once("ended"):
            x = copy.deepcopy(pre)
            for st in x["context"]["status"]:
                st[3] = False
            yield Case(kind, f"{i:04d}-ended", x, s.input)
        held = kind in ("CIB_SET", "publish", "Subscription") and pre["node"]["srt"]
        if held and once(f"noentry-{kind}"):
            x = copy.deepcopy(pre)
            x["node"]["srt"] = []
            yield Case(kind, f"{i:04d}-noentry", x, s.input)
        if kind == "Subscription" and system == "tid" and s.sent and once("nostatus"):
            x = copy.deepcopy(pre)
            x["context"]["status"] = []
            yield Case(kind, f"{i:04d}-nostatus", x, s.input)
        if kind == "Unsubscription" and pre["node"]["prt"] and once("notheld"):
            x = copy.deepcopy(pre)
            x["node"]["prt"] = []
            yield Case(kind, f"{i:04d}-notheld", x, s.input)
        if system != "tid" or kind not in ("Notification", "publish"):
            continue
        dynamic = pre["context"]["tid_dynamic"]
        if dynamic and s.post["delivered"] and once("handed"):
            x = copy.deepcopy(pre)
            x["node"]["handed"] = sorted([*x["node"]["handed"], *s.post["delivered"]])
            yield Case(kind, f"{i:04d}-handed", x, s.input)
        if kind == "Notification":
            tid = s.input["tid"]
            down = [p["last_hop"] for p in pre["node"]["prt"] if p["tid"] == tid
                    and p["last_hop"] not in (None, s.input["from"])]  # fmt: skip
            if down and once("downstream"):
                yield Case(kind, f"{i:04d}-downstream", pre, {**s.input, "from": down[0]})
        if not dynamic or not s.sent:
            continue
        tid = s.sent[0]["fields"]["message"]["tid"]
        came = s.input.get("from")
        for blocked in (False, True):
            label = "blocked" if blocked else "detour"
            if not once(label):
                continue
            x = copy.deepcopy(pre)
            links = x["context"]["links"]
            for send in s.sent:
                nb = send["to"]
                alt = next((a for a in sorted(links) if a not in (nb, came)), None)
                if alt is None:
                    continue
                links[nb]["overloaded"] = True
                links[alt]["overloaded"] = blocked
                extra = [
                    {**p, "tid": f"{tid}-alt", "last_hop": alt}
                    for p in x["node"]["prt"]
                    if p["tid"] == tid and p["last_hop"] == nb
                ]
                x["node"]["prt"] = sorted([*x["node"]["prt"], *extra],
                                          key=lambda p: (p["sub"]["id"], p["tid"]))  # fmt: skip
            yield Case(kind, f"{i:04d}-{label}", x, s.input)


def _refused(system: str, steps: list[Step]) -> Iterator[Case]:
    s = next(x for x in steps if _kind(x.input) == "publish")
    pre = copy.deepcopy(s.pre)
    pre["context"]["adverts"] = []
    yield Case("publish", "no-advertisement", pre, s.input)
    yield Case("unsubscribe", "unknown-subscription", s.pre, {"op": "unsubscribe", "sub": "s-none"})
    yield Case("unadvertise", "unknown-advertisement", s.pre,
               {"op": "unadvertise", "adv": "a-none"})  # fmt: skip
    far = {**s.input, "type": "Notification", "from": "B(nowhere,0)", "civ": [], "tid": "t",
           "depth": 1}  # fmt: skip
    far.pop("op")
    yield Case("Notification", "not-a-link", s.pre, far)


def candidates(system: str) -> Iterator[Case]:
    """Every step of runs of the conformance generators' tiny traces on a SCOT of 3 x K3
    brokers (TID dynamic routing on for the seed-1 runs), then crafted ones."""
    first: list[Step] = []
    for label, trace in _traces(system):
        steps = recorded(system, trace)
        for i, s in enumerate(steps):
            yield Case(_kind(s.input), f"{label}-{i:04d}", s.pre, s.input)
        for case in (*_crafted(system, steps), *_edited(system, steps)):
            yield Case(case.handler, f"{label}-{case.name}", case.pre, case.input)
        if not first:
            first = steps
    yield from _refused(system, first)


# -- the systems' part of the framework --------------------------------------------------------

OCTOPIA_HANDLERS = (
    Handler("advertise", "OctopiA §V (scotAFP, step 1)",
            "the host stores the advertisement context (lastHop P) and sends the "
            "advertisement to its m-1 secondary neighbours"),
    Handler("unadvertise", "OctopiA §V",
            "the host removes the entry and sends the unadvertisement to the same region"),
    Handler("subscribe", "OctopiA §VI",
            "the host saves (s, P) in its PRT, sends a CIB_SET for each overlapping "
            "advertisement of another cluster whose SCB is OFF, and broadcasts s over its "
            "cluster's aLinks"),
    Handler("unsubscribe", "OctopiA §VI (CIBs never cleared, A6)",
            "the PRT entry removed and the unsubscription broadcast likewise"),
    Handler("publish", "OctopiA §VII (A13)",
            "the host's CIV is the union of the conforming advertisements' CIBs; routed as a "
            "Notification"),
    Handler("Advertisement", "OctopiA §V (scotAFP, steps 2-3)",
            "a secondary broker stores the subscription context; SCB ON and a CIB_SET to the "
            "host when a PRT subscription overlaps"),
    Handler("Unadvertisement", "OctopiA §V", "the SRT entry removed"),
    Handler("Subscription", "OctopiA §VI (subscription subgrouping)",
            "saved with its lastHop, CIB_SETs where the SCB is OFF, broadcast on over the "
            "other aLinks of the cluster"),
    Handler("Unsubscription", "OctopiA §VI", "removed and passed on over the other aLinks"),
    Handler("CIB_SET", "OctopiA §V step 3, §VI",
            "the host sets the CIB of the sender's cluster"),
    Handler("Notification", "OctopiA §VII-A (SNR), §VII-B (IDR, A8-A10)",
            "local subscribers delivered, copies down the aLinks of matching PRT entries "
            "(reverse path), and to the target iLinks of the CIV: one each (SNR), or IDR's "
            "CIV-N by the link status"),
)  # fmt: skip
TID_HANDLERS = (
    Handler("advertise", "PADRES [20] as OctopiA §II describes it",
            "the host floods the advertisement with its TID"),
    Handler("unadvertise", "[20]; OctopiA §II", "the unadvertisement flooded likewise"),
    Handler("subscribe", "[20]; OctopiA §II, Fig. 1(c)",
            "bound to the TIDs of the overlapping advertisements, sent along each reverse path"),
    Handler("unsubscribe", "[20]", "removed along the same paths"),
    Handler("publish", "[20]; OctopiA §II (decision O-TID-DYN)",
            "the notification carries the TID of the first conforming advertisement"),
    Handler("Advertisement", "[20]; OctopiA §II, Fig. 1(a)",
            "the first copy stored with its lastHop and forwarded to every other neighbour, "
            "later copies discarded; local subscriptions bind to the new TID"),
    Handler("Unadvertisement", "[20]", "the entry and its PRT entries removed, flooded on"),
    Handler("Subscription", "[20]; OctopiA §II, Fig. 1(c)",
            "stored as (s, TID, lastHop) and sent on toward the TID's root"),
    Handler("Unsubscription", "[20]", "removed and sent on toward the TID's root"),
    Handler("Notification", "[20]; OctopiA §II (decision O-TID-DYN)",
            "forwarded by the PRT entries of its TID; with dynamic routing, around an "
            "overloaded next hop along another bound TID's path"),
)  # fmt: skip


class _OctopiaSteps(StepSystem):
    harness: type[BrokerNetwork]
    paper = PAPER

    def __init__(self, variant: type[BrokerNetwork] | None = None) -> None:
        """`variant`: a subclass of the reference system (a mutant) whose handlers run."""
        self.cls = self.harness
        if variant is not None:
            self.cls = type(f"_Harness{variant.__name__}", (_Capture, variant), {})

    def handler_of(self, step_input: JSON) -> str:
        return _kind(step_input)

    def apply(self, pre: JSON, step_input: JSON) -> Outcome:
        return run_step(self.name, pre, step_input, self.cls)

    def candidates(self) -> Iterator[Case]:
        yield from candidates(self.name)
        if self.name in octopia_model.MODELS and octopia_model.available():
            # every distinct (state, action) of spec/octopia/MCScotRouting.tla at its CI bound,
            # each checked against this system's handlers (docs/steps.md)
            yield from octopia_model.cases(self.name, self.apply)

    def keep(self, case: Case) -> bool:
        return case.name.startswith("model-")

    def schema(self) -> dict[str, JSON]:
        from pubsub_spec.conformance.steps.octopia_schema import schema

        return schema(self.name)

    def roundtrip(self, document: str, value: JSON) -> JSON:
        seqs: Seqs = {}
        if document == "input":
            if "op" in value:
                op, arg = _op(value, seqs)
                return enc_op(op, arg, seqs)
            src, msg, depth = dec_message(value, self.name, seqs)
            return enc_message(msg, src, seqs, depth)
        ctx = value.get("context") if document == "pre" else None
        if ctx is None:  # a post-state: read with an empty context
            ctx = {"matching": "strict", "m": 1, "primary": [], "secondary": [], "links": {},
                   "adverts": [], "status": [], "tid_dynamic": False, "event_tid": {}}  # fmt: skip
        step = harness({"node": value["node"], "context": ctx}, self.name, self.harness)
        node = NODE_OF[self.name](step.h, step.me)
        if document == "pre":
            return {"node": node, "context": value["context"]}
        out = {"node": node}
        out["delivered"] = [[check_name(e, "event"), check_name(s, "sub")]
                            for e, s in field(value, "delivered", "post")]  # fmt: skip
        return out


class SnrSteps(_OctopiaSteps):
    name = "octopia-snr"
    harness = _OctopiaHarness
    handlers = OCTOPIA_HANDLERS
    coverage: tuple[tuple[str, tuple[str, ...]], ...] = (
        ("reference/octopia/system.py", (
            "OctopiaSystem._handle", "OctopiaSystem._advertise", "OctopiaSystem.on_adv",
            "OctopiaSystem.afp_prt_check", "OctopiaSystem._unadvertise",
            "OctopiaSystem.on_cib_set", "OctopiaSystem.subscribe", "OctopiaSystem.receive_sub",
            "OctopiaSystem.sub_forward", "OctopiaSystem.unsubscribe",
            "OctopiaSystem.receive_unsub", "OctopiaSystem.publish", "OctopiaSystem.route",
            "OctopiaSystem.copies", "BrokerNetwork.receive", "BrokerNetwork.deliver",
            "BrokerNetwork.conforming")),
        ("reference/octopia/routing.py", ("snr_copies",)),
        ("reference/octopia/subscriptions.py", ("cib_set_targets",)),
    )  # fmt: skip


class IdrSteps(SnrSteps):
    name = "octopia-idr"
    coverage = (
        SnrSteps.coverage[0],
        ("reference/octopia/routing.py", ("snr_copies", "idr_copies")),
        SnrSteps.coverage[2],
    )


class TidSteps(_OctopiaSteps):
    name = "tid"
    harness = _TidHarness
    handlers = TID_HANDLERS
    coverage = (
        ("reference/octopia/tid.py", (
            "TidSystem._handle", "TidSystem.on_adv", "TidSystem.on_unadv", "TidSystem.subscribe",
            "TidSystem.receive_sub", "TidSystem.unsubscribe", "TidSystem.receive_unsub",
            "TidSystem.publish", "TidSystem.route", "TidSystem.detours")),
        ("reference/octopia/system.py", ("BrokerNetwork.receive", "BrokerNetwork.deliver",
                                         "BrokerNetwork.conforming")),
    )  # fmt: skip


SYSTEMS: dict[str, StepSystem] = {"octopia-snr": SnrSteps(), "octopia-idr": IdrSteps(),
                                  "tid": TidSteps()}  # fmt: skip
SYSTEM = SYSTEMS["octopia-snr"]
