"""Step vectors of the thesis system (Wei Li, "A Content-based Publish/Subscribe Framework over
Structured Peer-to-Peer Networks", MSc thesis, UBC, 2008): one node's 2d-tree state and the seven
message types of thesis §4.2.1, each handler of reference/thesis/system.py run on one node.

The node's state (`pre.node`, `post.node`) is what the handlers read and change: the peer's
name and capacity (Table 4.1), the tree nodes it hosts (zone `bits`, stored points, its
LeafNodeRoutingTable, the events it has processed, the split bookkeeping of decision D-SPLIT:
`splitting` and the messages held meanwhile) and the subscriptions it holds as a subscriber
(to filter false positives, §3.3). `pre.context` is what the node knows of the rest of the
world and does not change: the schemas, the matching mode, the `thesis` configuration section,
the live peers when some have left, and the DHT's answers the handler asks for (`overlay`:
the home of a key and the first hop toward it, Pastry §2.1.2), so that an implementation needs
no Pastry of its own to replay a step. A send is reported as the `send` observation of
conformance/OBSERVATIONS.md without `hops` (the overlay's cost, not the handler's), with
`route` (`key`: routed to the key's home; `direct`: one hop to a known peer) and the whole
`message`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pubsub_spec.conformance.protocol import observation_to_json
from pubsub_spec.conformance.steps.base import (
    JSON,
    Case,
    Handler,
    Outcome,
    StepInputError,
    StepSystem,
    check_bits,
    check_name,
    check_number,
    field,
)
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    Predicate,
    Schema,
    Subscription,
    qualified,
)
from pubsub_spec.reference.overlay.pastry import sha1_id
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.thesis import observe as obs
from pubsub_spec.reference.thesis.config import ThesisCodec, ThesisConfig
from pubsub_spec.reference.thesis.cutoff import Segment
from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable
from pubsub_spec.reference.thesis.messages import (
    TYPE_OF,
    EventDelivery,
    InsertSub,
    LeafUpdate,
    Message,
    ProbePub,
    ProbePubMulticast,
    ProbeSub,
    TransferSub,
)
from pubsub_spec.reference.thesis.metrics import TreeMetrics
from pubsub_spec.reference.thesis.space import Square
from pubsub_spec.reference.thesis.substrate import Peer, ReferenceSubstrate, node_key
from pubsub_spec.reference.thesis.system import SubState, TwoDTreeSystem
from pubsub_spec.reference.thesis.tree import StoredPoint, TreeNode, identifier

CODEC = ThesisCodec()

# -- the canonical encoding ------------------------------------------------------------------


def enc_schema(s: Schema) -> JSON:
    return {
        "name": s.name,
        "attributes": [
            {"name": a.name, "type": a.type, "min": a.min, "max": a.max} for a in s.attributes
        ],
    }


def dec_schema(v: JSON, where: str) -> Schema:
    attrs = []
    for i, a in enumerate(field(v, "attributes", where)):
        w = f"{where}.attributes[{i}]"
        kind = field(a, "type", w)
        if kind not in ("int", "float"):
            raise StepInputError(f"{w}.type: int or float")
        lo = check_number(field(a, "min", w), f"{w}.min")
        hi = check_number(field(a, "max", w), f"{w}.max")
        attrs.append(Attribute(check_name(field(a, "name", w), f"{w}.name"), kind, lo, hi))
    return Schema(check_name(field(v, "name", where), f"{where}.name"), tuple(attrs))


def enc_sub(s: Subscription) -> JSON:
    return {
        "id": s.id,
        "subscriber": s.subscriber,
        "schema": s.schema,
        "predicates": [[p.attribute, p.lo, p.hi] for p in s.predicates],
    }


def dec_sub(v: JSON, where: str) -> Subscription:
    preds = []
    for i, p in enumerate(field(v, "predicates", where)):
        w = f"{where}.predicates[{i}]"
        if not isinstance(p, list) or len(p) != 3:
            raise StepInputError(f"{w}: expected [attribute, lo, hi]")
        preds.append(Predicate(check_name(p[0], w), check_number(p[1], w), check_number(p[2], w)))
    return Subscription(
        check_name(field(v, "id", where), f"{where}.id"),
        check_name(field(v, "subscriber", where), f"{where}.subscriber"),
        check_name(field(v, "schema", where), f"{where}.schema"),
        tuple(preds),
    )


def enc_event(e: Event, seq: int) -> JSON:
    return {
        "id": e.id,
        "publisher": e.publisher,
        "schema": e.schema,
        "values": [[n, x] for n, x in e.values],
        "seq": seq,
    }


def dec_event(v: JSON, where: str) -> tuple[Event, int]:
    values = []
    for i, p in enumerate(field(v, "values", where)):
        w = f"{where}.values[{i}]"
        if not isinstance(p, list) or len(p) != 2:
            raise StepInputError(f"{w}: expected [attribute, value]")
        values.append((check_name(p[0], w), check_number(p[1], w)))
    seq = field(v, "seq", where)
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        raise StepInputError(f"{where}.seq: a non-negative integer")
    event = Event(
        check_name(field(v, "id", where), f"{where}.id"),
        check_name(field(v, "publisher", where), f"{where}.publisher"),
        check_name(field(v, "schema", where), f"{where}.schema"),
        tuple(values),
    )
    return event, int(check_number(seq, f"{where}.seq"))


def enc_point(p: StoredPoint) -> JSON:
    s = p.segment
    return {
        "sub": enc_sub(p.sub),
        "base": p.base,
        "segment": {"index": s.index, "lo": s.lo, "hi": s.hi, "closed": s.closed},
        "path": p.path,
        "seq": p.seq,
    }


def dec_point(v: JSON, where: str) -> StoredPoint:
    s = field(v, "segment", where)
    w = f"{where}.segment"
    closed, index = field(s, "closed", w), field(s, "index", w)
    if not isinstance(closed, bool) or isinstance(index, bool) or not isinstance(index, int):
        raise StepInputError(f"{w}: index an integer, closed a boolean")
    seq = field(v, "seq", where)
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise StepInputError(f"{where}.seq: an integer")
    return StoredPoint(
        dec_sub(field(v, "sub", where), f"{where}.sub"),
        check_name(field(v, "base", where), f"{where}.base"),
        Segment(
            index, check_number(field(s, "lo", w), w), check_number(field(s, "hi", w), w), closed
        ),
        check_bits(field(v, "path", where), f"{where}.path"),
        seq,
    )


def _points(points: Sequence[StoredPoint]) -> list[JSON]:
    return [enc_point(p) for p in sorted(points, key=lambda p: p.key)]


class _Events:
    """The publication sequence numbers of the events a step's documents name."""

    def __init__(self, seqs: dict[str, int] | None = None) -> None:
        self.seq: dict[str, int] = seqs if seqs is not None else {}

    def enc(self, e: Event) -> JSON:
        return enc_event(e, self.seq.get(e.id, 0))

    def dec(self, v: JSON, where: str) -> Event:
        event, seq = dec_event(v, where)
        self.seq[event.id] = seq
        return event


