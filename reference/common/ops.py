"""Operations of a run (docs/design.md#conformance: join, leave, fail, subscribe, unsubscribe,
publish) and the in-memory trace that the reference, the oracles and the conformance suite share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import (
    MATCH_MODES,
    Event,
    MatchMode,
    Predicate,
    Schema,
    Subscription,
    validate_event,
    validate_subscription,
)


@dataclass(frozen=True)
class Join:
    seq: int
    node: str


@dataclass(frozen=True)
class Leave:
    seq: int
    node: str


@dataclass(frozen=True)
class Fail:
    """Crash of one or more peers at once (simultaneous failures test the replication bound)."""

    seq: int
    nodes: tuple[str, ...]


@dataclass(frozen=True)
class Subscribe:
    seq: int
    sub: Subscription


@dataclass(frozen=True)
class Unsubscribe:
    seq: int
    sub_id: str


@dataclass(frozen=True)
class Publish:
    """`adv` optionally names an active advertisement of the publisher that the event conforms
    to (FORMAT.md, "Advertisements"); informative: systems route by every conforming one."""

    seq: int
    event: Event
    adv: str | None = None


@dataclass(frozen=True)
class Advertise:
    """A publisher declares the events it will publish (OctopiA §I, §V; PADRES [20]): a
    conjunction of closed ranges on attributes of one schema. Additive in trace format v2;
    the expected deliveries never depend on advertisements (FORMAT.md, "Advertisements")."""

    seq: int
    id: str
    publisher: str
    schema: str
    predicates: tuple[Predicate, ...]

    def admits(self, event: Event) -> bool:
        """The event conforms (OctopiA A7): same publisher and schema, and every attribute the
        advertisement constrains is present in the event and inside its range."""
        if event.publisher != self.publisher or event.schema != self.schema:
            return False
        for p in self.predicates:
            v = event.value(p.attribute)
            if v is None or not p.lo <= v <= p.hi:
                return False
        return True


@dataclass(frozen=True)
class Unadvertise:
    seq: int
    id: str


Op = Join | Leave | Fail | Subscribe | Unsubscribe | Publish | Advertise | Unadvertise
ADVERTISEMENT_OPS = (Advertise, Unadvertise)


def has_advertisements(trace: Trace) -> bool:
    """Whether the trace has advertisement ops (advertise, unadvertise, a publish naming one):
    then every publish must conform to an active advertisement of its publisher."""
    return any(
        isinstance(op, Advertise | Unadvertise) or (isinstance(op, Publish) and op.adv is not None)
        for op in trace.ops
    )


def initial_node_names(count: int) -> list[str]:
    return [f"n{i}" for i in range(count)]


@dataclass(frozen=True)
class Timing:
    """When the ops of a sequential trace arrive (decision D-OPS, docs/thesis.md): exponential
    inter-arrival times with these means (thesis Table 4.1: t_sub 2000 ms, t_pub 1000 ms).
    System-neutral: every simulated system is driven with the same timing."""

    sub_interarrival_ms: float = 2000.0
    pub_interarrival_ms: float = 1000.0


S = TypeVar("S")


@dataclass(frozen=True)
class Trace:
    """A sequential run: schemas, matching semantics, initial peers, timing, ops, and one
    optional configuration section per system (trace format v2, conformance/FORMAT.md), keyed
    by the system's registry name; a system without a section runs with its defaults."""

    schemas: tuple[Schema, ...]
    ops: tuple[Op, ...]
    initial_nodes: int = 16
    matching: MatchMode = "strict"
    seed: int = 0
    timing: Timing = Timing()
    sections: tuple[tuple[str, object], ...] = ()
    generator: str = "manual"
    trace_id: str = "trace"

    @property
    def schema_map(self) -> Mapping[str, Schema]:
        return {s.name: s for s in self.schemas}

    def section(self, name: str, kind: type[S]) -> S | None:
        """The configuration section of system `name`, if the trace has one of type `kind`."""
        for key, value in self.sections:
            if key == name:
                if not isinstance(value, kind):
                    raise TypeError(f"section {name!r} is a {type(value).__name__}")
                return value
        return None

    def with_section(self, name: str, value: object) -> Trace:
        """The same trace with system `name`'s section replaced (or added, in name order)."""
        rest = [(k, v) for k, v in self.sections if k != name]
        return replace(self, sections=tuple(sorted([*rest, (name, value)], key=lambda kv: kv[0])))


def op_where(index: int, op: Op) -> str:
    """Where an op is, in the words of the NDJSON trace (line 1 is the header)."""
    return f"line {index + 2} (op seq {op.seq})"


