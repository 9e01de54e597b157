"""The array-based variant (conformance/variants/thesis_array_sim.py) delivers exactly the
reference's set, loses exactly the reference's points and grows the same tree; a variant
that keeps points its failed homes took with them is caught."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings

from pubsub_spec.conformance.fingerprint import fingerprint
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.variants import bucket_matcher
from pubsub_spec.conformance.variants.thesis_array_sim import (
    ArraySim,
    array_sim_deliveries,
    array_sim_fingerprint,
    run_array_sim,
)
from pubsub_spec.properties.thesis.strategies import workloads
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Fail, Join, Op, Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.sim.run import RunResult
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig
from pubsub_spec.reference.thesis.run import run_trace
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

S = Schema("s", (Attribute("a", "float", 0.0, 100.0), Attribute("b", "int", 0, 10)))


def _leaves(result: RunResult[TwoDTreeSystem]) -> frozenset[tuple[str, str]]:
    return frozenset((n.qattr, n.bits) for n in result.system.tree_nodes() if n.is_leaf)


@settings(max_examples=150)
@given(workloads())
def test_same_deliveries_as_the_reference_on_generated_workloads(trace: Trace) -> None:
    ref = run_trace(trace, check=False)
    arr = run_array_sim(trace)
    assert sorted(arr.deliveries) == sorted(ref.deliveries) == expected_deliveries(trace)
    assert arr.points_lost == ref.system.metrics.points_lost == 0
    assert array_sim_deliveries(trace) == arr.deliveries  # the tree kept only with a failure
    if not any(isinstance(op, Join) for op in trace.ops):
        # without a not-ready window (decision V-READY) the tree is the reference's
        assert arr.leaves == _leaves(ref)
        assert arr.splits == ref.system.metrics.splits


def test_same_deliveries_as_the_reference_on_every_generator() -> None:
    for gen in GENERATORS.values():
        for i in range(2):
            t = gen(7, i, "small")
            ref = run_trace(t, check=False)
            assert sorted(run_array_sim(t).deliveries) == sorted(ref.deliveries), t.trace_id


def _beyond_bound_trace(seed: int, k: int) -> Trace:
    """Subscriptions spread over a small ring, then more peers fail at once than the
    replication bound k survives (thesis §3.6), then events: some points are gone."""
    rng = random.Random(seed)
    cfg = ThesisConfig(capacity_min=2, capacity_max=4, replication=k)
    ops: list[Op] = []
    seq = 0
    for i in range(60):
        seq += 1
        lo = round(rng.uniform(0, 90), 1)
        preds: tuple[Predicate, ...] = (Predicate("a", lo, round(lo + rng.uniform(0, 10), 1)),)
        if rng.random() < 0.5:
            preds += (Predicate("b", 0, rng.randint(0, 10)),)
        ops.append(Subscribe(seq, Subscription(f"s{i}", "n0", "s", preds)))
    seq += 1
    ops.append(Fail(seq, tuple(f"n{i}" for i in rng.sample(range(1, 14), 8))))
    for i in range(40):
        seq += 1
        values = (("a", round(rng.uniform(0, 100), 1)), ("b", rng.randint(0, 10)))
        ops.append(Publish(seq, Event(f"e{i}", "n0", "s", values)))
    seq += 1
    ops.append(Unsubscribe(seq, "s3"))
    seq += 1
    ops.append(Publish(seq, Event("last", "n0", "s", (("a", 50.0), ("b", 5)))))
    return Trace((S,), tuple(ops), initial_nodes=14, seed=seed, sections=((SECTION, cfg),))


@pytest.mark.parametrize("seed,k", [(1, 0), (2, 0), (3, 1), (4, 0), (5, 1)])
def test_failures_beyond_the_bound_lose_the_reference_points(seed: int, k: int) -> None:
    trace = _beyond_bound_trace(seed, k)
    ref = run_trace(trace)
    arr = run_array_sim(trace)
    assert arr.points_lost == ref.system.metrics.points_lost
    assert arr.leaves == _leaves(ref)
    assert sorted(arr.deliveries) == sorted(ref.deliveries)


def test_some_beyond_bound_trace_really_loses_points() -> None:
    """Otherwise the test above would compare nothing but empty losses."""
    lost = [run_array_sim(_beyond_bound_trace(s, 0)).points_lost for s in (1, 2, 4)]
    assert all(n > 0 for n in lost), lost


class _KeepsLostPoints(ArraySim):
    """Mutant: every failure is treated as graceful, as if a replica always survived."""

    def remove(self, names: list[str], graceful: bool) -> None:
        super().remove(names, True)


def test_a_variant_that_keeps_lost_points_is_caught() -> None:
    trace = _beyond_bound_trace(1, 0)
    ref = run_trace(trace)
    bad = run_array_sim(trace, _KeepsLostPoints)
    assert bad.points_lost == 0 < ref.system.metrics.points_lost
    assert sorted(bad.deliveries) != sorted(ref.deliveries)


def test_the_tree_is_kept_when_a_failure_can_lose_points() -> None:
    """Without a failure the tree and the peers decide no delivery and are not kept; with one
    they are, and the deliveries without a kept tree are the reference's either way."""
    lossy = _beyond_bound_trace(1, 0)
    assert ArraySim(lossy).tree
    ref = run_trace(lossy)
    assert sorted(array_sim_deliveries(lossy)) == sorted(ref.deliveries)
    assert array_sim_fingerprint(lossy) == fingerprint(ref.deliveries)
    seen = 0
    for gen in GENERATORS.values():
        t = gen(11, 0, "small")
        has_fail = any(isinstance(op, Fail) for op in t.ops)
        assert ArraySim(t).tree == has_fail
        seen += not has_fail
        got = array_sim_deliveries(t)
        assert got == run_array_sim(t).deliveries  # the same, in the same order
        assert sorted(got) == sorted(run_trace(t, check=False).deliveries), t.trace_id
        assert array_sim_fingerprint(t) == fingerprint(got)
    assert seen > 0


def test_deliveries_made_in_many_kernel_calls_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for one delivery per call, the kernel resumes event by event (and grows the
    buffer for an event with more): the same deliveries, in the same order."""
    traces = [gen(3, 0, "small") for gen in GENERATORS.values()] + [_beyond_bound_trace(2, 0)]
    want = [array_sim_deliveries(t) for t in traces]
    assert max(len(w) for w in want) > 1
    monkeypatch.setattr(bucket_matcher, "OUT", 1)
    assert [array_sim_deliveries(t) for t in traces] == want
    assert [array_sim_fingerprint(t) for t in traces] == [fingerprint(w) for w in want]


class _NeverKeepsTheTree(ArraySim):
    """Mutant: the tree is never kept, so a failure loses no point."""

    def __init__(self, trace: Trace, sink: Any = None, tree: bool = False) -> None:
        super().__init__(trace, sink)
        self.tree = False


def test_a_variant_that_drops_the_tree_under_failures_is_caught() -> None:
    trace = _beyond_bound_trace(1, 0)
    ref = run_trace(trace)
    bad = run_array_sim(trace, _NeverKeepsTheTree)
    assert sorted(bad.deliveries) != sorted(ref.deliveries)


def test_bounds_beyond_float64_precision_are_refused_by_name() -> None:
    big = Schema("s", (Attribute("a", "int", 0, 2**60),))
    sub = Subscription("s1", "n0", "s", (Predicate("a", 2**53 + 1, 2**53 + 1),))
    trace = Trace((big,), (Subscribe(1, sub),), initial_nodes=2)
    with pytest.raises(ValueError, match="s1: bound beyond 2"):
        run_array_sim(trace)
