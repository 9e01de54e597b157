"""The `degenerate` generator (docs/conformance.md, "What the default set catches"): valid traces
at the edge of the format (int attributes with 2 and 3 values, more nodes than values or a single
node, zero-width ranges at the domain ends, every subscription of a schema the same), in the
default `conform` set, passed by every built-in implementation, or skipped with a reason."""

from __future__ import annotations

from collections import Counter

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.impls import builtin
from pubsub_spec.conformance.runner import run_trace_list
from pubsub_spec.reference.common.ops import Publish, Subscribe, Unsubscribe, validate_trace
from pubsub_spec.reference.common.oracle import expected_deliveries

TRACES = [GENERATORS["degenerate"](1, i, p) for p in ("tiny", "small") for i in (0, 1)]


def test_the_traces_are_degenerate_and_valid() -> None:
    import argparse

    from pubsub_spec.common_args import add_generators

    parser = argparse.ArgumentParser()
    add_generators(parser)  # conform's --generators
    assert "degenerate" in parser.parse_args([]).generators.split(",")  # the default set
    assert sorted(t.initial_nodes for t in TRACES) == [1, 1, 6, 16]
    ends = widths = 0
    for t in TRACES:
        validate_trace(t)
        assert t.trace_id.startswith("degenerate-")
        for s in t.schemas:
            first = s.attributes[0]  # what Kyra partitions on by default (K-D1)
            assert first.type == "int" and int(first.max) - int(first.min) + 1 <= 3
        subs = [op.sub for op in t.ops if isinstance(op, Subscribe)]
        for sub in subs:
            a = {x.name: x for x in t.schema_map[sub.schema].attributes}
            for p in sub.predicates:
                widths += p.lo == p.hi
                ends += (p.lo, p.hi) in ((a[p.attribute].min,) * 2, (a[p.attribute].max,) * 2)
        # every subscription of schema `same` is one conjunction, from several subscribers
        same = [sub for sub in subs if sub.schema == "same"]
        assert len({sub.predicates for sub in same}) == 1 and len(same) > 1
        assert any(isinstance(op, Unsubscribe) for op in t.ops)
        assert any(isinstance(op, Publish) for op in t.ops) and expected_deliveries(t)
    assert ends > 0 and ends <= widths


def test_the_first_tiny_trace_has_a_single_node_and_the_first_small_one_many() -> None:
    """The committed vectors (index 0 of each profile) have both shapes."""
    assert GENERATORS["degenerate"](2026, 0, "tiny").initial_nodes == 1
    assert GENERATORS["degenerate"](2026, 0, "small").initial_nodes == 16


@pytest.mark.parametrize("impl", sorted(builtin()))
def test_every_builtin_passes_or_skips_with_a_reason(impl: str) -> None:
    verdicts = run_trace_list([impl], TRACES)
    kinds = Counter(v.verdict for v in verdicts)
    assert set(kinds) <= {"pass", "skipped"}, [v.describe() for v in verdicts]
    assert all(v.reason for v in verdicts if v.verdict == "skipped")
