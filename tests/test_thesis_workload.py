"""The thesis' Zipf workload (§4.1.2, Tables 4.2 and 4.3): schema, profiles, Zipf ranks, valid
and in-domain subscriptions and events, partition independence, the three stages."""

from __future__ import annotations

import math
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from pubsub_spec.reference.common.model import validate_event, validate_subscription
from pubsub_spec.reference.common.ops import Publish, Subscribe, validate_trace
from pubsub_spec.reference.thesis.config import config_of
from pubsub_spec.reference.thesis.workload import (
    SIZE_CLASSES,
    THESIS_PROFILES,
    thesis_schema,
    thesis_trace,
    zipf_event,
    zipf_rank,
    zipf_subscription,
)

SCHEMA = thesis_schema()
SCHEMAS = {SCHEMA.name: SCHEMA}


def test_schema_is_table_4_2() -> None:
    got = [(a.name, a.type, a.min, a.max) for a in SCHEMA.attributes]
    assert got == [
        ("Attr1", "float", 0, 10000),
        ("Attr2", "float", -10000, 10000),
        ("Attr3", "float", 0, 3000),
        ("Attr4", "float", 0, 200),
    ]
    assert thesis_schema("other").name == "other"


def test_profiles_are_table_4_3() -> None:
    rows = {
        name: (p.present_prob, p.subrange_skew, p.subrange_size, p.size_skew, p.size_bound)
        for name, p in THESIS_PROFILES.items()
    }
    assert rows == {
        "Attr1": (0.5, 0.6, 100, 0.8, 0.5),
        "Attr2": (0.5, 0.5, 20, 0.6, 0.4),
        "Attr3": (0.5, 0.4, 10, 0.5, 0.3),
        "Attr4": (0.5, 0.3, 1, 0.4, 0.2),
    }


def test_zipf_rank_follows_the_harmonic_cdf() -> None:
    import random

    n, s, draws = 10, 0.8, 20000
    rng = random.Random("zipf-test")
    counts = Counter(zipf_rank(rng, n, s) for _ in range(draws))
    assert set(counts) <= set(range(1, n + 1))
    h = sum(1 / k**s for k in range(1, n + 1))
    for k in (1, 2, 5, 10):
        want = draws * (1 / k**s) / h
        assert abs(counts[k] - want) < 5 * math.sqrt(want), (k, counts[k], want)
    assert counts[1] > counts[2] > counts[5] > counts[10]


def test_subscriptions_are_valid_in_domain_and_bounded() -> None:
    sizes = 0
    present = Counter[str]()
    singles = 0
    for i in range(2000):
        sub = zipf_subscription(3, i, SCHEMA, THESIS_PROFILES, "n0", f"s{i}")
        validate_subscription(sub, SCHEMAS, f"sub {i}")
        singles += len(sub.predicates) == 1
        for p in sub.predicates:
            a, prof = SCHEMA.attribute(p.attribute), THESIS_PROFILES[p.attribute]
            present[p.attribute] += 1
            assert p.hi - p.lo <= prof.size_bound * (a.max - a.min) + 0.002
            assert round(p.lo, 3) == p.lo and round(p.hi, 3) == p.hi
            sizes += p.hi > p.lo
    assert sizes > 0
    # present_prob 0.5 (Table 4.3), plus the one forced attribute when none is present
    for name in present:
        assert 0.45 * 2000 < present[name] < 0.62 * 2000, present
    assert singles > 0


def test_events_carry_every_attribute_skewed_to_low_subranges() -> None:
    first_subrange = 0
    for j in range(1000):
        ev = zipf_event(5, j, SCHEMA, THESIS_PROFILES, "n1", f"e{j}")
        validate_event(ev, SCHEMAS, f"event {j}")
        assert [name for name, _ in ev.values] == ["Attr1", "Attr2", "Attr3", "Attr4"]
        v = ev.value("Attr1")
        assert v is not None
        first_subrange += v <= 100.0
    # rank 1 = the lowest sub-range; with 100 sub-ranges and skew 0.6 it gets about 7 %
    assert first_subrange > 30


@given(st.integers(0, 2**40), st.integers(0, 10**6))
def test_any_seed_and_index_give_valid_items(seed: int, index: int) -> None:
    sub = zipf_subscription(seed, index, SCHEMA, THESIS_PROFILES, "n0", "s")
    ev = zipf_event(seed, index, SCHEMA, THESIS_PROFILES, "n0", "e")
    validate_subscription(sub, SCHEMAS, "sub")
    validate_event(ev, SCHEMAS, "event")
    assert all(math.isfinite(v) for _, v in ev.values)


def test_thesis_trace_has_the_three_stages_and_is_partition_independent() -> None:
    trace = thesis_trace(12, 3, 20, seed=9)
    validate_trace(trace)
    assert trace.initial_nodes == 12 and trace.matching == "strict"
    subs = [op for op in trace.ops if isinstance(op, Subscribe)]
    pubs = [op for op in trace.ops if isinstance(op, Publish)]
    assert len(subs) == 36 and len(pubs) == 20
    assert trace.ops == (*subs, *pubs)  # all subscriptions, then all publications
    assert [op.seq for op in trace.ops] == list(range(1, 57))
    assert {op.sub.subscriber for op in subs} <= {f"n{i}" for i in range(12)}
    assert {op.event.publisher for op in pubs} <= {f"n{i}" for i in range(12)}
    for i, op in enumerate(subs):
        alone = zipf_subscription(9, i, SCHEMA, THESIS_PROFILES, op.sub.subscriber, op.sub.id)
        assert alone == op.sub
    for j, pub in enumerate(pubs):
        alone_ev = zipf_event(9, j, SCHEMA, THESIS_PROFILES, pub.event.publisher, pub.event.id)
        assert alone_ev == pub.event
    assert thesis_trace(12, 3, 20, seed=9) == trace
    assert thesis_trace(12, 3, 20, seed=10).ops != trace.ops
    assert thesis_trace(12, 3, 20, seed=9, matching="lenient").matching == "lenient"
    assert SIZE_CLASSES == 100


