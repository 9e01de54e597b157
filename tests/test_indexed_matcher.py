"""The bucket matcher (conformance/variants/bucket_matcher.py, the engine of `oracle-indexed`)
delivers exactly what the brute-force oracle delivers: on every conformance generator, on
hypothesis workloads, at bucket edges and domain ends, with partial events in both matching modes,
after removals, with a tail not yet indexed, and on the benchmark's workload of REIN's shape."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import bench_matcher as bm
from pubsub_spec.conformance.fingerprint import fingerprint
from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.variants import bucket_matcher, indexed_kernels
from pubsub_spec.conformance.variants import indexed_matcher as im
from pubsub_spec.conformance.variants.bucket_matcher import BucketMatcher
from pubsub_spec.conformance.variants.indexed_matcher import (
    BitsetMatcher,
    IndexedMatcher,
    indexed_expected,
    indexed_fingerprint,
)
from pubsub_spec.properties.thesis.strategies import workloads
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import expected_deliveries


def _engine(buckets: int) -> object:
    def make(s: Schema, mode: MatchMode, min_index: int) -> BucketMatcher:
        return BucketMatcher(s, mode, min_index, buckets=buckets)

    return make


def test_oracle_indexed_runs_on_the_bucket_matcher() -> None:
    assert IndexedMatcher is BucketMatcher


@pytest.mark.parametrize("buckets", [1, 2, 32])
@pytest.mark.parametrize("min_index", [0, 7, 256])
def test_equal_to_the_oracle_on_every_generator(buckets: int, min_index: int) -> None:
    """Every generator: int and float attributes, strict and lenient, partial events,
    equality predicates, domain ends and zone boundaries, churn and unsubscription."""
    for name, gen in GENERATORS.items():
        for profile, i in (("tiny", 0), ("small", 1), ("medium", 2)):
            t = gen(5, i, profile)
            got = indexed_expected(t, min_index, _engine(buckets))  # type: ignore[arg-type]
            assert got == expected_deliveries(t), (name, profile, i)


@settings(max_examples=150, deadline=None)
@given(workloads(), st.sampled_from([1, 3, 32]), st.sampled_from([0, 2, 256]))
def test_equal_to_the_oracle_on_generated_workloads(
    trace: Trace, buckets: int, min_index: int
) -> None:
    got = indexed_expected(trace, min_index, _engine(buckets))  # type: ignore[arg-type]
    assert got == expected_deliveries(trace)


SCHEMA = Schema("s", (Attribute("a", "float", 0.0, 256.0), Attribute("b", "int", -5, 5)))
EDGE_SUBS = [
    Subscription(f"s{i}", "n0", "s", preds)
    for i, preds in enumerate([
        (Predicate("a", 0.0, 1.0),),
        (Predicate("a", 1.0, 2.0),),
        (Predicate("a", 255.0, 256.0),),
        (Predicate("a", 0.0, 256.0),),
        (Predicate("a", 3.0, 3.0),),  # equality
        (Predicate("a", 2.5, 3.0), Predicate("b", -5, -5)),
        (Predicate("a", 256.0, 256.0),),  # the domain's max
        (Predicate("b", 5, 5),),
        (Predicate("b", -5, 5),),
        (Predicate("a", 8.0, 8.0), Predicate("b", 0, 0)),  # on a bucket edge of 32 buckets
    ])
]  # fmt: skip
A_VALUES = (0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 7.999999999999999, 8.0, 8.000000000000002, 255.0, 256.0)


@pytest.mark.parametrize("mode", ["strict", "lenient"])
@pytest.mark.parametrize("buckets", [1, 2, 32, 256])
def test_bucket_edges_domain_ends_and_partial_events(mode: MatchMode, buckets: int) -> None:
    m = BucketMatcher(SCHEMA, mode, min_index=0, buckets=buckets)
    for s in EDGE_SUBS:
        m.add(s)
    m.build()
    events = [Event("e", "p", "s", (("a", a), ("b", b))) for a in A_VALUES for b in (-5, 0, 5)]
    events += [Event("e", "p", "s", (("a", a),)) for a in A_VALUES]  # partial: no b
    events += [Event("e", "p", "s", (("b", b),)) for b in (-5, 0, 5)]  # partial: no a
    for e in events:
        want = [s.id for s in EDGE_SUBS if matches(s, e, mode)]
        assert m.match(e) == want, (e.values, mode)
        assert m.match_mask(e).tolist() == [s.id in want for s in EDGE_SUBS]


def test_removal_tail_and_rebuild() -> None:
    """Removed subscriptions stop matching, before and after a rebuild; subscriptions added
    after a build (the tail) match at once and after the next build."""
    m = BucketMatcher(SCHEMA, "strict", min_index=0, buckets=4)
    for s in EDGE_SUBS[:5]:
        m.add(s)
    m.build()
    live = list(EDGE_SUBS[:5])
    for s in EDGE_SUBS[5:]:  # the tail
        m.add(s)
        live.append(s)
    m.remove("s3")
    live = [s for s in live if s.id != "s3"]
    e = Event("e", "p", "s", (("a", 0.5), ("b", 0)))
    assert m.match(e) == [s.id for s in live if matches(s, e)] == ["s0", "s8"]
    m.build()  # drops s3's predicates
    for a in A_VALUES:
        e = Event("e", "p", "s", (("a", a), ("b", -5)))
        assert m.match(e) == [s.id for s in live if matches(s, e)]
    m.remove_subscriber({"n0"})
    assert m.match(e) == [] and m.n == len(EDGE_SUBS)


def test_a_duplicate_attribute_is_two_predicates() -> None:
    """The oracle checks every predicate; so does the matcher (add does not validate)."""
    s = Subscription("d", "n", "s", (Predicate("a", 0.0, 10.0), Predicate("a", 5.0, 20.0)))
    m = BucketMatcher(SCHEMA, "strict", min_index=0)
    m.add(s)
    m.build()
    for a in (2.0, 7.0, 15.0):
        e = Event("e", "p", "s", (("a", a), ("b", 0)))
        assert m.match(e) == (["d"] if matches(s, e) else [])


def test_bounds_beyond_2_53_are_refused() -> None:
    big = Schema("s", (Attribute("a", "int", 0, 2**60),))
    m = BucketMatcher(big, "strict")
    with pytest.raises(ValueError, match="2\\^53"):
        m.add(Subscription("x", "n", "s", (Predicate("a", 0, 2**54),)))
    with pytest.raises(ValueError, match="2\\^53"):
        m.add_columns(["x"], [0], [0], [0.0], [float(2**54)])


def test_add_columns_refuses_bad_columns() -> None:
    m = BucketMatcher(SCHEMA, "strict")
    with pytest.raises(ValueError, match="lengths"):
        m.add_columns(["x"], [0, 0], [0], [0.0], [1.0])
    with pytest.raises(ValueError, match="no subscription"):
        m.add_columns(["x"], [1], [0], [0.0], [1.0])
    with pytest.raises(ValueError, match="attribute"):
        m.add_columns(["x"], [0], [2], [0.0], [1.0])


def test_the_benchmark_workload_bulk_and_one_by_one() -> None:
    """REIN's shape at 3000 subscriptions: the bulk load, subscriptions added one by one (tail
    and rebuilds), the replaced bitset matcher, numpy brute force and the reference oracle agree
    on every event."""
    w = bm.workload(3000, seed=5, events=40)
    truth = bm.brute_force(w)
    bulk = BucketMatcher(bm.SCHEMA, "strict")
    bulk.add_columns(w.ids[:1000], w.sub[:10_000], w.attr[:10_000], w.lo[:10_000], w.hi[:10_000])
    bulk.add_columns(w.ids[1000:], w.sub[10_000:] - 1000, w.attr[10_000:], w.lo[10_000:],
                     w.hi[10_000:])  # fmt: skip
    subs = bm.subscriptions(w)
    one, old = BucketMatcher(bm.SCHEMA, "strict"), BitsetMatcher(bm.SCHEMA, "strict")
    for s in subs:
        one.add(s)
        old.add(s)
    assert sum(t.size for t in truth) > 0
    for e, t in zip(w.events, truth, strict=True):
        want = [w.ids[i] for i in t.tolist()]
        assert bulk.match(e) == one.match(e) == old.match(e) == want
    for e, t in zip(w.events[:5], truth, strict=False):
        assert [s.id for s in subs if matches(s, e)] == [w.ids[i] for i in t.tolist()]


def test_memory_within_twice_a_flat_array() -> None:
    """The arrays a bulk-loaded matcher keeps, against a flat array of the predicates (24 bytes
    each); the benchmark measures the peak of the build the same way at full size."""
    w = bm.workload(20_000, seed=1, events=1)
    m = BucketMatcher(bm.SCHEMA, "strict")
    m.add_columns(w.ids, w.sub, w.attr, w.lo, w.hi)
    flat = w.sub.size * bm.FLAT_BYTES
    assert m.nbytes() <= 2 * flat
    peak, _ = bm.traced_peak(lambda: _bulk(w))
    assert peak <= 2 * flat


def _bulk(w: bm.Workload) -> BucketMatcher:
    m = BucketMatcher(bm.SCHEMA, "strict")
    m.add_columns(w.ids, w.sub, w.attr, w.lo, w.hi)
    return m


def test_match_rows_are_ascending_numbers() -> None:
    w = bm.workload(500, seed=2, events=10)
    m = _bulk(w)
    for e in w.events:
        rows = m.match_rows(e)
        assert rows.dtype == np.int64 and np.all(np.diff(rows) > 0)


# -- the fingerprint path: the ops applied as columns, events matched in one compiled loop -----
def _traces() -> list[tuple[str, str, int, Trace]]:
    return [
        (name, profile, seed, gen(seed, i, profile))
        for name, gen in GENERATORS.items()
        for i, profile in enumerate(("tiny", "small", "medium"))
        for seed in (3, 5, 11)
    ]


def test_fingerprint_path_equal_to_the_oracle_on_every_generator() -> None:
    for name, profile, seed, t in _traces():
        want = fingerprint(expected_deliveries(t))
        for min_index in (0, 256):
            assert indexed_fingerprint(t, min_index) == want, (name, profile, seed, min_index)


@settings(max_examples=100, deadline=None)
@given(workloads())
def test_fingerprint_path_equal_to_the_oracle_on_generated_workloads(trace: Trace) -> None:
    assert indexed_fingerprint(trace) == fingerprint(expected_deliveries(trace))


def test_fingerprint_path_many_kernel_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """Room for one delivery a call: resumed event by event, the buffer grown when needed."""
    monkeypatch.setattr(bucket_matcher, "OUT", 1)
    for name, profile, _, t in _traces()[::7]:
        assert indexed_fingerprint(t) == fingerprint(expected_deliveries(t)), (name, profile)


@pytest.mark.parametrize("mutant", ["no end", "no start"])
def test_fingerprint_path_mutants_are_caught(monkeypatch: pytest.MonkeyPatch, mutant: str) -> None:
    """A kernel that ignores the subscriptions' ends (D-CHURN) or that counts subscriptions made
    after the publish is told apart from the oracle on the generators' traces."""
    real = indexed_kernels.matches

    def mutated(*args: object) -> int:
        a: list[Any] = list(args)
        if mutant == "no end":
            a[10] = np.full_like(a[10], bucket_matcher.NEVER)
        else:
            a[2] = np.full_like(a[2], a[7])
        result: int = real(*a)
        return result

    monkeypatch.setattr(im, "matches", mutated)
    differ = [
        (name, profile)
        for name, profile, _, t in _traces()
        if indexed_fingerprint(t) != fingerprint(expected_deliveries(t))
    ]
    assert differ
