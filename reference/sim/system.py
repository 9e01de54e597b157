"""The `System` interface that every simulated pub/sub system implements
(docs/design.md#systems): trace ops in, deliveries and metrics out.

`reference.sim.run.Driver` applies a trace's ops to a system with the op timing of decision
D-OPS (docs/thesis.md); `run_trace`, `pubsub-spec simulate --system`, the conformance built-ins
and the Hypothesis state machine all go through it. A system runs on one deterministic event
engine (`reference.sim.engine.Engine`); every random choice comes from its seeded `rng` or from a
generator seeded by (seed, name) of its own.

What a system supports is declared as features (`FEATURES`); a trace that needs a feature the
system lacks is skipped with a reason, never delivered wrongly (`missing_features`).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pubsub_spec.reference.common.model import Event, Schema, Subscription
from pubsub_spec.reference.common.ops import (
    Advertise,
    Fail,
    Join,
    Leave,
    Op,
    Trace,
    Unadvertise,
    has_advertisements,
)
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.engine import Engine
from pubsub_spec.reference.sim.metrics import MessageType, Metrics
from pubsub_spec.reference.sim.observe import Observation, Observer

# The features a trace may need (conformance/PROTOCOL.md, "Features"): the matching semantics
# (thesis §3.4.1), churn (join/leave/fail, thesis §3.6) and several schemas hosted at once
# (thesis §3.1). Later systems add their own: OctopiA's advertisements (OctopiA §V; the
# advertise/unadvertise ops of trace format v2, conformance/FORMAT.md "Advertisements").
STRICT = "strict"
LENIENT = "lenient"
CHURN = "churn"
MULTI_SCHEMA = "multi-schema"
ADVERTISEMENTS = "advertisements"
FEATURES: tuple[str, ...] = (STRICT, LENIENT, CHURN, MULTI_SCHEMA, ADVERTISEMENTS)
# Optional features: a trace lists them, but an implementation without one is not skipped; it
# runs the trace without those ops (advertisements are no-ops to it: the expected deliveries
# do not depend on them; docs/design.md#systems).
OPTIONAL_FEATURES = frozenset({ADVERTISEMENTS})


def needed_features(trace: Trace) -> frozenset[str]:
    """The features a trace uses: its matching mode, churn if it has a join/leave/fail op,
    multi-schema if its header declares more than one schema, advertisements if it has
    advertisement ops (an optional feature, `OPTIONAL_FEATURES`)."""
    need: set[str] = {trace.matching}
    if any(isinstance(op, Join | Leave | Fail) for op in trace.ops):
        need.add(CHURN)
    if len(trace.schemas) > 1:
        need.add(MULTI_SCHEMA)
    if has_advertisements(trace):
        need.add(ADVERTISEMENTS)
    return frozenset(need)


def missing_features(
    trace: Trace, supported: frozenset[str], need: frozenset[str] | None = None
) -> str | None:
    """The reason to skip `trace` for an implementation supporting `supported`, or None
    (optional features never cause a skip). `need`: the trace's `needed_features`, when the
    caller already has them (a scan of the trace's ops saved per implementation)."""
    need = needed_features(trace) if need is None else need
    missing = sorted(need - supported - OPTIONAL_FEATURES)
    return f"needs unsupported feature(s): {', '.join(missing)}" if missing else None


Item = TypeVar("Item")


class System(ABC, Generic[Item]):
    """A simulated system on one event engine whose items are of type Item.

    Subclasses set `metrics` (a `Metrics` or a subclass with the system's own figures) and
    implement the ops and `_dispatch`; the engine-driving methods are shared here.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.engine: Engine[Item] = Engine()
        self.deliveries: list[Delivery] = []

    metrics: Metrics
    # Protocol observations (reference/sim/observe.py): off unless set. A report site tests
    # `self.observer is not None` before building its Observation, so a run without an
    # observer costs one test per site and keeps its event-log hash.
    observer: Observer | None = None

    def observe(self, obs: Observation) -> None:
        """Report one protocol observation to the observer, if any."""
        if self.observer is not None:
            self.observer(obs)

    # -- the ops of a trace (docs/design.md#conformance) --------------------------------------
    @abstractmethod
    def subscribe(self, sub: Subscription, seq: int) -> None: ...

    @abstractmethod
    def installed(self, sub_id: str) -> bool:
        """Whether the subscription is stored, so that it "came before" later publishes."""

    @abstractmethod
    def unsubscribe(self, sub_id: str) -> None: ...

    @abstractmethod
    def publish(self, event: Event, seq: int) -> None: ...

    @abstractmethod
    def join(self, name: str) -> None: ...

    @abstractmethod
    def leave(self, name: str) -> None: ...

    @abstractmethod
    def fail(self, names: Sequence[str]) -> None: ...

    def apply_other(self, op: Op) -> None:
        """A system-specific op. Advertisement ops are no-ops here (docs/design.md#systems: other
        implementations may treat them as no-ops; they never change the expected deliveries);
        a system that uses them (OctopiA, TID) overrides this. Any other op is refused."""
        if isinstance(op, Advertise | Unadvertise):
            return
        raise ValueError(f"{type(self).__name__} does not take op {type(op).__name__}")

    # -- what a run reports ----------------------------------------------------------------
    @abstractmethod
    def peer_count(self) -> int:
        """Peers (servers, brokers) alive now: the denominator of per-node figures."""

    def describe(self) -> str:
        """A few words on how the system is set up, for the first line of `simulate`."""
        return f"system {type(self).__name__}"

    def figures(self) -> list[str]:
        """Lines of the system's own figures for `pubsub-spec simulate` (none by default)."""
        return []

    # -- the event engine ------------------------------------------------------------------
    @abstractmethod
    def _dispatch(self, item: Item) -> str:
        """Process one engine item; returns the text folded into the event-log hash."""

    def run_until(self, done: Callable[[], bool]) -> None:
        while not done() and len(self.engine):
            self.engine.step(self._dispatch)

    def run_until_time(self, t: float) -> None:
        while len(self.engine) and (nt := self.engine.next_time()) is not None and nt <= t:
            self.engine.step(self._dispatch)
        self.engine.advance_to(t)

    def run_to_quiescence(self) -> None:
        while len(self.engine):
            self.engine.step(self._dispatch)


SystemFactory = Callable[[Trace], System[Any]]


class ConfigCodec(ABC):
    """A system's section of the trace header's `config.systems` (trace format v2): read with
    every error naming the place (`InputError`), written back with only non-default fields."""

    @abstractmethod
    def default(self) -> object: ...

    @abstractmethod
    def parse(self, obj: Mapping[str, Any], where: str, schemas: Sequence[Schema]) -> object:
        """The section from its JSON object; `where` names the header line; unknown keys and
        values outside their domain are rejected (field names are `config.systems.NAME.KEY`,
        or `config.KEY` in a v1 header)."""

    @abstractmethod
    def to_json(self, section: object) -> dict[str, Any]:
        """The JSON object of the section, non-default fields only, in declaration order."""


@dataclass(frozen=True)
class Variant:
    """One way to run a system, a conformance built-in of its own (e.g. the thesis system with
    LBDD delivery is `reference-lbdd`)."""

    builtin: str
    doc: str
    make: SystemFactory


@dataclass(frozen=True)
class SystemInfo:
    """A registry entry (reference/registry.py): what `pubsub-spec systems` prints."""

    name: str
    paper: str
    summary: str
    features: frozenset[str]
    message_types: tuple[MessageType, ...]
    variants: tuple[Variant, ...]
    default_variant: str
    config: ConfigCodec | None = None

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.builtin == name:
                return v
        raise KeyError(name)

