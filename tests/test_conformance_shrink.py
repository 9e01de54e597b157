"""Shrinking keeps the trace valid and failing, and makes it much smaller."""

from __future__ import annotations

from conformance.generators import GENERATORS
from conformance.shrink import shrink
from properties.reference_mutants import MUTANTS
from reference.ops import Trace, validate_trace
from reference.oracle import expected_deliveries
from reference.run import compare, run_trace


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
