"""Operations of a run (DESIGN.md "Conformance": join, leave, fail, subscribe, unsubscribe,
publish) and the in-memory trace that the reference, the oracles and the conformance suite share.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from reference.common.errors import InputError
from reference.common.model import (
    MATCH_MODES,
    Event,
    MatchMode,
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
    seq: int
    event: Event


Op = Join | Leave | Fail | Subscribe | Unsubscribe | Publish


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
        else:
            validate_event(op.event, schemas, where)
            if op.event.id in used_event_ids:
                raise InputError(where, "id", f"duplicate event id {op.event.id!r}")
            if op.event.publisher not in live:
                raise InputError(where, "publisher", f"node {op.event.publisher!r} is not live")
            used_event_ids.add(op.event.id)
