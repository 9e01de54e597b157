"""Shrinking keeps the trace valid and failing, and makes it much smaller."""

from __future__ import annotations

from dataclasses import replace

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.shrink import shrink, without
from pubsub_spec.properties.thesis.mutants import MUTANTS
from pubsub_spec.reference.common.model import Predicate, Subscription
from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Subscribe,
    Trace,
    Unsubscribe,
    validate_trace,
)
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.sim.run import compare
from pubsub_spec.reference.thesis.run import run_trace


def closed_segments_fail(t: Trace) -> bool:
    got = run_trace(t, check=False, system_class=MUTANTS["closed-segments"]).deliveries
    return not compare(expected_deliveries(t), got).agree


def test_shrinks_a_closed_segments_failure() -> None:
    trace = next(
        t
        for t in (GENERATORS["cutoff"](9, i, "small") for i in range(20))
        if closed_segments_fail(t)
    )
    small = shrink(trace, closed_segments_fail)
    validate_trace(small)
    assert closed_segments_fail(small)
    assert len(small.ops) <= max(4, len(trace.ops) // 5), (len(small.ops), len(trace.ops))


def test_removing_any_op_with_its_dependents_keeps_a_churn_trace_valid() -> None:
    traces = [GENERATORS["churn"](seed, 0, "small") for seed in range(6)]
    kinds = {type(op) for t in traces for op in t.ops}
    assert {Join, Leave, Fail, Unsubscribe} <= kinds
    for trace in traces:
        for i, op in enumerate(trace.ops):
            ops = without(trace.ops, {i})
            validate_trace(replace(trace, ops=ops))
            assert op not in ops
            if isinstance(op, Join):  # nothing of the peer is left
                assert not any(op.node in str(o) for o in ops)
        for start in range(0, len(trace.ops), 7):
            chunk = set(range(start, start + 13))
            validate_trace(replace(trace, ops=without(trace.ops, chunk)))


def test_a_failure_loses_a_dropped_peer_but_keeps_the_others() -> None:
    base = GENERATORS["uniform"](1, 0, "tiny")
    schema = base.schemas[0]
    a = schema.attributes[0]
    sub = Subscription("s1", "n9", schema.name, (Predicate(a.name, a.min, a.max),))
    ops = (Join(1, "n9"), Subscribe(2, sub), Unsubscribe(3, "s1"), Fail(4, ("n9", "n1")))
    trace = replace(base, ops=ops)
    validate_trace(trace)
    assert without(ops, {0}) == (Fail(4, ("n1",)),)
    assert without(ops, {1}) == (Join(1, "n9"), Fail(4, ("n9", "n1")))


def test_shrinking_is_deterministic_and_one_minimal() -> None:
    trace = GENERATORS["churn"](3, 0, "small")
    calls: list[int] = []

    def needs_two_publishes(t: Trace) -> bool:  # fails while >= 2 publishes with a delivery
        calls.append(1)
        return len({d.event_id for d in expected_deliveries(t)}) >= 2

    small = shrink(trace, needs_two_publishes)
    assert small == shrink(trace, needs_two_publishes)
    assert needs_two_publishes(small) and len(small.ops) <= 4
    for i in range(len(small.ops)):  # 1-minimal: no op can go
        candidate = replace(small, ops=without(small.ops, {i}))
        assert not needs_two_publishes(candidate)
    few = shrink(trace, needs_two_publishes, budget=3)
    assert len(calls) and needs_two_publishes(few)
