"""Tests that kill mutants of reference/ found by scripts/mutation.py (docs/mutation.md).

Each test pins observable behaviour from docs/design.md or the thesis, not an accident of the code:
matching (docs/design.md#event, thesis §3.4.1), the oracle (docs/design.md#delivery, #active), the
cut-off segments (thesis §3.5, decision D-SEG) and the 2d-tree's split (thesis Program 3.1).
"""

from __future__ import annotations

import random

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.matching import event_values, matches, matches_values
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import (
    Fail,
    Join,
    Leave,
    Publish,
    Subscribe,
    Trace,
    Unsubscribe,
)
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.thesis.config import ThesisConfig
from pubsub_spec.reference.thesis.cutoff import Segment, choose_h, segments
from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable
from pubsub_spec.reference.thesis.points import stored_points
from pubsub_spec.reference.thesis.space import Square
from pubsub_spec.reference.thesis.tree import StoredPoint, TreeNode, identifier

SCHEMA = Schema("s", (Attribute("a", "int", 0, 100), Attribute("b", "int", 0, 100)))


def sub(
    sid: str, subscriber: str = "n1", schema: str = "s", **preds: tuple[int, int]
) -> Subscription:
    return Subscription(
        sid, subscriber, schema, tuple(Predicate(k, lo, hi) for k, (lo, hi) in preds.items())
    )


def event(eid: str, schema: str = "s", **values: int) -> Event:
    return Event(eid, "n0", schema, tuple(values.items()))


# -- matching: closed intervals, conjunction, strict / lenient (docs/design.md#event) -----------


def test_closed_interval_bounds_match() -> None:
    s = sub("x", a=(10, 20))
    assert matches(s, event("e", a=10)) and matches(s, event("e", a=20))
    assert not matches(s, event("e", a=9)) and not matches(s, event("e", a=21))
    assert matches(sub("eq", a=(7, 7)), event("e", a=7))  # equality is [v, v]


def test_conjunction_needs_every_predicate() -> None:
    s = sub("x", a=(10, 20), b=(0, 5))
    assert matches(s, event("e", a=15, b=5))
    assert not matches(s, event("e", a=15, b=6))
    assert not matches(s, event("e", a=25, b=1))


def test_other_schema_never_matches() -> None:
    assert not matches(sub("x", schema="t", a=(0, 100)), event("e", a=50))
    assert not matches(sub("x", schema="t", a=(0, 100)), event("e", a=50), "lenient")


def test_partial_event_strict_fails_lenient_ignores() -> None:
    s = sub("x", a=(10, 20), b=(0, 5))
    partial = event("e", a=15)
    assert not matches(s, partial)  # strict is the default
    assert not matches(s, partial, "strict")
    assert matches(s, partial, "lenient")
    assert not matches(s, event("e", a=30), "lenient")  # present values still count
    # lenient skips the missing predicate and checks the ones after it
    assert not matches(sub("y", b=(0, 5), a=(10, 20)), event("e", a=30), "lenient")


def test_event_values_keeps_the_first_value_of_a_name() -> None:
    """`event_values` is the event as a map, the first value of a name winning, as `Event.value`
    reads it (docs/design.md#event: a value per attribute)."""
    e = Event("e", "n0", "s", (("a", 1), ("b", 2), ("a", 3)))
    assert event_values(e) == {"a": 1, "b": 2} == {"a": e.value("a"), "b": e.value("b")}
    assert event_values(Event("e", "n0", "s", ())) == {}


@pytest.mark.parametrize("mode", ["strict", "lenient"])
def test_matches_values_is_matches(mode: MatchMode) -> None:
    """`matches_values` (leaf matching over a prepared event) is the rule of `matches` (thesis
    §3.4.1): other schema, closed bounds, conjunction, missing attribute strict / lenient, and a
    missing predicate skipped (not ending the scan) in lenient mode."""
    subs = [
        sub("in", a=(10, 20), b=(0, 5)),
        sub("edge", a=(15, 15)),
        sub("other", schema="t", a=(0, 100)),
        sub("miss-first", c=(0, 9), a=(10, 20)),
        sub("miss-then-out", c=(0, 9), a=(30, 40)),
        sub("none"),
    ]
    events = [event("e", a=15, b=5), event("e", a=15), event("e", a=21, b=0), event("e", b=3)]
    seen = set()
    for s in subs:
        for e in events:
            want = matches(s, e, mode)
            got = matches_values(s, e.schema, event_values(e), mode == "strict")
            assert got == want, (s.id, e.values, mode)
            seen.add(want)
    assert seen == {True, False}


