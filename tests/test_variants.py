"""Optimised variants deliver exactly what the reference oracle delivers."""

from __future__ import annotations

from hypothesis import given, settings

from conformance.generators import GENERATORS
from conformance.variants.indexed_matcher import indexed_expected
from properties.strategies import workloads
from reference.ops import Trace
from reference.oracle import expected_deliveries


@settings(max_examples=200)
@given(workloads())
def test_indexed_matcher_equals_oracle_on_generated_workloads(trace: Trace) -> None:
    assert indexed_expected(trace) == expected_deliveries(trace)


def test_indexed_matcher_equals_oracle_on_every_generator() -> None:
    for gen in GENERATORS.values():
        for i in range(3):
            t = gen(4, i, "small")
            assert indexed_expected(t) == expected_deliveries(t), t.trace_id