def validate_trace(trace: Trace) -> None:
    """Reject a malformed trace before anything runs; the error names line and field."""
    if trace.matching not in MATCH_MODES:
        raise InputError("line 1", "semantics.matching", f"unknown mode {trace.matching!r}")
    if trace.initial_nodes < 1:
        raise InputError("line 1", "config.initial_nodes", "need at least one initial node")
    names: set[str] = set()
    for s in trace.schemas:
        s.validate("line 1")
        if s.name in names:
            raise InputError("line 1", "schemas", f"duplicate schema {s.name!r}")
        names.add(s.name)
    schemas = trace.schema_map
    live = set(initial_node_names(trace.initial_nodes))
    ever = set(live)
    active: dict[str, Subscription] = {}
    used_sub_ids: set[str] = set()
    used_event_ids: set[str] = set()
    # Advertisements (FORMAT.md, "Advertisements"): ids unique in the trace; a leave/fail ends
    # the client's advertisements as it ends its subscriptions (OctopiA A18).
    advertised = has_advertisements(trace)
    adverts: dict[str, Advertise] = {}
    used_adv_ids: set[str] = set()
    last_seq: int | None = None
    for i, op in enumerate(trace.ops):
        where = op_where(i, op)
        if last_seq is not None and op.seq <= last_seq:
            raise InputError(
                where, "seq", f"sequence numbers must increase ({op.seq} after {last_seq})"
            )
        last_seq = op.seq
        if isinstance(op, Join):
            if op.node in ever:
                raise InputError(where, "node", f"duplicate node id {op.node!r}")
            live.add(op.node)
            ever.add(op.node)
        elif isinstance(op, Leave | Fail):
            gone = (op.node,) if isinstance(op, Leave) else op.nodes
            if not gone:
                raise InputError(where, "nodes", "no node given")
            for n in gone:
                if n not in live:
                    raise InputError(where, "node", f"node {n!r} is not live")
                live.discard(n)
            if not live:
                raise InputError(where, "node", "the last live node cannot go")
            for sid in [s for s, sub in active.items() if sub.subscriber in gone]:
                del active[sid]
            for aid in [a for a, adv in adverts.items() if adv.publisher in gone]:
                del adverts[aid]
        elif isinstance(op, Subscribe):
            validate_subscription(op.sub, schemas, where)
            if op.sub.id in used_sub_ids:
                raise InputError(where, "id", f"duplicate subscription id {op.sub.id!r}")
            if op.sub.subscriber not in live:
                raise InputError(where, "subscriber", f"node {op.sub.subscriber!r} is not live")
            used_sub_ids.add(op.sub.id)
            active[op.sub.id] = op.sub
        elif isinstance(op, Unsubscribe):
            if op.sub_id not in active:
                raise InputError(
                    where, "id", f"unsubscribe of unknown or inactive id {op.sub_id!r}"
                )
            del active[op.sub_id]
        elif isinstance(op, Publish):
            validate_event(op.event, schemas, where)
            if op.event.id in used_event_ids:
                raise InputError(where, "id", f"duplicate event id {op.event.id!r}")
            if op.event.publisher not in live:
                raise InputError(where, "publisher", f"node {op.event.publisher!r} is not live")
            used_event_ids.add(op.event.id)
            if advertised:
                _check_conforms(op, adverts, where)
        elif isinstance(op, Advertise):
            _validate_advertise(op, schemas, where)
            if op.id in used_adv_ids:
                raise InputError(where, "id", f"duplicate advertisement id {op.id!r}")
            if op.publisher not in live:
                raise InputError(where, "publisher", f"node {op.publisher!r} is not live")
            used_adv_ids.add(op.id)
            adverts[op.id] = op
        else:
            if op.id not in adverts:
                raise InputError(where, "id", f"unadvertise of unknown or inactive id {op.id!r}")
            del adverts[op.id]


def _validate_advertise(op: Advertise, schemas: Mapping[str, Schema], where: str) -> None:
    """An advertisement's predicates obey the rules of a subscription's (FORMAT.md)."""
    if not op.id:
        raise InputError(where, "id", "empty advertisement id")
    if not op.predicates:
        raise InputError(where, "predicates", "an advertisement needs at least one predicate")
    as_sub = Subscription(op.id, op.publisher, op.schema, op.predicates)
    validate_subscription(as_sub, schemas, where)


def _check_conforms(op: Publish, adverts: Mapping[str, Advertise], where: str) -> None:
    """In a trace with advertisement ops, a publish conforms to an active advertisement of its
    publisher (OctopiA §I, A7); one it names in `adv` must be such an advertisement."""
    e = op.event
    if op.adv is not None:
        adv = adverts.get(op.adv)
        if adv is None or adv.publisher != e.publisher:
            why = "unknown or inactive" if adv is None else f"not {e.publisher!r}'s"
            raise InputError(where, "adv", f"advertisement {op.adv!r} is {why}")
        if not adv.admits(e):
            raise InputError(where, "adv", f"event does not conform to advertisement {op.adv!r}")
        return
    if not any(a.admits(e) for a in adverts.values()):
        raise InputError(
            where,
            "publisher",
            f"the event conforms to no active advertisement of {e.publisher!r}",
        )