# -- the oracle (docs/design.md#delivery, #active; decision D-CHURN) -----------------------------


def trace(*ops: object, matching: str = "strict") -> Trace:
    return Trace((SCHEMA,), tuple(ops), matching=matching)  # type: ignore[arg-type]


def test_oracle_active_window_and_sorted_output() -> None:
    t = trace(
        Publish(0, event("e0", a=5)),  # before any subscribe: nothing
        Subscribe(1, sub("s2", a=(0, 10))),
        Subscribe(2, sub("s1", a=(0, 10))),
        Subscribe(3, sub("s3", a=(50, 60))),
        Publish(4, event("e1", a=5)),
        Unsubscribe(5, "s2"),
        Publish(6, event("e2", a=5)),
        Unsubscribe(7, "nobody"),  # unknown id: no effect
    )
    assert expected_deliveries(t) == [
        Delivery("e1", "s1"),
        Delivery("e1", "s2"),
        Delivery("e2", "s1"),
    ]


def test_oracle_leave_and_fail_end_subscriptions_of_that_node_only() -> None:
    t = trace(
        Join(0, "n9"),
        Subscribe(1, sub("a", subscriber="n1", a=(0, 10))),
        Subscribe(2, sub("b", subscriber="n2", a=(0, 10))),
        Subscribe(3, sub("c", subscriber="n3", a=(0, 10))),
        Leave(4, "n1"),
        Publish(5, event("e1", a=1)),
        Fail(6, ("n2", "n7")),
        Publish(7, event("e2", a=1)),
    )
    assert expected_deliveries(t) == [
        Delivery("e1", "b"),
        Delivery("e1", "c"),
        Delivery("e2", "c"),
    ]


def test_delivery_is_a_value() -> None:
    """A delivery is the pair (event id, subscription id) (docs/design.md#delivery): equal pairs are
    one delivery, usable as set members and dict keys (comparisons count duplicates by value)."""
    a, b = Delivery("e1", "s1"), Delivery("e1", "s1")
    assert a == b and len({a, b}) == 1 and {a: 1}[b] == 1
    assert sorted([Delivery("e2", "s1"), Delivery("e1", "s2")])[0] == Delivery("e1", "s2")


def test_oracle_uses_the_trace_matching_mode() -> None:
    ops = (Subscribe(0, sub("x", a=(0, 10), b=(0, 10))), Publish(1, event("e", a=1)))
    assert expected_deliveries(trace(*ops)) == []
    assert expected_deliveries(trace(*ops, matching="lenient")) == [Delivery("e", "x")]


# -- cut-off segments (thesis §3.5, erratum E3, decision D-SEG) --------------------------------


def test_segment_closure() -> None:
    half_open, closed = Segment(0, 10, 20, False), Segment(1, 10, 20, True)
    assert half_open.contains(10) and half_open.contains(19) and not half_open.contains(20)
    assert closed.contains(10) and closed.contains(20)
    assert not closed.contains(9) and not closed.contains(21) and not half_open.contains(9)


def test_short_range_is_one_closed_point() -> None:
    assert segments(10, 20, None, 0) == [Segment(0, 10, 20, True)]
    assert segments(10, 20, 10, 3) == [Segment(0, 10, 20, True)]  # u - l = c: not remapped


def test_long_range_is_remapped_into_half_open_segments() -> None:
    # u - l = 11 > c = 10, h = 4: [10, 14) [14, 18) [18, 21] (thesis §3.5, D-SEG)
    assert segments(10, 21, 10, 4) == [
        Segment(0, 10, 14, False),
        Segment(1, 14, 18, False),
        Segment(2, 18, 21, True),
    ]
    # a boundary that falls on u is not repeated: [0, 4) [4, 8]
    assert segments(0, 8, 5, 4) == [Segment(0, 0, 4, False), Segment(1, 4, 8, True)]


