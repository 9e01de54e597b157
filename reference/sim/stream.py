"""The oracle comparison without holding every delivery twice.

`reference.common.oracle.expected_deliveries` lists every (event, subscription) pair and
`reference.sim.run.compare` counts the run's list against it: at Table 4.1 scale that is
millions of `Delivery` objects on each side and one `matches` call per active subscription and
event. Here the run's deliveries are kept as subscription ids per event (`DeliveryStream`), the
oracle is computed event by event (`expected_per_event`, vectorised with numpy where the
comparison is exact) and `compare_stream` folds the two into the very `Comparison` that
`compare(expected_deliveries(trace), deliveries)` returns (tests/test_thesis_speed.py checks
both equalities, and a mutant oracle that is caught).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, MatchMode, Number, Schema, Subscription
from pubsub_spec.reference.common.ops import Fail, Leave, Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.run import Comparison, Progress

EXACT = 2**53  # a float64 holds every int up to this exactly: numpy compares like Python


def _exact(x: object) -> bool:
    if isinstance(x, bool):
        return False
    if isinstance(x, float):
        return True
    return isinstance(x, int) and -EXACT <= x <= EXACT


class _Compiled:
    """The active subscriptions of one schema as arrays: per attribute the bounds (the
    intersection of the subscription's predicates on it; -inf/+inf without one) and whether a
    predicate names it (strict matching fails on an absent attribute, lenient ignores it)."""

    def __init__(self, schema: Schema, subs: list[Subscription]) -> None:
        self.ids = [s.id for s in subs]
        names = [a.name for a in schema.attributes]
        self.col = {n: i for i, n in enumerate(names)}
        shape = (len(names), len(subs))
        self.lo: npt.NDArray[np.float64] = np.full(shape, -np.inf)
        self.hi: npt.NDArray[np.float64] = np.full(shape, np.inf)
        self.has: npt.NDArray[np.bool_] = np.zeros(shape, dtype=bool)
        for j, s in enumerate(subs):
            for p in s.predicates:
                i = self.col[p.attribute]
                self.lo[i, j] = max(self.lo[i, j], float(p.lo))
                self.hi[i, j] = min(self.hi[i, j], float(p.hi))
                self.has[i, j] = True

    def matching(self, event: Event, mode: MatchMode) -> list[str]:
        mask = np.ones(len(self.ids), dtype=bool)
        values: dict[str, Number] = {}
        for name, x in event.values:
            values.setdefault(name, x)  # Event.value: the first value of a name
        for name, i in self.col.items():
            v = values.get(name)
            if v is None:
                if mode == "strict":
                    mask &= ~self.has[i]
                continue
            fv = float(v)
            mask &= (self.lo[i] <= fv) & (fv <= self.hi[i])
        return [self.ids[j] for j in np.flatnonzero(mask)]


def _vectorisable(trace: Trace) -> bool:
    """True iff every bound and value converts to float64 exactly and names known attributes
    (else the brute-force `matches` is used: same result, slower)."""
    attrs = {s.name: {a.name for a in s.attributes} for s in trace.schemas}
    for op in trace.ops:
        if isinstance(op, Subscribe):
            known = attrs.get(op.sub.schema, set())
            for p in op.sub.predicates:
                if p.attribute not in known or not (_exact(p.lo) and _exact(p.hi)):
                    return False
        elif isinstance(op, Publish) and not all(_exact(v) for _, v in op.event.values):
            return False
    return True


def expected_per_event(trace: Trace) -> Iterator[tuple[str, list[str]]]:
    """(event id, matching subscription ids) per Publish, in trace order: the oracle of
    reference/common/oracle.py (same active-set rule), one event at a time."""
    active: dict[str, Subscription] = {}
    fast = _vectorisable(trace)
    schemas = {s.name: s for s in trace.schemas}
    compiled: dict[str, _Compiled] = {}
    for op in trace.ops:
        if isinstance(op, Subscribe):
            active[op.sub.id] = op.sub
            compiled.clear()
        elif isinstance(op, Unsubscribe):
            if active.pop(op.sub_id, None) is not None:
                compiled.clear()
        elif isinstance(op, Leave | Fail):
            gone = {op.node} if isinstance(op, Leave) else set(op.nodes)
            for sid in [s for s, sub in active.items() if sub.subscriber in gone]:
                del active[sid]
                compiled.clear()
        elif isinstance(op, Publish):
            ev = op.event
            if not fast or ev.schema not in schemas:
                ids = [s.id for s in active.values() if matches(s, ev, trace.matching)]
            else:
                c = compiled.get(ev.schema)
                if c is None:
                    subs = [s for s in active.values() if s.schema == ev.schema]
                    c = compiled[ev.schema] = _Compiled(schemas[ev.schema], subs)
                ids = c.matching(ev, trace.matching)
            yield ev.id, ids


class DeliveryStream:
    """A run's deliveries as subscription ids per event (the strings are the run's own: no
    `Delivery` object per delivery is kept)."""

    def __init__(self) -> None:
        self.by_event: dict[str, list[str]] = {}
        self.count = 0

    def add(self, event_id: str, sub_id: str) -> None:
        got = self.by_event.get(event_id)
        if got is None:
            got = self.by_event[event_id] = []
        got.append(sub_id)
        self.count += 1


class StreamedDeliveries(list[Delivery]):
    """Put in place of a system's `deliveries` list (every system only appends to it): each
    delivery goes to a `DeliveryStream` and the list itself stays empty."""

    def __init__(self, stream: DeliveryStream) -> None:
        super().__init__()
        self.stream = stream

    def append(self, d: Delivery) -> None:
        self.stream.add(d.event_id, d.sub_id)


def compare_stream(
    expected: Iterator[tuple[str, Sequence[str]]],
    got: DeliveryStream,
    progress: Progress | None = None,
    total: int = 0,
) -> Comparison:
    """`reference.sim.run.compare`, event by event: equal to it on the same deliveries
    (`progress(done, total)` after each event)."""
    n_expected = 0
    missed: list[Delivery] = []
    duplicate: list[Delivery] = []
    spurious: list[Delivery] = []
    seen: set[str] = set()
    for event_id, ids in expected:
        seen.add(event_id)
        exp = set(ids)
        n_expected += len(exp)
        counts = Counter(got.by_event.get(event_id, ()))
        missed += (Delivery(event_id, s) for s in exp - counts.keys())
        duplicate += (Delivery(event_id, s) for s, n in counts.items() if n > 1 and s in exp)
        spurious += (Delivery(event_id, s) for s in counts if s not in exp)
        if progress is not None:
            progress(len(seen), max(total, len(seen)))
    for event_id, ids in got.by_event.items():
        if event_id not in seen:
            spurious += (Delivery(event_id, s) for s in dict.fromkeys(ids))
    return Comparison(
        n_expected,
        got.count,
        tuple(sorted(missed)),
        tuple(sorted(duplicate)),
        tuple(sorted(spurious)),
    )