def enc_message(m: Message, events: _Events) -> JSON:
    """One message of the seven types of thesis §4.2.1 (`type` = its name there)."""
    kind = TYPE_OF[type(m)]
    if isinstance(m, ProbeSub):
        return {"type": kind, "point": enc_point(m.point), "target": m.target,
                "remove": m.remove, "found": m.found}  # fmt: skip
    if isinstance(m, InsertSub):
        return {"type": kind, "point": enc_point(m.point), "target": m.target}
    if isinstance(m, LeafUpdate):
        return {"type": kind, "tree": m.qattr, "split": m.split, "target": m.target}
    if isinstance(m, TransferSub):
        return {"type": kind, "tree": m.qattr, "target": m.target, "points": _points(m.points),
                "seen": sorted(m.seen), "created": m.created}  # fmt: skip
    if isinstance(m, ProbePub):
        return {"type": kind, "event": events.enc(m.event), "tree": m.qattr, "target": m.target}
    if isinstance(m, ProbePubMulticast):
        return {"type": kind, "event": events.enc(m.event),
                "dests": [[q, b] for q, b in m.dests]}  # fmt: skip
    return {"type": kind, "event": events.enc(m.event),
            "targets": [[s, list(ids)] for s, ids in m.targets],
            "origin": m.origin, "tree_id": m.leaf}  # fmt: skip


def _flag(v: JSON, key: str, where: str) -> bool:
    x = field(v, key, where)
    if not isinstance(x, bool):
        raise StepInputError(f"{where}.{key}: a boolean")
    return x