@pytest.mark.parametrize(("lo", "hi", "c", "h"), [(0, 30, 7, 3), (5, 17, 6, 5), (0.5, 9.5, 2, 1.5)])
def test_every_value_of_the_range_is_in_exactly_one_segment(
    lo: float, hi: float, c: float, h: float
) -> None:
    segs = segments(lo, hi, c, h)
    assert segs[0].lo == lo and segs[-1].hi == hi
    assert all(s.hi - s.lo <= c for s in segs)  # every point on or below y = x + c
    for k in range(int((hi - lo) * 4) + 1):  # every quarter of [lo, hi], exact in binary
        assert sum(s.contains(lo + k / 4) for s in segs) == 1
    assert not any(s.contains(lo - 0.25) or s.contains(hi + 0.25) for s in segs)


def test_choose_h_float_is_a_random_choice_in_its_interval() -> None:
    """§3.5: "h is randomly, locally selected", h < c; ThesisConfig draws it in [h_lo c, c).
    Draws over the reals do not repeat and spread over the interval (no constant fallback)."""
    rng = random.Random("mutation:choose_h:float")
    draws = [choose_h(10.0, "float", rng, 0.5) for _ in range(200)]
    assert all(5.0 <= h < 10.0 for h in draws)
    assert len(set(draws)) == len(draws)
    assert min(draws) < 6.0 and max(draws) > 9.0


class _TopRandom(random.Random):
    """A generator whose random() is the largest float below 1 (random() may return it)."""

    def random(self) -> float:
        return 1.0 - 2.0**-53


def test_choose_h_stays_below_c_when_the_draw_rounds_up_to_c() -> None:
    """h < c (§3.5) even when h_lo + (1 - h_lo) r rounds to 1.0 in floating point."""
    h = choose_h(10.0, "float", _TopRandom(), 0.5)
    assert 5.0 <= h < 10.0


def test_too_small_h_is_rejected() -> None:
    """Exact remapping (docs/design.md#core): bounds must strictly increase, else no partition."""
    with pytest.raises(ValueError, match="too small"):
        segments(1e17, 1e17 + 1e3, 1.0, 0.5)  # lo + h == lo in floating point
    # near 2^53 the spacing doubles: lo + 2h == lo + 3h > lo, an empty segment [a, a)
    with pytest.raises(ValueError, match="too small"):
        segments(2.0**53 - 2, 2.0**53 + 100, 1.0, 0.75)


def test_segments_are_values() -> None:
    """A segment is part of a stored point's identity (SubObject, §3.3.1): hashable, equal by
    value."""
    assert len({Segment(0, 1, 2, False), Segment(0, 1, 2, False)}) == 1


def test_choose_h_is_below_c() -> None:
    rng = random.Random("mutation:choose_h")
    for _ in range(200):
        hi = choose_h(10, "int", rng, 0.5)
        assert isinstance(hi, int) and 5 <= hi <= 9
        hf = choose_h(10.0, "float", rng, 0.5)
        assert 5.0 <= hf < 10.0
    # 0 < h < c (§3.5) also when h_lo c rounds down to 0: h = 0 would never advance a segment
    assert {choose_h(3, "int", rng, 0.0) for _ in range(100)} == {1, 2}
    # an int attribute needs an integer h with 0 < h < c: c = 1 leaves none (§3.5)
    with pytest.raises(ValueError, match="cut-off c=1 too small"):
        choose_h(1, "int", rng, 0.5)


# -- the 2d-tree's nodes (thesis §3.2.1-3.2.2, Program 3.1; docs/design.md#core) --------------


def point(sid: str, index: int, path: str) -> StoredPoint:
    return StoredPoint(sub(sid, a=(0, 10)), "a", Segment(index, 0, 10, True), path, 0)


def test_stored_point_is_keyed_by_subscription_and_segment() -> None:
    """A subscription stores one point per segment (§3.5): the key is (sub id, segment index);
    a stored point is a value (SubObject, §3.3.1): equal points are one."""
    p = point("x", 2, "0110")
    assert p.key == ("x", 2)
    assert len({p, point("x", 2, "0110")}) == 1


