"""The Table 2 workload of Tam et al. §5 (reference/tam/workload.py, decision T16): the schema,
the hit-rate indices, the range operators with T15's empty ranges, and a run of it on `tam`
and `tam-basic` that the oracle accepts."""

from __future__ import annotations

import pytest

from pubsub_spec.reference.common.model import Attribute
from pubsub_spec.reference.common.ops import Publish, Subscribe, validate_trace
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.run import run_and_compare
from pubsub_spec.reference.tam.system import TamMetrics
from pubsub_spec.reference.tam.workload import (
    HIT_RATE_INDICES,
    distinct_keys,
    draw_range,
    expected_hit_rate,
    index_without,
    table2_schema,
    table2_trace,
)


def test_table2_has_the_value_counts_of_t16() -> None:
    s = table2_schema()
    assert [(a.name, int(a.max) - int(a.min) + 1) for a in s.attributes] == [
        ("price", 10), ("volume", 10), ("color", 5), ("size", 4), ("temperature", 3),
        ("circumference", 2),
    ]  # fmt: skip
    assert distinct_keys(s, index_without(s, None)) == 12_000


def test_each_index_sets_its_hit_rate() -> None:
    """h(I) = prod over the left-out attributes of 1/V_a: 100, 50, 33.3 and 25 %."""
    s = table2_schema()
    rates = [expected_hit_rate(s, index_without(s, lo)) for _, lo in HIT_RATE_INDICES]
    assert rates == pytest.approx([1.0, 1 / 2, 1 / 3, 1 / 4])


@pytest.mark.parametrize(
    ("value", "op", "bounds"),
    [
        (0, 0, None),  # price < 0: empty (T15)
        (3, 0, (0, 2)),
        (3, 1, (3, 3)),
        (3, 2, (4, 9)),
        (9, 2, None),  # price > 9: empty
    ],
)
def test_strict_operators_give_closed_ranges(
    value: int, op: int, bounds: tuple[int, int] | None
) -> None:
    assert draw_range(value, op, Attribute("price", "int", 0, 9)).bounds == bounds


def test_empty_ranges_are_drawn_counted_with_zero_digests_and_not_emitted() -> None:
    """T15: E[digests per drawn 1-range subscription] = V/3 needs the empty ranges counted
    with 0 keys; the trace holds only the non-empty ones."""
    w = table2_trace(50, 600, 3, ranges=1)
    subs = [op for op in w.trace.ops if isinstance(op, Subscribe)]
    assert w.drawn == 600 and 0 < 600 - len(subs) < 600 // 6
    widths = [
        next(p.hi - p.lo + 1 for p in op.sub.predicates if p.attribute == "price") for op in subs
    ]
    assert w.digests == sum(widths)
    assert w.digests / w.drawn == pytest.approx(10 / 3, rel=0.1)


@pytest.mark.parametrize("system", ["tam", "tam-basic"])
def test_table2_trace_runs_and_agrees_with_the_oracle(system: str) -> None:
    w = table2_trace(40, 120, 1, left_out="circumference", ranges=1)
    validate_trace(w.trace)
    assert sum(isinstance(op, Publish) for op in w.trace.ops) == 120
    res, cmp = run_and_compare(w.trace, SYSTEMS[system].variants[0].make)
    assert cmp.agree and cmp.expected > 0
    m = res.metrics
    assert isinstance(m, TamMetrics) and m.misses > 0  # the 50 % index lets misses through


def test_the_all_attribute_index_has_no_misses() -> None:
    """With exact subscriptions on every attribute and the all-attribute index, every
    notification received is a hit (hit rate 1, I-7)."""
    w = table2_trace(40, 200, 2)
    res, cmp = run_and_compare(w.trace, SYSTEMS["tam"].variants[0].make)
    assert cmp.agree and isinstance(res.metrics, TamMetrics)
    assert res.metrics.misses == 0 and res.metrics.hits > 0