def _tree(v: JSON, where: str) -> str:
    tree = check_name(field(v, "tree", where), f"{where}.tree")
    if "/" not in tree:
        raise StepInputError(f"{where}.tree: <schema>/<attribute>")
    return tree


def dec_message(v: JSON, where: str, events: _Events) -> Message:
    kind = field(v, "type", where)
    tgt = "target"
    if kind == "ProbeSub":
        return ProbeSub(dec_point(field(v, "point", where), f"{where}.point"),
                        check_bits(field(v, tgt, where), f"{where}.target"),
                        _flag(v, "remove", where), _flag(v, "found", where))  # fmt: skip
    if kind == "InsertSub":
        return InsertSub(dec_point(field(v, "point", where), f"{where}.point"),
                         check_bits(field(v, tgt, where), f"{where}.target"))  # fmt: skip
    if kind == "LeafUpdate":
        return LeafUpdate(_tree(v, where), check_bits(field(v, "split", where), f"{where}.split"),
                          check_bits(field(v, tgt, where), f"{where}.target"))  # fmt: skip
    if kind == "TransferSub":
        pts = field(v, "points", where)
        seen = field(v, "seen", where)
        return TransferSub(
            _tree(v, where),
            check_bits(field(v, tgt, where), f"{where}.target"),
            tuple(dec_point(p, f"{where}.points[{i}]") for i, p in enumerate(pts)),
            frozenset(check_name(s, f"{where}.seen") for s in seen),
            _flag(v, "created", where),
        )
    if kind == "ProbePub":
        return ProbePub(events.dec(field(v, "event", where), f"{where}.event"), _tree(v, where),
                        check_bits(field(v, tgt, where), f"{where}.target"))  # fmt: skip
    if kind == "ProbePubMulticast":
        dests = []
        for i, d in enumerate(field(v, "dests", where)):
            w = f"{where}.dests[{i}]"
            if not isinstance(d, list) or len(d) != 2:
                raise StepInputError(f"{w}: expected [tree, bits]")
            dests.append((check_name(d[0], w), check_bits(d[1], w)))
        return ProbePubMulticast(events.dec(field(v, "event", where), f"{where}.event"),
                                 tuple(dests))  # fmt: skip
    if kind == "EventDelivery":
        targets = []
        for i, t in enumerate(field(v, "targets", where)):
            w = f"{where}.targets[{i}]"
            if not isinstance(t, list) or len(t) != 2 or not isinstance(t[1], list):
                raise StepInputError(f"{w}: expected [node, [sub ids]]")
            targets.append((check_name(t[0], w), tuple(check_name(s, w) for s in t[1])))
        origin = field(v, "origin", where)
        leaf = field(v, "tree_id", where)
        if not isinstance(origin, str) or not isinstance(leaf, str):
            raise StepInputError(f"{where}: origin and tree_id are strings")
        return EventDelivery(events.dec(field(v, "event", where), f"{where}.event"),
                             tuple(targets), 0.0, origin, leaf)  # fmt: skip
    raise StepInputError(f"{where}.type: not a message type of thesis §4.2.1: {kind!r}")


def enc_tree_node(n: TreeNode, events: _Events) -> JSON:
    held: list[JSON] = []
    for m in n.held:
        assert isinstance(m, ProbeSub | InsertSub | ProbePub)
        held.append(enc_message(m, events))
    return {
        "tree": n.qattr,
        "bits": n.bits,
        "points": _points(list(n.points.values())),
        "lnrt": None if n.lnrt is None else sorted(n.lnrt),
        "seen": sorted(n.seen),
        "splitting": n.splitting,
        "held": held,
    }


