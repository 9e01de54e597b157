"""Determinism, subscription management, decisions and errata of the core protocol, each pinned
(docs/thesis.md)."""

from __future__ import annotations

from dataclasses import replace

from pubsub_spec.properties.thesis.strategies import race_trace
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Fail, Op, Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig
from pubsub_spec.reference.thesis.run import run_and_compare, run_trace
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

S = Schema("s", (Attribute("a", "float", 0.0, 100.0), Attribute("b", "int", 0, 10)))


def test_same_trace_and_seed_give_the_same_event_log_hash() -> None:
    t = race_trace(3)
    a, b = run_trace(t), run_trace(t)
    assert a.event_log_hash == b.event_log_hash and a.deliveries == b.deliveries
    other = run_trace(replace(t, seed=t.seed + 1))
    assert other.event_log_hash != a.event_log_hash


def test_lenient_event_without_base_attribute_uses_first_segment_only() -> None:
    """Decision D-LENIENT: a remapped subscription has several points; an event lacking the
    base attribute lies in the target area of all of them, and only segment 0 delivers."""
    cfg = ThesisConfig(cutoff=(("s/a", 10.0),), capacity_min=2, capacity_max=3)
    ops = (
        Subscribe(1, Subscription("s1", "n0", "s", (Predicate("a", 0.0, 90.0),))),
        Publish(2, Event("e1", "n1", "s", (("b", 3),))),
    )
    trace = Trace((S,), ops, initial_nodes=8, matching="lenient", sections=((SECTION, cfg),))
    result, c = run_and_compare(trace)
    assert c.agree and len(result.system.subs["s1"].points) >= 9
    assert [(d.event_id, d.sub_id) for d in result.deliveries] == [("e1", "s1")]


def test_strict_event_without_the_attribute_is_not_delivered() -> None:
    ops = (
        Subscribe(1, Subscription("s1", "n0", "s", (Predicate("a", 0.0, 90.0),))),
        Publish(2, Event("e1", "n1", "s", (("b", 3),))),
    )
    result, c = run_and_compare(Trace((S,), ops, initial_nodes=4))
    assert c.agree and result.deliveries == []


def test_identical_points_stop_at_max_depth_and_count_overflow() -> None:
    """Erratum E5: widening [l - r, u + r] moves identical points together, so it cannot end
    their splitting; the depth cap does, and the overflow is counted."""
    cfg = ThesisConfig(capacity_min=1, capacity_max=1, max_depth=6, widening=(("s/a", 2.0),))
    subs = tuple(
        Subscribe(i, Subscription(f"s{i}", "n0", "s", (Predicate("a", 40.0, 60.0),)))
        for i in range(1, 6)
    )
    ops: tuple[Op, ...] = (*subs, Publish(9, Event("e", "n1", "s", (("a", 50.0),))))
    trace = Trace((S,), ops, 4, sections=((SECTION, cfg),))
    result, c = run_and_compare(trace)
    assert c.agree and len(result.deliveries) == 5
    assert result.system.metrics.max_depth == 6 and result.system.metrics.overflow > 0


def test_widening_false_positives_are_filtered_at_the_subscriber() -> None:
    cfg = ThesisConfig(widening=(("s/a", 5.0),))
    ops = (
        Subscribe(1, Subscription("s1", "n0", "s", (Predicate("a", 40.0, 60.0),))),
        Publish(2, Event("e1", "n1", "s", (("a", 62.0),))),
    )
    result, c = run_and_compare(Trace((S,), ops, initial_nodes=4, sections=((SECTION, cfg),)))
    assert c.agree and result.deliveries == [] and result.system.metrics.false_positives == 1


def test_unsubscribe_and_change_of_interest() -> None:
    ops = (
        Subscribe(1, Subscription("s1", "n0", "s", (Predicate("a", 0.0, 50.0),))),
        Publish(2, Event("e1", "n1", "s", (("a", 10.0),))),
        Unsubscribe(3, "s1"),
        Publish(4, Event("e2", "n1", "s", (("a", 10.0),))),
    )
    result, c = run_and_compare(Trace((S,), ops, initial_nodes=4))
    assert c.agree and [d.event_id for d in result.deliveries] == ["e1"]
    sys = TwoDTreeSystem((S,), "strict", ThesisConfig(), 0, ["n0", "n1", "n2"])
    sys.subscribe(Subscription("x", "n0", "s", (Predicate("a", 0.0, 5.0),)), 1)
    sys.run_to_quiescence()
    sys.change_interest(Subscription("x", "n0", "s", (Predicate("a", 50.0, 60.0),)), 2)
    sys.run_to_quiescence()
    sys.publish(Event("e", "n1", "s", (("a", 55.0),)), 3)
    sys.publish(Event("f", "n1", "s", (("a", 3.0),)), 4)
    sys.run_to_quiescence()
    assert [d.event_id for d in sys.deliveries] == ["e"]


def _churn_trace(failed: tuple[str, ...], k: int) -> Trace:
    cfg = ThesisConfig(capacity_min=2, capacity_max=3, replication=k)
    subs = tuple(
        Subscribe(i, Subscription(f"s{i}", "n0", "s", (Predicate("a", float(i), 99.0),)))
        for i in range(1, 40)
    )
    pubs = (Publish(100, Event("e", "n0", "s", (("a", 98.0),))),)
    ops: tuple[Op, ...] = (*subs, Fail(50, failed), *pubs)
    return Trace((S,), ops, initial_nodes=12, sections=((SECTION, cfg),))


def test_failures_within_the_replication_bound_lose_nothing() -> None:
    result, c = run_and_compare(_churn_trace(("n3", "n5"), k=2))
    assert c.agree and result.system.metrics.points_lost == 0


def test_failures_beyond_the_replication_bound_lose_points() -> None:
    """With k = 0 a failed home takes its leaves' points with it: the oracle notices."""
    result, c = run_and_compare(_churn_trace(tuple(f"n{i}" for i in range(1, 9)), k=0))
    assert result.system.metrics.points_lost > 0 and c.missed


def test_stored_points_do_not_depend_on_unrelated_traffic() -> None:
    """Decision D-POINTS: base attribute and h come from the subscription's own generator."""
    cfg = ThesisConfig(cutoff=(("s/a", 10.0),))
    mine = [
        Subscription(f"w{i}", "n0", "s", (Predicate("a", 5.0, 80.0), Predicate("b", 0, 10)))
        for i in range(6)  # base a or b: the choice of §3.3
    ] + [Subscription("h", "n0", "s", (Predicate("a", 2.0, 95.0),))]  # base a: h of §3.5

    def points_after(noise: int) -> list[tuple[str, object, object]]:
        sys = TwoDTreeSystem((S,), "strict", cfg, 7, [f"n{i}" for i in range(8)])
        for i in range(noise):  # unrelated subscriptions and events, each drawing randomness
            sub = Subscription(f"x{i}", "n1", "s", (Predicate("a", 1.0, 90.0),))
            sys.subscribe(sub, i + 1)
            sys.publish(Event(f"e{i}", "n2", "s", (("a", 3.0), ("b", 1))), 100 + i)
        for j, sub in enumerate(mine):
            sys.subscribe(sub, 50 + j)
        sys.run_to_quiescence()
        return [(p.base, p.segment.lo, p.segment.hi) for s in mine for p in sys.subs[s.id].points]

    quiet = points_after(0)
    assert quiet == points_after(3) == points_after(9)
    assert {base for base, _, _ in quiet} == {"a", "b"}