def test_every_generator_yields_valid_deterministic_traces() -> None:
    from fractions import Fraction

    from pubsub_spec.conformance.generators import CUTOFF_H, GENERATORS
    from pubsub_spec.reference.common.ops import Fail, Join, Leave, Unsubscribe

    seen_ids: set[str] = set()
    # the generators over the two mixed schemas (conformance/generators.py MIXED)
    mixed = ("uniform", "boundaries", "identical", "cutoff", "partial-lenient", "partial-strict")
    MIXED_SCHEMA_GENERATORS = (*mixed, "churn")
    for name, gen in GENERATORS.items():
        for profile in ("tiny", "small", "medium"):
            for index in range(3):
                trace = gen(4, index, profile)
                validate_trace(trace)
                assert trace == gen(4, index, profile)
                assert trace.trace_id not in seen_ids
                seen_ids.add(trace.trace_id)
                kinds = {type(op) for op in trace.ops}
                assert Subscribe in kinds and Publish in kinds
                if name in MIXED_SCHEMA_GENERATORS:
                    # tiny traces schedule one unsubscribe, which may come before any subscribe
                    assert Unsubscribe in kinds or profile == "tiny"
                    types = {a.type for s in trace.schemas for a in s.attributes}
                    assert types == {"int", "float"} and len(trace.schemas) > 1
        medium = gen(4, 0, "medium")
        subs = [op.sub for op in medium.ops if isinstance(op, Subscribe)]
        events = [op.event for op in medium.ops if isinstance(op, Publish)]
        if name == "churn":
            assert {Join, Leave, Fail} <= {type(op) for op in medium.ops}
            fails = [op for op in medium.ops if isinstance(op, Fail)]
            assert all(1 <= len(op.nodes) <= 2 for op in fails)
        if name.startswith("partial"):
            full = {s.name: len(s.attributes) for s in medium.schemas}
            assert any(len(e.values) < full[e.schema] for e in events)
            assert medium.matching == name.removeprefix("partial-")
        if name == "boundaries":
            # every value a dyadic fraction min + k (max - min) / 2^j of the domain (§3.2.1)
            for e in events:
                attrs = {s.name: s.by_name for s in medium.schemas}[e.schema]
                for attr, v in e.values:
                    a = attrs[attr]
                    frac = (Fraction(v) - Fraction(a.min)) / (Fraction(a.max) - Fraction(a.min))
                    assert frac.denominator & (frac.denominator - 1) == 0
        if name == "precision":  # one ulp either side of bounds, 2^24, -0.0
            bounds = {x for s in subs for p in s.predicates for x in (p.lo, p.hi)}
            near = {
                math.nextafter(float(b), d) for b in bounds for d in (-math.inf, math.inf)
            }
            values = [v for e in events for _, v in e.values]
            assert any(v in bounds for v in values) and any(v in near for v in values)
            assert any(isinstance(v, int) and abs(v) > 2**24 for v in values)
        if name in ("shared-names", "mixed"):
            names = [{a.name for a in s.attributes} for s in medium.schemas]
            assert any(x & y for i, x in enumerate(names) for y in names[i + 1 :])
        if name in ("churn-lenient", "mixed"):
            assert {Join, Leave, Fail} <= {type(op) for op in medium.ops}
            assert any(len(op.nodes) >= 2 for op in medium.ops if isinstance(op, Fail))
            assert medium.matching == ("lenient" if name == "churn-lenient" else "strict")
        if name == "identical":
            points = [(s.schema, p) for s in subs for p in s.predicates if p.lo == p.hi]
            assert len(points) > len(set(points))
        if name == "cutoff":
            h = dict(CUTOFF_H)
            on_boundary = sum(
                1
                for e in events
                for s in subs
                for p in s.predicates
                for attr, v in e.values
                if s.schema == e.schema
                and p.attribute == attr
                and p.hi - p.lo > dict(config_of(medium).cutoff)[f"{s.schema}/{attr}"]
                and v in {p.lo + k * h[f"{s.schema}/{attr}"] for k in range(1, 9)}
            )
            assert on_boundary > 0


def test_a_rank_order_moves_the_popular_sub_ranges_and_keeps_their_weights() -> None:
    """`AttributeProfile.rank_order` (the G3 experiment, docs/thesis.md): the same draws, so
    the same number of values per rank, on a permutation of the sub-ranges; the default puts
    rank 1 on the lowest sub-range."""
    from dataclasses import replace

    shuffled = {k: replace(v, rank_order=1) for k, v in THESIS_PROFILES.items()}
    counts = []
    for profiles in (THESIS_PROFILES, shuffled):
        trace = thesis_trace(10, 0, 2000, seed=3, profiles=profiles)
        attr, prof = SCHEMA.attributes[0], THESIS_PROFILES["Attr1"]
        subranges = Counter(
            int((op.event.value(attr.name) - attr.min) // prof.subrange_size)  # type: ignore[operator]
            for op in trace.ops
            if isinstance(op, Publish) and op.event.value(attr.name) is not None
        )
        counts.append(subranges)
        validate_trace(trace)
    lowest, moved = counts
    assert lowest.most_common(1)[0][0] == 0  # rank 1 is the lowest sub-range
    assert moved.most_common(1)[0][0] != 0
    assert sorted(lowest.values()) == sorted(moved.values())  # the same weights, moved