def dec_tree_node(v: JSON, where: str, events: _Events) -> TreeNode:
    bits = check_bits(field(v, "bits", where), f"{where}.bits")
    raw = field(v, "points", where)
    points = [dec_point(p, f"{where}.points[{i}]") for i, p in enumerate(raw)]
    recs = field(v, "lnrt", where)
    lnrt = None
    if recs is not None:
        records = [check_bits(r, f"{where}.lnrt") for r in recs]
        try:
            lnrt = LeafNodeRoutingTable(bits, records)
        except AssertionError:
            raise StepInputError(f"{where}.lnrt: records do not partition the zone") from None
    splitting = field(v, "splitting", where)
    if splitting not in (0, 1, 2) or isinstance(splitting, bool):
        raise StepInputError(f"{where}.splitting: 0, 1 or 2")
    held: list[object] = [
        dec_message(m, f"{where}.held[{i}]", events) for i, m in enumerate(field(v, "held", where))
    ]
    seen = {check_name(s, f"{where}.seen") for s in field(v, "seen", where)}
    return TreeNode(_tree(v, where), bits, {p.key: p for p in points}, lnrt, seen, splitting, held)


def enc_node(peer: Peer, subs: Sequence[Subscription], events: _Events) -> JSON:
    return {
        "name": peer.name,
        "capacity": peer.capacity,
        "nodes": [enc_tree_node(n, events) for _, n in sorted(peer.nodes.items())],
        "subscriptions": [enc_sub(s) for s in sorted(subs, key=lambda s: s.id)],
    }


@dataclass
class _Node:
    peer: Peer
    subs: list[Subscription]


def dec_node(v: JSON, where: str, events: _Events) -> _Node:
    name = check_name(field(v, "name", where), f"{where}.name")
    cap = field(v, "capacity", where)
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 0:
        raise StepInputError(f"{where}.capacity: a non-negative integer")
    peer = Peer(name, sha1_id(name), cap, True)
    for i, n in enumerate(field(v, "nodes", where)):
        node = dec_tree_node(n, f"{where}.nodes[{i}]", events)
        peer.nodes[(node.qattr, node.bits)] = node
    subs = [dec_sub(s, f"{where}.subscriptions[{i}]")
            for i, s in enumerate(field(v, "subscriptions", where))]  # fmt: skip
    return _Node(peer, subs)


@dataclass
class _Context:
    schemas: list[Schema]
    matching: str
    config: ThesisConfig
    alive: list[str] | None
    homes: dict[str, str]
    first_hops: dict[str, str]

    def to_json(self) -> JSON:
        return {
            "schemas": [enc_schema(s) for s in self.schemas],
            "matching": self.matching,
            "config": CODEC.to_json(self.config),
            "alive": self.alive,
            "overlay": {
                "homes": dict(sorted(self.homes.items())),
                "first_hops": dict(sorted(self.first_hops.items())),
            },
        }


def dec_context(v: JSON, where: str) -> _Context:
    schemas = [dec_schema(s, f"{where}.schemas[{i}]")
               for i, s in enumerate(field(v, "schemas", where))]  # fmt: skip
    matching = field(v, "matching", where)
    if matching not in ("strict", "lenient"):
        raise StepInputError(f"{where}.matching: strict or lenient")
    conf = field(v, "config", where)
    try:
        config = CODEC.parse(conf, f"{where}.config", schemas)
    except ValueError as e:
        raise StepInputError(str(e)) from None
    alive = field(v, "alive", where)
    if alive is not None:
        alive = [check_name(a, f"{where}.alive") for a in alive]
    overlay = field(v, "overlay", where)
    homes = {str(k): check_name(x, f"{where}.overlay.homes")
             for k, x in field(overlay, "homes", f"{where}.overlay").items()}  # fmt: skip
    hops = {str(k): check_name(x, f"{where}.overlay.first_hops")
            for k, x in field(overlay, "first_hops", f"{where}.overlay").items()}  # fmt: skip
    return _Context(schemas, matching, config, alive, homes, hops)


# -- the one-node harness ----------------------------------------------------------------------

# The DHT's answers during generation: the home of a key and the first hop toward it from the
# node, asked of a running system (reference/thesis/substrate.py) and recorded into the overlay.
Oracle = tuple[Callable[[int], str], Callable[[int], str]]


class _OverlayGap(Exception):
    """The handler asked the overlay for a key that `pre.context.overlay` does not answer."""


class _Pids(dict[str, int]):
    """Peer ids by name (id = SHA-1 of the name, as the thesis system's peers, §3.2.1)."""

    def __init__(self, names: dict[int, str]) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, name: str) -> int:
        pid = sha1_id(name)
        self[name] = pid
        self.names[pid] = name
        return pid


