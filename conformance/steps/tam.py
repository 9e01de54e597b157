"""Step vectors of Tam et al. (David Tam, Reza Azimi, Hans-Arno Jacobsen, "Building Content-based
Publish/Subscribe Systems with Distributed Hash Tables", DBISP2P 2003) over Scribe (Castro,
Druschel, Kermarrec, Rowstron, IEEE JSAC 2002): one peer of `tam` (index keys as Scribe
groups, Tam et al. §3.3) or `tam-basic` (the home-node scheme, §3.2), each handler of
reference/tam/system.py and reference/overlay/scribe.py run on one peer.

The peer's state (`pre.node`, `post.node`) is what its handlers read and change: its name, the
subscriptions it made (`subs`: each with its `seq`, the index `keys` it registered on and
whether it is `active`), and per system
- tam: per key the subscriptions registered on it (`registered`), the Scribe state of every
  group the peer is in (`groups`: `key`, `parent` (null at the root), `children`, `member`;
  Scribe §2.2) and the seen-list of the `all` policy (`seen`: event id -> time, §3.6);
- tam-basic: the subscriptions stored at the peer as a key's home (`store`: key ->
  subscriptions, §3.2) and the seen-list of its notifications (`seen`: [event, sub] pairs).
`pre.context` does not change: the schemas, the matching mode (strict, decision T10), the
system's configuration section (`config`, as the trace header writes it: indices, intervals,
policy), the overlay's answers the handlers ask for (`routes`: key -> the peer's next hop
toward it, the peer itself when it is the key's home; Pastry §2.1.2), the time (`now`, ms, for
the seen-list deadline, T7) and `status`, the driver's bookkeeping of the subscriptions a home
matches ([id, subscriber, seq, active]: a subscription is matched for events published after
it while it is active; docs/design.md#active). Keys are 40 lower-case hex digits
(conformance/OBSERVATIONS.md, "tam, tam-basic").

A send is the reference's own `send` observation with `route` (`direct`: every send is one
overlay hop to a named peer, T14) and the whole `message`. Deliveries are `[event, sub]` pairs.
Churn (root handover, tree rebuild, key handover: decision T12) acts on every peer at once in
the reference and has no one-peer handler here.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from pubsub_spec.conformance.protocol import observation_to_json
from pubsub_spec.conformance.steps import tam_model
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
    _list,
    _names,
    _seq,
    dec_event,
    enc_event,
)
from pubsub_spec.conformance.steps.thesis import dec_schema, dec_sub, enc_schema, enc_sub
from pubsub_spec.reference.common.model import Event, Schema, Subscription
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.overlay.pastry import sha1_id
from pubsub_spec.reference.overlay.scribe import (
    GroupState,
    Scribe,
    ScribeJoin,
    ScribeLeave,
    ScribeMessage,
    ScribeMulticast,
    ScribePublish,
    message_name,
)
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.observe import SEND, Observation
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.tam.config import BASIC_SECTION, SECTION, TamCodec, TamConfig
from pubsub_spec.reference.tam.messages import (
    BasicMessage,
    TamNotify,
    TamPublish,
    TamSubscribe,
    TamUnsubscribe,
)
from pubsub_spec.reference.tam.system import (
    Hop,
    Routed,
    SubRecord,
    TamBasicSystem,
    TamMetrics,
    TamSystem,
    _TamBase,
    hex_key,
)
from pubsub_spec.reference.tam.tables import Table

PAPER = (
    'David Tam, Reza Azimi, Hans-Arno Jacobsen, "Building Content-based Publish/Subscribe '
    'Systems with Distributed Hash Tables", DBISP2P 2003'
)
MESSAGES: dict[str, tuple[str, ...]] = {
    "tam": ("ScribeJoin", "ScribeLeave", "ScribePublish", "ScribeMulticast"),
    "tam-basic": ("TamSubscribe", "TamUnsubscribe", "TamPublish", "TamNotify"),
}
OPS = ("subscribe", "unsubscribe", "publish")


class _OverlayGap(Exception):
    """The step asks the overlay something its context does not answer."""


def _key(v: JSON, where: str) -> int:
    if not isinstance(v, str) or len(v) != 40 or v.strip("0123456789abcdef"):
        raise StepInputError(f"{where}: a key of 40 lower-case hex digits")
    return int(v, 16)


class Names:
    """Peer names and their Pastry ids (the SHA-1 of the name, as the observations say)."""

    def __init__(self) -> None:
        self.name_of: dict[int, str] = {}

    def pid(self, name: str) -> int:
        pid = sha1_id(name)
        self.name_of[pid] = name
        return pid


# -- messages ----------------------------------------------------------------------------------


def enc_message(m: ScribeMessage[Event] | BasicMessage, name_of: dict[int, str],
                seqs: Seqs) -> JSON:  # fmt: skip
    if isinstance(m, ScribeJoin):
        return {"type": "ScribeJoin", "key": hex_key(m.group), "child": name_of[m.child],
                "origin": name_of[m.origin], "repair": m.repair}  # fmt: skip
    if isinstance(m, ScribeLeave):
        return {"type": "ScribeLeave", "key": hex_key(m.group), "child": name_of[m.child]}
    if isinstance(m, ScribePublish | ScribeMulticast):
        return {"type": message_name(m), "key": hex_key(m.group),
                "event": enc_event(m.payload, seqs)}  # fmt: skip
    if isinstance(m, TamSubscribe):
        return {"type": "TamSubscribe", "key": hex_key(m.key), "sub": enc_sub(m.sub),
                "seq": m.seq}  # fmt: skip
    if isinstance(m, TamUnsubscribe):
        return {"type": "TamUnsubscribe", "key": hex_key(m.key), "sub": m.sub_id}
    if isinstance(m, TamPublish):
        return {"type": "TamPublish", "key": hex_key(m.key), "event": enc_event(m.event, seqs)}
    if isinstance(m, TamNotify):
        return {"type": "TamNotify", "event": enc_event(m.event, seqs), "subs": list(m.sub_ids)}
    raise TypeError(f"no one-peer handler for {type(m).__name__}")


def dec_message(v: JSON, system: str, names: Names,
                seqs: Seqs) -> ScribeMessage[Event] | BasicMessage:  # fmt: skip
    w = "input"
    kind = field(v, "type", w)
    if kind not in MESSAGES[system]:
        raise StepInputError(f"input.type: one of {', '.join(MESSAGES[system])}")
    if kind == "TamNotify":
        subs = tuple(_names(field(v, "subs", w), "input.subs"))
        return TamNotify(dec_event(field(v, "event", w), "input.event", seqs), subs)
    key = _key(field(v, "key", w), "input.key")
    if kind == "ScribeJoin":
        repair = field(v, "repair", w)
        if not isinstance(repair, bool):
            raise StepInputError("input.repair: a boolean")
        child = names.pid(check_name(field(v, "child", w), "input.child"))
        origin = names.pid(check_name(field(v, "origin", w), "input.origin"))
        return ScribeJoin(key, child, origin, repair)
    if kind == "ScribeLeave":
        return ScribeLeave(key, names.pid(check_name(field(v, "child", w), "input.child")))
    if kind == "TamSubscribe":
        return TamSubscribe(key, dec_sub(field(v, "sub", w), "input.sub"),
                            _seq(field(v, "seq", w), "input.seq"))  # fmt: skip
    if kind == "TamUnsubscribe":
        return TamUnsubscribe(key, check_name(field(v, "sub", w), "input.sub"))
    event = dec_event(field(v, "event", w), "input.event", seqs)
    if kind == "TamPublish":
        return TamPublish(key, event)
    return (ScribePublish if kind == "ScribePublish" else ScribeMulticast)(key, event)


def enc_op(op: Subscribe | Unsubscribe | Publish) -> JSON:
    if isinstance(op, Subscribe):
        return {"op": "subscribe", "sub": enc_sub(op.sub), "seq": op.seq}
    if isinstance(op, Unsubscribe):
        return {"op": "unsubscribe", "sub": op.sub_id}
    return {"op": "publish", "event": enc_event(op.event, {op.event.id: op.seq})}


def _kind(step_input: JSON) -> str:
    if isinstance(step_input, dict):
        k = step_input.get("type", step_input.get("op"))
        if isinstance(k, str):
            return k
    raise StepInputError("input: `type` (a message) or `op`")


# -- one peer's state, read from a system (the harness or a whole simulated network) ----------


def _own(sys: _TamBase, me: str) -> list[SubRecord]:
    return sorted((r for r in sys.subs.values() if r.sub.subscriber == me and r.active),
                  key=lambda r: r.sub.id)  # fmt: skip


def _enc_rec(r: SubRecord) -> JSON:
    return {"sub": enc_sub(r.sub), "seq": r.seq, "keys": [hex_key(k) for k in r.keys],
            "active": r.active}  # fmt: skip


def _context(sys: _TamBase, routes: dict[int, int], status: JSON) -> JSON:
    return {
        "schemas": [enc_schema(t.schema) for _, t in sorted(sys.tables.items())],
        "matching": sys.matching,
        "config": TamCodec(sys.section).to_json(sys.config),
        "routes": {hex_key(k): sys.name_of[v] for k, v in sorted(routes.items())},
        "now": sys.engine.now,
        "status": status,
    }


def tam_node(sys: TamSystem, me: str) -> JSON:
    pid = sys.pid_of[me]
    registered = {hex_key(k): sorted(sids) for (p, k), sids in sorted(sys.registered.items())
                  if p == pid and sids}  # fmt: skip
    groups = []
    for g, nodes in sorted(sys.scribe.groups.items()):
        st = nodes.get(pid)
        if st is not None:
            groups.append({
                "key": hex_key(g),
                "parent": None if st.parent is None else sys.name_of[st.parent],
                "children": sorted(sys.name_of[c] for c in st.children),
                "member": st.member,
            })  # fmt: skip
    seen = dict(sorted(sys.seen.get(pid, {}).items()))
    # the peer's own subscriptions as it holds them (`local`: what the `all` policy matches
    # against, §3.6, T8), each with the driver's record
    subs = [_enc_rec(sys.subs[sid]) for sid in sorted(sys.local.get(pid, ()))]
    return {"name": me, "subs": subs, "registered": registered, "groups": groups,
            "seen": seen}  # fmt: skip


def basic_node(sys: TamBasicSystem, me: str) -> JSON:
    pid = sys.pid_of[me]
    # every key the home keeps an entry for, an empty one too (the key handover of T12 moves
    # the entries): the reference drops a key's entry with its last subscription (§3.2)
    store = {hex_key(k): [enc_sub(s) for _, s in sorted(at.items())]
             for k, at in sorted(sys.store.get(pid, {}).items())}  # fmt: skip
    seen = sorted([e, s] for e, s in sys.seen.get(pid, set()))
    return {"name": me, "subs": [_enc_rec(r) for r in _own(sys, me)], "store": store,
            "seen": seen}  # fmt: skip


NODE_OF: dict[str, Callable[[Any, str], JSON]] = {"tam": tam_node, "tam-basic": basic_node}


def _status(sys: _TamBase, me: str, ids: Sequence[str]) -> JSON:
    return [[sid, sys.subs[sid].sub.subscriber, sys.subs[sid].seq, sys.subs[sid].active]
            for sid in sorted(set(ids)) if sid in sys.subs]  # fmt: skip


# -- the harness: the reference's system holding one peer --------------------------------------


class _Ring:
    """The overlay as one peer sees it in a step: it is alive and knows its next hop toward
    the keys of `pre.context.routes` (the peer itself when it is the key's home)."""

    def __init__(self, me: int, routes: dict[int, int]) -> None:
        self.me = me
        self.routes = routes

    def __contains__(self, pid: object) -> bool:
        return pid == self.me

    def next_hop(self, pid: int, key: int) -> int:
        assert pid == self.me
        hop = self.routes.get(key)
        if hop is None:
            raise _OverlayGap(f"pre.context.routes has no entry {hex_key(key)}")
        return hop

    def closest(self, key: int) -> int:
        """The home of `key`: the peer itself, or another (-1) it need not name."""
        return self.me if self.next_hop(self.me, key) == self.me else -1


class _Engine:
    """The engine of a step: its time, and the items the handlers schedule (their sends)."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.items: list[Hop | Routed] = []

    def schedule(self, at: float, item: Hop | Routed) -> None:
        self.items.append(item)


class _Capture:
    """The harness's side of a step: hops not counted (T14's accounting is the metrics'),
    the installation bookkeeping (a subscribe completes, D-OPS) left out."""

    def _account(self, src: int, dst: int, kind: str, size: int) -> float:
        return 0.0

    def _done(self, rec: SubRecord) -> None:
        return None

    def _settle(self, rec: SubRecord) -> None:
        return None


class _TamHarness(_Capture, TamSystem):
    def joined(self, pid: int, group: int) -> None:
        return None


class _BasicHarness(_Capture, TamBasicSystem):
    pass


class _Zero(dict[str, float]):
    def __missing__(self, key: str) -> float:
        return 0.0


@dataclass
class _Step:
    h: _TamBase
    me: str
    names: Names
    observed: list[Observation]


def _common(pre: JSON, system: str, cls: type[_TamBase]) -> _Step:
    node, ctx = field(pre, "node", "pre"), field(pre, "context", "pre")
    me = check_name(field(node, "name", "pre.node"), "pre.node.name")
    schemas_v = _list(field(ctx, "schemas", "pre.context"), "pre.context.schemas")
    schemas: list[Schema] = [dec_schema(s, f"pre.context.schemas[{i}]")
                             for i, s in enumerate(schemas_v)]  # fmt: skip
    if field(ctx, "matching", "pre.context") != "strict":
        raise StepInputError("pre.context.matching: strict (decision T10)")
    conf = field(ctx, "config", "pre.context")
    if not isinstance(conf, dict):
        raise StepInputError("pre.context.config: an object")
    try:
        config: TamConfig = TamCodec(SECTION if system == "tam" else BASIC_SECTION).parse(
            conf, "pre.context.config", schemas
        )
    except ValueError as e:
        raise StepInputError(str(e)) from None
    names = Names()
    pid = names.pid(me)
    routes_v = field(ctx, "routes", "pre.context")
    if not isinstance(routes_v, dict):
        raise StepInputError("pre.context.routes: an object (key -> next hop)")
    routes = {_key(k, "pre.context.routes"): names.pid(check_name(v, f"pre.context.routes.{k}"))
              for k, v in routes_v.items()}  # fmt: skip
    now = check_number(field(ctx, "now", "pre.context"), "pre.context.now")
    h = object.__new__(cls)
    System.__init__(h, 0)
    h.config, h.matching = config, "strict"
    h.metrics = TamMetrics()
    h.ring = _Ring(pid, routes)  # type: ignore[assignment]
    h.engine = _Engine(float(now))  # type: ignore[assignment]
    h.tables = {s.name: Table(s, config) for s in schemas}
    h.subs, h.event_seq, h.published_at = {}, {}, _Zero()
    for i, r in enumerate(_list(field(node, "subs", "pre.node"), "pre.node.subs")):
        w = f"pre.node.subs[{i}]"
        sub = dec_sub(field(r, "sub", w), f"{w}.sub")
        if sub.subscriber != me:
            raise StepInputError(f"{w}.sub: a subscription the peer made")
        keys = tuple(_key(k, f"{w}.keys") for k in _list(field(r, "keys", w), f"{w}.keys"))
        active = field(r, "active", w)
        if not isinstance(active, bool):
            raise StepInputError(f"{w}.active: a boolean")
        h.subs[sub.id] = SubRecord(sub, _seq(field(r, "seq", w), f"{w}.seq"), keys,
                                   Installation(0.0), active)  # fmt: skip
    for sid, origin, seq, active in _dec_status(field(ctx, "status", "pre.context"),
                                                "pre.context.status"):  # fmt: skip
        if sid not in h.subs:
            h.subs[sid] = SubRecord(Subscription(sid, origin, "", ()), seq, (),
                                    Installation(0.0), active)  # fmt: skip
    h.pid_of = {}
    h.name_of = names.name_of
    observed: list[Observation] = []
    h.observer = observed.append
    return _Step(h, me, names, observed)


def _tam_harness(pre: JSON, cls: type[_TamBase]) -> _Step:
    step = _common(pre, "tam", cls)
    h = cast(TamSystem, step.h)
    node = pre["node"]
    pid = step.names.pid(step.me)
    h.scribe = Scribe(h.ring, h, True)
    h.seen_list = True
    h.registered, h.waiting = defaultdict(set), defaultdict(list)
    h.local, h.seen, h._event_bytes = defaultdict(set), defaultdict(dict), {}
    for r in h.subs.values():
        if r.sub.subscriber == step.me and r.active:
            h.local[pid].add(r.sub.id)
    reg = field(node, "registered", "pre.node")
    if not isinstance(reg, dict):
        raise StepInputError("pre.node.registered: an object (key -> subscriptions)")
    for k, sids in reg.items():
        h.registered[(pid, _key(k, "pre.node.registered"))] = set(
            _names(sids, f"pre.node.registered.{k}")
        )
    for i, g in enumerate(_list(field(node, "groups", "pre.node"), "pre.node.groups")):
        w = f"pre.node.groups[{i}]"
        parent = field(g, "parent", w)
        member = field(g, "member", w)
        if not isinstance(member, bool):
            raise StepInputError(f"{w}.member: a boolean")
        st = GroupState(
            None if parent is None else step.names.pid(check_name(parent, f"{w}.parent")),
            {step.names.pid(c) for c in _names(field(g, "children", w), f"{w}.children")},
            member,
        )
        h.scribe.groups.setdefault(_key(field(g, "key", w), f"{w}.key"), {})[pid] = st
    seen = field(node, "seen", "pre.node")
    if not isinstance(seen, dict):
        raise StepInputError("pre.node.seen: an object (event -> time)")
    h.seen[pid] = {check_name(e, "pre.node.seen"): float(check_number(t, f"pre.node.seen.{e}"))
                   for e, t in seen.items()}  # fmt: skip
    return step


def _basic_harness(pre: JSON, cls: type[_TamBase]) -> _Step:
    step = _common(pre, "tam-basic", cls)
    h = cast(TamBasicSystem, step.h)
    node = pre["node"]
    pid = step.names.pid(step.me)
    h.store, h.seen = defaultdict(dict), defaultdict(set)
    store = field(node, "store", "pre.node")
    if not isinstance(store, dict):
        raise StepInputError("pre.node.store: an object (key -> subscriptions)")
    for k, subs in store.items():
        at = [dec_sub(s, f"pre.node.store.{k}") for s in _list(subs, f"pre.node.store.{k}")]
        h.store[pid][_key(k, "pre.node.store")] = {s.id: s for s in at}
        for s in at:
            if s.id not in h.subs:
                raise StepInputError(f"pre.context.status: no entry for stored {s.id}")
            rec = h.subs[s.id]
            h.subs[s.id] = SubRecord(s, rec.seq, rec.keys, rec.install, rec.active)
    for i, x in enumerate(_list(field(node, "seen", "pre.node"), "pre.node.seen")):
        if not isinstance(x, list) or len(x) != 2:
            raise StepInputError(f"pre.node.seen[{i}]: [event, sub]")
        h.seen[pid].add((check_name(x[0], "pre.node.seen"), check_name(x[1], "pre.node.seen")))
    return step


HARNESS_OF: dict[str, Callable[[JSON, type[_TamBase]], _Step]] = {
    "tam": _tam_harness, "tam-basic": _basic_harness,
}  # fmt: skip


def _sends(h: _TamBase, me: str, observed: Sequence[Observation],
           items: Sequence[Hop | Routed], seqs: Seqs) -> list[JSON]:  # fmt: skip
    """Each scheduled message with the `send` observation the reference reported for it."""
    obs = [o for o in observed if o.kind == SEND]
    assert len(obs) == len(items), "one send observation per message"
    out = []
    for o, item in zip(obs, items, strict=True):
        j = observation_to_json(o)
        fields = j.setdefault("fields", {})
        fields["route"] = "direct"  # one overlay hop to a named peer (T14)
        fields["message"] = enc_message(item.msg, h.name_of, seqs)
        out.append(j)
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


def run_step(system: str, pre: JSON, step_input: JSON, cls: type[_TamBase]) -> Outcome:
    """Apply one input (a message received or an op applied) to one peer's pre-state."""
    step = HARNESS_OF[system](pre, cls)
    h, me = step.h, step.me
    pid = step.names.pid(me)
    h.pid_of = _Pids(step.names)
    action: Callable[[], object]
    if isinstance(step_input, dict) and "op" in step_input:
        op, arg = _op(step_input, h.event_seq)
        if op == "subscribe" and arg.subscriber != me:
            return Outcome(invalid="a subscription is applied at its subscriber (Tam et al. §3.2)")
        if op == "publish" and arg.publisher != me:
            return Outcome(invalid="an event is published at its publisher (Tam et al. §3.2)")
        rec = h.subs.get(arg) if op == "unsubscribe" else None
        if op == "unsubscribe" and (rec is None or not rec.active or rec.sub.subscriber != me):
            return Outcome(invalid="an unsubscription names an active subscription of this "
                                   "peer (D-OPS)")  # fmt: skip
        if op != "unsubscribe" and arg.schema not in h.tables:
            return Outcome(invalid=f"{op}: an unknown schema")
        if op == "subscribe" and arg.id in h.subs:
            return Outcome(invalid="subscribe: a subscription id already used (D-OPS)")
        seq = h.event_seq.get(arg.id, 0) if op != "unsubscribe" else 0
        action = {"subscribe": lambda: h.subscribe(arg, seq),
                  "unsubscribe": lambda: h.unsubscribe(arg),
                  "publish": lambda: h.publish(arg, seq)}[op]  # fmt: skip
    else:
        msg = dec_message(step_input, system, step.names, h.event_seq)
        schema = getattr(getattr(msg, "payload", None) or getattr(msg, "event", None) or
                         getattr(msg, "sub", None), "schema", None)  # fmt: skip
        if schema is not None and schema not in h.tables:
            return Outcome(invalid=f"{_kind(step_input)}: an unknown schema")
        item: Hop | Routed
        if system == "tam":
            item = Hop(pid, cast(ScribeMessage[Event], msg))
        else:
            bm = cast(TamSubscribe | TamUnsubscribe | TamPublish | TamNotify, msg)
            item = Routed(pid, bm, None if isinstance(bm, TamNotify) else bm.key)

        def action() -> object:
            return h._dispatch(item)

    try:
        action()
    except _OverlayGap as e:
        raise StepInputError(str(e)) from None
    except (KeyError, AssertionError) as e:
        # an input the peer must refuse: a LEAVE from a peer it does not know as a child, a
        # notification for a subscription it never made (the reason names what is missing)
        return Outcome(invalid=f"{_kind(step_input)} refused: {type(e).__name__} {e}")
    engine = cast(_Engine, h.engine)
    post = {"node": NODE_OF[system](h, me),
            "delivered": sorted([d.event_id, d.sub_id] for d in h.deliveries)}  # fmt: skip
    return Outcome(post, _sends(h, me, step.observed, engine.items, h.event_seq))


class _Pids(dict[str, int]):
    """Peer names to Pastry ids, any name (the SHA-1 of the name)."""

    def __init__(self, names: Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, name: str) -> int:
        return self.names.pid(name)


# -- candidates: every step of small simulated networks ---------------------------------------


class Step:
    def __init__(self, me: str, pre: JSON, step_input: JSON) -> None:
        self.me, self.pre, self.input = me, pre, step_input
        self.post: JSON = None
        self.sent: list[JSON] = []


def _input_keys(sys: _TamBase, me: str, step_input: JSON) -> list[int]:
    """The keys a step may route toward: the message's, or an op's index keys."""
    if "key" in step_input:
        return [int(step_input["key"], 16)]
    op = step_input.get("op")
    if op == "subscribe":
        table = sys.tables[step_input["sub"]["schema"]]
        sub = dec_sub(step_input["sub"], "sub")
        return [k for ix in table.select(sub, sys.config.index_policy)
                for k in table.subscription_keys(sub, ix)]  # fmt: skip
    if op == "publish":
        table = sys.tables[step_input["event"]["schema"]]
        event = dec_event(step_input["event"], "event", {})
        return [table.event_key(event, ix) for ix in table.applicable_to_event(event)]
    if op == "unsubscribe":
        return list(sys.subs[step_input["sub"]].keys)
    return []


def _status_ids(sys: _TamBase, me: str, step_input: JSON) -> list[str]:
    """The subscriptions a step's handler asks the driver about: those stored at the peer as
    a home (tam-basic) and the one a TamSubscribe carries."""
    store = getattr(sys, "store", None)
    if not isinstance(store, dict):
        return []
    named = [step_input["sub"]["id"]] if step_input.get("type") == "TamSubscribe" else []
    return named + [sid for at in store.get(sys.pid_of[me], {}).values() for sid in at]


def _recorder(cls: type[_TamBase], system: str, out: list[Step]) -> Any:
    class Recorder(cls):  # type: ignore[misc, valid-type]
        _inside: Step | None = None
        _items: list[Hop | Routed]
        _observed: list[Observation]

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            engine = self.engine
            schedule = engine.schedule

            def watched(at: float, item: Any) -> None:
                if self._inside is not None:
                    self._items.append(item)
                schedule(at, item)

            engine.schedule = watched

        def _step(self, me: str, step_input: JSON, run: Callable[[], object]) -> None:
            routes = {k: self.ring.next_hop(self.pid_of[me], k)
                      for k in _input_keys(self, me, step_input)}  # fmt: skip
            status = _status(self, me, _status_ids(self, me, step_input))
            pre = {"node": NODE_OF[system](self, me), "context": _context(self, routes, status)}
            step = Step(me, pre, step_input)
            out.append(step)
            before = len(self.deliveries)
            self._inside, self._items, self._observed = step, [], []
            self.observer = self._observed.append
            run()
            self.observer = None  # type: ignore[assignment]
            self._inside = None
            delivered = sorted([d.event_id, d.sub_id] for d in self.deliveries[before:])
            step.post = {"node": NODE_OF[system](self, me), "delivered": delivered}
            step.sent = _sends(self, me, self._observed, self._items, self.event_seq)

        def _dispatch(self, item: Any) -> str:
            at = item.dst if isinstance(item, Hop) else item.at
            me = self.name_of[at]
            got: list[str] = []
            self._step(me, enc_message(item.msg, self.name_of, self.event_seq),
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
            self.event_seq[event.id] = seq
            self._step(event.publisher, enc_op(Publish(seq, event)),
                       lambda: super(Recorder, self).publish(event, seq))  # fmt: skip

    return Recorder


def recorded(system: str, trace: Trace) -> list[Step]:
    """Every step of a run of the trace, on the whole network."""
    from pubsub_spec.reference.sim.run import run_trace

    base: type[_TamBase] = TamSystem if system == "tam" else TamBasicSystem
    out: list[Step] = []
    run_trace(trace, _recorder(base, system, out).for_trace)
    return out


def _traces(system: str) -> Iterator[tuple[str, Trace]]:
    from dataclasses import replace

    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.reference.common.ops import Fail, Join, Leave
    from pubsub_spec.reference.tam.config import config_of

    section = SECTION if system == "tam" else BASIC_SECTION
    for gen in ("uniform", "boundaries", "partial-strict", "identical", "degenerate"):
        for seed in (0, 1):
            t = GENERATORS[gen](seed, 0, "tiny")
            if t.matching != "strict" or any(isinstance(o, Join | Leave | Fail) for o in t.ops):
                continue
            for policy in ("first", "all"):  # §3.6: one index, or every index with a seen-list
                config = replace(config_of(t, section), index_policy=policy,
                                 seen_deadline_ms=None if seed == 0 else 50.0)  # fmt: skip
                yield f"{gen}-{seed}-{policy}", t.with_section(section, config)


def _refused(system: str, steps: list[Step]) -> Iterator[Case]:
    """Inputs a peer must refuse, on a recorded pre-state."""
    st = steps[0]
    pre, me = st.pre, st.me
    schema = pre["context"]["schemas"][0]["name"]
    other = f"{me}-elsewhere"
    sub = {"id": "s-foreign", "subscriber": other, "schema": schema, "predicates": []}
    ev = {"id": "e-foreign", "publisher": other, "schema": schema, "values": [], "seq": 1}
    yield Case("subscribe", "not-the-subscriber", pre, {"op": "subscribe", "sub": sub, "seq": 1})
    yield Case("publish", "not-the-publisher", pre, {"op": "publish", "event": ev})
    yield Case("unsubscribe", "unknown-subscription", pre, {"op": "unsubscribe", "sub": "s-none"})


def _crafted(system: str, steps: list[Step]) -> Iterator[Case]:
    """Steps the runs do not reach, from recorded pre-states (each labelled in its name)."""
    for i, s in enumerate(steps):
        keys = {g["key"] for g in s.pre["node"]["groups"]} if system == "tam" else set()
        routes = s.pre["context"]["routes"]
        joins = s.input.get("type") == "ScribeJoin" and s.input["key"] not in keys
        if joins and routes.get(s.input["key"]) == s.me:
            # the same JOIN at a peer that is not the key's home: a forwarder (§2.2.1)
            far = copy.deepcopy(s.pre)
            far["context"]["routes"][s.input["key"]] = f"{s.me}-next"
            yield Case("ScribeJoin", f"{i:04d}-forwarder", far, s.input)
        if system == "tam" and s.input.get("op") == "unsubscribe":
            mine = [g for g in s.pre["node"]["groups"] if g["member"]]
            if mine:
                # the member is the root with no child: pruned without a LEAVE (§2.2.2)
                root = copy.deepcopy(s.pre)
                for g in root["node"]["groups"]:
                    g["parent"], g["children"] = None, []
                yield Case("unsubscribe", f"{i:04d}-rootpruned", root, s.input)
                # a peer that holds no tree state of its keys must refuse (not a member)
                bare = copy.deepcopy(s.pre)
                bare["node"]["groups"] = []
                yield Case("unsubscribe", f"{i:04d}-notmember", bare, s.input)
        config = s.pre["context"]["config"]
        deadline = config.get("seen_deadline_ms")
        member = any(g["member"] and g["key"] == s.input.get("key") for g in
                     s.pre["node"]["groups"]) if system == "tam" else False  # fmt: skip
        if (member and deadline is not None and config.get("index_policy") == "all"
                and s.input.get("type") == "ScribeMulticast"):  # fmt: skip
            # §3.6, T7: a copy seen exactly `deadline` ms ago is still a duplicate
            for label, age in (("atdeadline", deadline), ("pastdeadline", deadline + 1)):
                x = copy.deepcopy(s.pre)
                x["context"]["now"] = float(max(int(x["context"]["now"]), age))  # exact
                x["node"]["seen"][s.input["event"]["id"]] = x["context"]["now"] - age
                yield Case("ScribeMulticast", f"{i:04d}-{label}", x, s.input)
        if system == "tam" and s.input.get("type") == "ScribeLeave":
            # a LEAVE for a group the peer holds no state of (already pruned): ignored
            bare = copy.deepcopy(s.pre)
            bare["node"]["groups"] = [g for g in bare["node"]["groups"]
                                      if g["key"] != s.input["key"]]  # fmt: skip
            yield Case("ScribeLeave", f"{i:04d}-nostate", bare, s.input)
        if system == "tam" and s.input.get("type") == "ScribeMulticast":
            bare = copy.deepcopy(s.pre)
            bare["node"]["groups"] = [g for g in bare["node"]["groups"]
                                      if g["key"] != s.input["key"]]  # fmt: skip
            yield Case("ScribeMulticast", f"{i:04d}-notree", bare, s.input)


def candidates(system: str) -> Iterator[Case]:
    """Every step of runs of the conformance generators' tiny strict traces without churn,
    under the `first` and `all` policies, then the crafted ones."""
    first: list[Step] = []
    for label, trace in _traces(system):
        steps = recorded(system, trace)
        for i, s in enumerate(steps):
            yield Case(_kind(s.input), f"{label}-{i:04d}", s.pre, s.input)
        if not first and steps:
            first = steps
        for case in _crafted(system, steps):
            yield Case(case.handler, f"{label}-{case.name}", case.pre, case.input)
    if first:
        yield from _refused(system, first)


# -- the systems' part of the framework --------------------------------------------------------

TAM_HANDLERS = (
    Handler("subscribe", "Tam et al. §3.2, §3.3, §3.5, §3.6; Scribe §2.2.1",
            "the subscription registered on the keys of the indices it selects; a JOIN toward "
            "each key it is not yet a member of (or the peer creates the group as the key's "
            "home, or becomes a member of a tree it is in)"),
    Handler("unsubscribe", "Tam et al. §3.3; Scribe §2.2.2",
            "the subscription removed from its keys; a key left without subscription is left "
            "(member flag cleared, pruned upward with a LEAVE while childless)"),
    Handler("publish", "Tam et al. §3.2, §3.3, §3.5 (decision T11)",
            "one ScribePublish per applicable index key toward its home (or the multicast "
            "down the tree when the publisher is the home)"),
    Handler("ScribeJoin", "Tam et al. §3.3; Scribe §2.2.1",
            "absorbed by a peer in the tree (child added), or the home creates the root, or a "
            "forwarder enters the tree and passes the JOIN on"),
    Handler("ScribeLeave", "Scribe §2.2.2",
            "the child removed; a childless non-member prunes itself with a LEAVE to its "
            "parent"),
    Handler("ScribePublish", "Tam et al. §3.3 (decision T11)",
            "routed one hop toward the key's home; at the home, multicast down the tree"),
    Handler("ScribeMulticast", "Tam et al. §3.3, §3.4, §3.6",
            "a member completes the matching against the subscriptions it registered on the "
            "key (all its subscriptions, once per event with the seen-list, under `all`) and "
            "sends the publication down every tree edge"),
)  # fmt: skip
BASIC_HANDLERS = (
    Handler("subscribe", "Tam et al. §3.2, §3.5, §3.6",
            "a TamSubscribe routed toward the home of each key of the selected indices"),
    Handler("unsubscribe", "Tam et al. §3.2",
            "a TamUnsubscribe toward the home of each of its keys"),
    Handler("publish", "Tam et al. §3.2, §3.5",
            "one TamPublish per applicable index key toward its home"),
    Handler("TamSubscribe", "Tam et al. §3.2",
            "routed on toward the key, or stored at the key's home"),
    Handler("TamUnsubscribe", "Tam et al. §3.2",
            "routed on toward the key, or removed at the key's home"),
    Handler("TamPublish", "Tam et al. §3.2, §3.4",
            "routed on toward the key; the home matches the subscriptions stored under the "
            "key and notifies each fully matching subscriber peer once"),
    Handler("TamNotify", "Tam et al. §3.2, §3.6",
            "the subscriber delivers (dropping a repeat with its seen-list under `all`)"),
)  # fmt: skip


class _TamSteps(StepSystem):
    harness: type[_TamBase]
    paper = PAPER

    def __init__(self, variant: type[_TamBase] | None = None) -> None:
        """`variant`: a subclass of the reference system (a mutant) whose handlers run."""
        self.cls = self.harness
        if variant is not None:
            extra = (_Capture,) if self.name == "tam-basic" else (_TamHarness,)
            self.cls = type(f"_Harness{variant.__name__}", (*extra, variant), {})

    def handler_of(self, step_input: JSON) -> str:
        return _kind(step_input)

    def apply(self, pre: JSON, step_input: JSON) -> Outcome:
        return run_step(self.name, pre, step_input, self.cls)

    def candidates(self) -> Iterator[Case]:
        yield from candidates(self.name)
        if self.name == "tam" and tam_model.available():
            # every distinct one-peer (state, action) of spec/tam/MCScribe.tla (tam_model.py);
            # tam-basic has no Scribe tree: the model maps onto none of its handlers
            yield from tam_model.cases(self.apply)

    def keep(self, case: Case) -> bool:
        return case.name.startswith("model-")

    def schema(self) -> dict[str, JSON]:
        from pubsub_spec.conformance.steps.tam_schema import schema

        return schema(self.name)

    def roundtrip(self, document: str, value: JSON) -> JSON:
        if document == "input":
            seqs: Seqs = {}
            if "op" in value:
                op, arg = _op(value, seqs)
                if op == "subscribe":
                    return enc_op(Subscribe(seqs[arg.id], arg))
                if op == "unsubscribe":
                    return enc_op(Unsubscribe(0, arg))
                return enc_op(Publish(seqs[arg.id], arg))
            names = Names()
            return enc_message(dec_message(value, self.name, names, seqs), names.name_of, seqs)
        if document == "pre":
            step = HARNESS_OF[self.name](value, self.harness)
            step.h.pid_of = _Pids(step.names)
            ctx = _context(step.h, cast(_Ring, step.h.ring).routes, value["context"]["status"])
            return {"node": NODE_OF[self.name](step.h, step.me), "context": ctx}
        # a post-state: read with an empty context
        ctx = {"schemas": [], "matching": "strict", "config": {}, "routes": {}, "now": 0,
               "status": sorted({(s["id"], s["subscriber"]): [s["id"], s["subscriber"], 0, True]
                                 for at in value["node"].get("store", {}).values()
                                 for s in at}.values())}  # fmt: skip
        step = HARNESS_OF[self.name]({"node": value["node"], "context": ctx}, self.harness)
        step.h.pid_of = _Pids(step.names)
        out = {"node": NODE_OF[self.name](step.h, step.me)}
        out["delivered"] = [[check_name(e, "event"), check_name(s, "sub")]
                            for e, s in field(value, "delivered", "post")]  # fmt: skip
        return out


class TamSteps(_TamSteps):
    name = "tam"
    harness = _TamHarness
    handlers = TAM_HANDLERS
    coverage = (
        ("reference/tam/system.py", ("TamSystem.deliver", "TamSystem.subscribe",
                                     "TamSystem.unsubscribe", "TamSystem.publish",
                                     "TamSystem._dispatch", "_TamBase._eligible")),
        ("reference/overlay/scribe.py", ("join", "leave", "receive", "_on_join", "_on_leave",
                                         "_prune", "_on_publish", "_multicast")),
    )  # fmt: skip


class TamBasicSteps(_TamSteps):
    name = "tam-basic"
    harness = _BasicHarness
    handlers = BASIC_HANDLERS
    coverage = (
        ("reference/tam/system.py", ("TamBasicSystem._route", "TamBasicSystem._handle",
                                     "TamBasicSystem._match_at_home",
                                     "TamBasicSystem.subscribe", "TamBasicSystem.unsubscribe",
                                     "TamBasicSystem.publish", "TamBasicSystem._dispatch",
                                     "_TamBase._eligible")),
    )  # fmt: skip


SYSTEMS: dict[str, StepSystem] = {"tam": TamSteps(), "tam-basic": TamBasicSteps()}
SYSTEM = SYSTEMS["tam"]
