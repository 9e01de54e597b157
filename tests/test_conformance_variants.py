"""Optimised variants deliver exactly what the reference oracle delivers."""

from __future__ import annotations

from hypothesis import given, settings

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.variants.indexed_matcher import IndexedMatcher, indexed_expected
from pubsub_spec.properties.thesis.strategies import workloads
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import expected_deliveries


@settings(max_examples=200)
@given(workloads())
def test_indexed_matcher_equals_oracle_on_generated_workloads(trace: Trace) -> None:
    assert indexed_expected(trace) == expected_deliveries(trace)


@settings(max_examples=200)
@given(workloads())
def test_bucket_index_equals_oracle_when_it_is_rebuilt_all_the_time(trace: Trace) -> None:
    """min_index=0: the bucket index, not the column scan, answers from the first event on."""
    assert indexed_expected(trace, min_index=0) == expected_deliveries(trace)


def test_indexed_matcher_equals_oracle_on_every_generator() -> None:
    for gen in GENERATORS.values():
        for i in range(3):
            t = gen(4, i, "small")
            assert indexed_expected(t) == expected_deliveries(t), t.trace_id
            assert indexed_expected(t, min_index=0) == expected_deliveries(t), t.trace_id


def test_bucket_edges_and_domain_ends_match_exactly() -> None:
    """Values and bounds on bucket edges and on the domain's min and max, index built."""
    schema = Schema("s", (Attribute("a", "float", 0.0, 256.0), Attribute("b", "int", -5, 5)))
    subs = [
        Subscription(f"s{i}", "n0", "s", (Predicate("a", lo, hi), *extra))
        for i, (lo, hi, extra) in enumerate(
            [(0.0, 1.0, ()), (1.0, 2.0, ()), (255.0, 256.0, ()), (0.0, 256.0, ()),
             (3.0, 3.0, ()), (2.5, 3.0, (Predicate("b", -5, -5),)), (256.0, 256.0, ())]
        )
    ]  # fmt: skip
    m = IndexedMatcher(schema, "strict", min_index=0)
    for s in subs:
        m.add(s)
    m.build()
    for a in (0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 255.0, 255.5, 256.0):
        for b in (-5, 0, 5):
            e = Event("e", "n0", "s", (("a", a), ("b", b)))
            assert m.match(e) == [s.id for s in subs if matches(s, e)], (a, b)