class _Subs(dict[str, SubState]):
    """The node's own subscriptions; another node's installation bookkeeping (simulation
    accounting, not protocol state) is a placeholder that accepts every arrival."""

    def __missing__(self, sid: str) -> SubState:
        state = SubState(Subscription(sid, "", "", ()), (), Installation(0.0, 1 << 62))
        self[sid] = state
        return state


class _Zero(dict[str, float]):
    def __missing__(self, key: str) -> float:
        return 0.0


class _StepSubstrate(ReferenceSubstrate):
    """Routing answered from the overlay table (or the generation oracle), sends captured."""

    system: _Harness

    def home(self, key: int) -> Peer:
        return self.system.peer_named(self.system.ask(key, "homes"))

    def first_hop(self, peer: Peer, key: int) -> int:
        return self.system.pid_of[self.system.ask(key, "first_hops")]

    def record(self, event_id: str, sub_id: str, latency_ms: float) -> None:
        self.system.delivered.append([event_id, sub_id])


class _Harness(TwoDTreeSystem):
    """The thesis system reduced to one node: the reference's handlers, unchanged, over the
    state of one peer and the context of a step."""

    substrate_class = _StepSubstrate

    def __init__(self, node: _Node, ctx: _Context, events: _Events,
                 labels: dict[int, str], oracle: Oracle | None) -> None:  # fmt: skip
        System.__init__(self, 0)  # no random choice is made by a message handler
        self.net = _StepSubstrate(self)
        self.engine = self.net.new_engine()
        self.observer = _ignore  # observations on: the delivery tree id of EventDelivery
        self.config = ctx.config
        self.matching = "strict" if ctx.matching == "strict" else "lenient"
        self.metrics = TreeMetrics()
        self.local = node.peer
        self.labels = labels
        self.ctx = ctx
        self.oracle = oracle
        self.asked: dict[str, dict[str, str]] = {"homes": {}, "first_hops": {}}
        self.names: dict[int, str] = {}
        self.pid_of = _Pids(self.names)
        self.stubs: dict[str, Peer] = {node.peer.name: node.peer}
        self.peers = {}
        alive = ctx.alive if ctx.alive is not None else []
        for name in sorted({*alive, node.peer.name}):
            peer = self.peer_named(name)
            self.peers[peer.pid] = peer
        self._departed = ctx.alive is not None
        self.schemas = {s.name: s for s in ctx.schemas}
        self.squares, self.attrs = {}, {}
        for s in ctx.schemas:
            for a in s.attributes:
                q = qualified(s.name, a.name)
                self.squares[q] = Square.of(a, self.config.max_depth)
                self.attrs[q] = a
        self.subs = _Subs()
        for sub in node.subs:
            self.subs[sub.id] = SubState(sub, (), Installation(0.0, 1 << 62))
        self.event_seq = events.seq
        self._areas = {}
        self._lbdd_cache = {}
        self._published_at = _Zero()
        self._matched = None
        self.sent: list[tuple[str, str, Message]] = []
        self.delivered: list[list[str]] = []

    def peer_named(self, name: str) -> Peer:
        peer = self.stubs.get(name)
        if peer is None:
            peer = Peer(name, self.pid_of[name], 0, True)
            self.stubs[name] = peer
        self.names[peer.pid] = name
        return peer

    def ask(self, key: int, table: str) -> str:
        label = self.labels.get(key)
        if label is None:
            raise _OverlayGap(f"a key that no tree node or peer of the step names ({key:x})")
        answers = self.ctx.homes if table == "homes" else self.ctx.first_hops
        if self.oracle is not None:
            home, hop = self.oracle
            answers[label] = (home if table == "homes" else hop)(key)
        name = answers.get(label)
        if name is None:
            raise _OverlayGap(f"pre.context.overlay.{table} has no entry {label!r}")
        self.asked[table][label] = name
        return name

    def send_key(self, src: Peer, key: int, msg: Message) -> None:
        self.sent.append(("key", self.net.home(key).name, msg))

    def send_direct(self, src: Peer, dst_pid: int, msg: Message, key: int | None = None) -> None:
        self.sent.append(("direct", self.names[dst_pid], msg))


def _harness_of(base: type[TwoDTreeSystem]) -> type[_Harness]:
    """The harness over a variant's handlers (its methods between the harness and the
    reference in the method resolution order)."""
    return type(f"_Harness{base.__name__}", (_Harness, base), {})