def test_tree_node_identity_depth_and_leafness() -> None:
    node = TreeNode("s/a", "0110")
    assert node.ident == identifier("s/a", "0110") == "s/a:0110"
    assert node.depth == 4 and TreeNode("s/a", "").depth == 0  # the root zone has depth 0
    assert node.is_leaf  # a leaf keeps no LeafNodeRoutingTable (§3.2.2)
    node.lnrt = LeafNodeRoutingTable.after_split("0110")
    assert not node.is_leaf


def test_split_hands_each_point_to_the_child_on_its_path() -> None:
    """Program 3.1 lines 42-44: at depth d a point goes to child path[d]."""
    node = TreeNode("s/a", "01")
    for p in (point("a", 0, "0100"), point("b", 0, "0111"), point("c", 1, "0110")):
        node.points[p.key] = p
    low, high = node.split_points()
    assert set(low) == {("a", 0)} and set(high) == {("b", 0), ("c", 1)}


# -- stored points: range widening (thesis §3.3) and cut-off remapping (§3.5) ------------------


def points_of(
    attr: Attribute, lo: float, hi: float, config: ThesisConfig
) -> list[tuple[float, float, bool]]:
    """The (segment lo, segment hi, closed) of the one-predicate subscription lo <= A <= hi."""
    q = f"w/{attr.name}"
    s = Subscription("x", "n1", "w", (Predicate(attr.name, lo, hi),))
    pts = stored_points(s, 0, 7, config, {q: attr}, {q: Square.of(attr, config.max_depth)})
    return [(p.segment.lo, p.segment.hi, p.segment.closed) for p in pts]


def test_widening_is_l_minus_r_to_u_plus_r_inside_the_domain() -> None:
    """§3.3: the stored range is [v1 - r, v2 + r], clipped to [min, max] (D-WIDEN)."""
    fl = Attribute("f", "float", 0.0, 100.0)
    cfg = ThesisConfig(widening=(("w/f", 2.5),))
    assert points_of(fl, 10.0, 20.0, cfg) == [(7.5, 22.5, True)]
    assert points_of(fl, 1.0, 99.0, cfg) == [(0.0, 100.0, True)]  # clipped to the domain


def test_widening_on_an_int_attribute_rounds_outwards() -> None:
    """An int attribute's point has integer coordinates; rounding outwards keeps the widened
    range a superset of [v1 - r, v2 + r], so widening only adds false positives (§3.3)."""
    it = Attribute("i", "int", 0, 100)
    assert points_of(it, 10, 20, ThesisConfig(widening=(("w/i", 0.5),))) == [(9, 21, True)]


def test_remapping_applies_to_ranges_left_of_zero() -> None:
    """§3.5 remaps every range with u - l > c, wherever it lies in the domain."""
    neg = Attribute("n", "int", -100, 100)
    cfg = ThesisConfig(cutoff=(("w/n", 10),), cutoff_h=(("w/n", 4),))
    assert points_of(neg, -10, 5, cfg) == [
        (-10, -6, False),
        (-6, -2, False),
        (-2, 2, False),
        (2, 5, True),
    ]


# -- names in schemas (docs/design.md#schema; the thesis qualifies an attribute as schema/attr) ----


@pytest.mark.parametrize("bad", ["", "x/y"])
def test_attribute_and_schema_names_are_non_empty_without_a_slash(bad: str) -> None:
    """A tree node's attribute is qualified as `schema/attribute` (each attribute has its own
    2d-tree, thesis §3.1): a name that is empty, or that holds the '/' separator, would make two
    attributes' trees collide. Each condition is rejected on its own."""
    with pytest.raises(InputError, match="bad attribute name"):
        Attribute(bad, "int", 0, 1).validate("here")
    with pytest.raises(InputError, match="bad schema name"):
        Schema(bad, (Attribute("a", "int", 0, 1),)).validate("here")
    Attribute("a", "int", 0, 1).validate("here")
    Schema("s", (Attribute("a", "int", 0, 1),)).validate("here")