def _ignore(_: object) -> None:
    return None


def _keys_of(msg: Message, node: _Node, ctx: _Context) -> dict[int, str]:
    """The DHT keys a handler of this input may route to, by their label: tree nodes by their
    identifier (thesis §3.2.1), peers by name."""
    out: dict[int, str] = {}

    def tree_node(q: str, bits: str) -> None:
        for i in range(len(bits) + 1):  # the node, its ancestors (jump back) ...
            out[node_key(q, bits[:i])] = identifier(q, bits[:i])
        for b in ("0", "1"):  # ... and its children (a split, a LeafNodeRoutingTable record)
            out[node_key(q, bits + b)] = identifier(q, bits + b)

    def peer(name: str) -> None:
        out[sha1_id(name)] = name

    def message(m: object) -> None:
        if isinstance(m, ProbeSub | InsertSub):
            q = qualified(m.point.sub.schema, m.point.base)
            tree_node(q, m.target)
            tree_node(q, m.point.path)
            peer(m.point.sub.subscriber)
        elif isinstance(m, LeafUpdate | TransferSub | ProbePub):
            tree_node(m.qattr, m.target)
        elif isinstance(m, ProbePubMulticast):
            for q, bits in m.dests:
                tree_node(q, bits)
        elif isinstance(m, EventDelivery):
            for s, _ in m.targets:
                peer(s)
            peer(m.origin)

    for n in node.peer.nodes.values():
        tree_node(n.qattr, n.bits)
        for r in n.lnrt or ():
            tree_node(n.qattr, r)
        for held in n.held:
            message(held)
        for p in n.points.values():  # the subscribers a match delivers to (§3.4.3)
            peer(p.sub.subscriber)
    message(msg)
    for name in ctx.alive or ():
        peer(name)
    return out


def _send(src: str, route: str, to: str, msg: Message, strategy: str, events: _Events) -> JSON:
    """A captured send as a `send` observation (conformance/OBSERVATIONS.md, "thesis"):
    without `hops`, with `route` and the whole `message`."""
    out = observation_to_json(obs.message(src, to, msg, 0, strategy))
    fields = out.setdefault("fields", {})
    del fields["hops"]
    fields["route"] = route
    fields["message"] = enc_message(msg, events)
    return out


def run_step(
    pre: JSON,
    step_input: JSON,
    oracle: Oracle | None = None,
    base: type[TwoDTreeSystem] | None = None,
) -> tuple[Outcome, JSON]:
    """Apply one input to one pre-state: (the outcome, the overlay entries the handler used).
    `base`: a variant of the system whose handlers run instead of the reference's (a mutant)."""
    events = _Events()
    node = dec_node(field(pre, "node", "pre"), "pre.node", events)
    ctx = dec_context(field(pre, "context", "pre"), "pre.context")
    msg = dec_message(step_input, "input", events)
    labels = _keys_of(msg, node, ctx)
    harness = _Harness if base is None else _harness_of(base)
    h = harness(node, ctx, events, labels, oracle)
    subs = list(node.subs)
    try:
        h._handle(node.peer, msg)
    except _OverlayGap as e:
        raise StepInputError(str(e)) from None
    except (AssertionError, LookupError) as e:
        # a message the handler must refuse (thesis §3.2.2: a child is created once, a
        # confirmation answers a split; §3.3: a point lies in the zone it is routed to)
        reason = str(e) or type(e).__name__
        return Outcome(invalid=f"{TYPE_OF[type(msg)]} refused: {reason}"), h.asked
    post = {"node": enc_node(node.peer, subs, events), "delivered": h.delivered}
    strategy = ctx.config.event_delivery
    sends = [_send(node.peer.name, r, to, m, strategy, events) for r, to, m in h.sent]
    return Outcome(post, sends), h.asked


# -- the system's part of the framework ------------------------------------------------------

HANDLERS = (
    Handler("ProbeSub", "thesis §3.3, Program 3.2 (RndLeafProbe); §3.3.1 (unsubscription)",
            "a probe for the leaf of a subscription point: jump back when the node is absent "
            "(lines 65-68), follow the LeafNodeRoutingTable (lines 59-62), answer the "
            "subscriber from the leaf (line 58) or remove the point (§3.3.1); the "
            "subscriber's side sends the InsertSub (line 50)"),
    Handler("InsertSub", "thesis §3.3, Program 3.2 line 50; §3.2.2 (split on overload)",
            "the point stored at its leaf, then a split if the load exceeds the capacity "
            "(never past max_depth); held while the node splits (decision D-SPLIT)"),
    Handler("TransferSub", "thesis §3.2.2, Program 3.1 lines 42-52 (decision D-SPLIT)",
            "a new child with the points handed to it (and its confirmation to the parent), "
            "or a confirmation: the parent's LeafNodeUpdateMessage once both children exist "
            "and the replay of what it held"),
    Handler("LeafUpdate", "thesis §3.2.2, Program 3.1 lines 54-65; Table 3.1",
            "LeafNodeUpdateMessage: the record of the split node replaced by its children "
            "(coarsened when a maximum is set), forwarded towards the root"),
    Handler("ProbePub", "thesis §3.4.1, Program 3.3 (RndRegionProbe); §3.4.3",
            "a region probe: jump back, hold, discard a duplicate, forward to the records "
            "overlapping the target area (line 49), or match at the leaf and deliver"),
    Handler("ProbePubMulticast", "thesis §3.4.2, Program 3.4",
            "the destinations this peer is home for handled here, the rest regrouped by "
            "next hop, one message per group"),
    Handler("EventDelivery", "thesis §3.4.3 (unicast, prefix-grouped); LBDD §3.2-§3.3",
            "the subscriber's filter of false positives (§3.3), and the copies it relays in "
            "prefix-grouped multicast or along the LBDD tree"),
)  # fmt: skip

THESIS_FUNCTIONS = (
    "_handle", "_on_probe_sub", "_on_insert_sub", "_check_capacity", "_split",
    "_on_transfer_sub", "_on_child_created", "_on_leaf_update", "_area",
    "_on_probe_pub_multicast", "_on_probe_pub", "_match_and_deliver", "_matching", "_deliver",
    "_relay_delivery", "_lbdd_tree", "_on_event_delivery", "_accept",
)  # fmt: skip
LNRT_FUNCTIONS = ("record_containing", "records_overlapping", "apply_split", "coarsen")


class ThesisSteps(StepSystem):
    """The thesis system's steps; `base`, a variant of the system (a mutant), runs its
    handlers in place of the reference's."""

    name = "thesis"
    paper = (
        'Wei Li, "A Content-based Publish/Subscribe Framework over Structured Peer-to-Peer '
        'Networks", MSc thesis, University of British Columbia, 2008'
    )
    handlers = HANDLERS
    at_least = 8
    coverage = (
        ("reference/thesis/system.py", THESIS_FUNCTIONS),
        ("reference/thesis/lnrt.py", LNRT_FUNCTIONS),
    )

    def __init__(self, base: type[TwoDTreeSystem] | None = None) -> None:
        self.base = base

    def handler_of(self, step_input: JSON) -> str:
        kind = field(step_input, "type", "input")
        if not isinstance(kind, str):
            raise StepInputError("input.type: a string")
        return kind

    def apply(self, pre: JSON, step_input: JSON) -> Outcome:
        return run_step(pre, step_input, base=self.base)[0]

    def candidates(self) -> Iterator[Case]:
        from pubsub_spec.conformance.steps import thesis_model
        from pubsub_spec.conformance.steps.thesis_gen import candidates

        yield from candidates()
        if thesis_model.available():  # MCTwoDTree's and MCCutoffRemap's pairs (docs/steps.md)
            yield from thesis_model.cases(self.base)

    def keep(self, case: Case) -> bool:
        return case.name.startswith("model-")

    def schema(self) -> dict[str, JSON]:
        from pubsub_spec.conformance.steps.thesis_schema import SCHEMA

        return SCHEMA

    def roundtrip(self, document: str, value: JSON) -> JSON:
        events = _Events()
        if document == "input":
            return enc_message(dec_message(value, "input", events), events)
        node = dec_node(field(value, "node", document), f"{document}.node", events)
        subs = node.subs
        out: dict[str, Any] = {"node": enc_node(node.peer, subs, events)}
        if document == "pre":
            out["context"] = dec_context(field(value, "context", "pre"), "pre.context").to_json()
        else:
            out["delivered"] = value["delivered"]
        return out


SYSTEM = ThesisSteps()
