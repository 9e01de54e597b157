"""LBDD path update (§3.4, Algorithm 3) with diverging views: what can and cannot happen while
heartbeat failure detection and join broadcasts are in progress (docs/lbdd.md, "Diverging
views"), the heartbeat model (D-L7), and Algorithm 3 as printed (erratum LBDD-E4).

Stated precisely, for one payload from the source with each live node forwarding on its first
receipt to the targets of its own view:

- V1 (always): every copy goes from a lower to a strictly higher bucket, so there is no cycle,
  no node sends to the source, and no node receives more copies than there are nodes in lower
  buckets.
- V2 (agreeing but stale: every view lists a failed node F): nobody receives twice; the live
  nodes missed are exactly F's descendants in the common tree.
- V3 (a joiner J known to nobody else): J is missed, every other live node receives once.
- V4 (diverging views): a live subscriber MAY be missed and MAY receive twice (witnesses).
- V5 (once views agree on the live set): every live subscriber receives exactly once and
  exactly n copies are sent for n live subscribers.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.reference.lbdd.algorithms import (
    Churn,
    bucket_construction,
    bucket_no,
    build_tree,
    disseminate,
    heartbeat_views,
    path_update,
    path_update_as_printed,
    select_targets,
)

SOURCE = "10.0.0.1"
SMALL = [SOURCE] + [f"10.0.1.{i}" for i in range(1, 7)]  # tree pinned in test_lbdd.py

addresses = st.lists(
    st.tuples(*[st.integers(1, 254)] * 4).map(lambda t: ".".join(map(str, t))),
    min_size=3,
    max_size=40,
    unique=True,
).filter(lambda a: SOURCE not in a)


def descendants(tree: dict[str, list[str]], node: str) -> set[str]:
    out: set[str] = set()
    stack = list(tree.get(node, []))
    while stack:
        n = stack.pop()
        out.add(n)
        stack.extend(tree.get(n, []))
    return out


def check_one_way(source: str, edges: tuple[tuple[str, str], ...]) -> None:
    """V1."""
    for a, b in edges:
        assert bucket_no(source, b) > bucket_no(source, a), (a, b)
    received = Counter(b for _, b in edges)
    assert source not in received
    for node, copies in received.items():
        lower = {a for a, _ in edges if bucket_no(source, a) < bucket_no(source, node)}
        assert copies <= len(lower)


@settings(max_examples=60)
@given(addresses, st.data())
def test_agreeing_stale_views_miss_exactly_the_failed_subtree(
    members: list[str], data: st.DataObject
) -> None:
    """V1, V2: no live node has detected the failure of F yet."""
    failed = data.draw(st.sampled_from(members))
    everyone = [SOURCE, *members]
    live = [m for m in members if m != failed]
    d = disseminate(SOURCE, live, {n: everyone for n in everyone})
    check_one_way(SOURCE, d.edges)
    assert all(c == 1 for c in d.received.values())  # nobody twice
    tree = build_tree(SOURCE, members)
    missed = {m for m in live if m not in d.received}
    assert missed == descendants(tree, failed)


@settings(max_examples=60)
@given(addresses, st.data())
def test_a_joiner_unknown_to_the_others_is_missed_and_nothing_else_changes(
    members: list[str], data: st.DataObject
) -> None:
    """V1, V3: the joiner knows everybody, nobody knows it yet."""
    joiner = data.draw(st.sampled_from(members))
    old = [SOURCE, *(m for m in members if m != joiner)]
    views = {n: list(old) for n in old} | {joiner: [SOURCE, *members]}
    d = disseminate(SOURCE, members, views)
    check_one_way(SOURCE, d.edges)
    assert joiner not in d.received
    assert all(d.received.get(m) == 1 for m in old if m != SOURCE)


@settings(max_examples=60)
@given(addresses, st.data())
def test_arbitrary_diverging_views_keep_copies_one_way(
    members: list[str], data: st.DataObject
) -> None:
    """V1 with any mix of updated and stale views, for a failure and a join at once."""
    everyone = [SOURCE, *members]
    failed = data.draw(st.sampled_from(members))
    joiner = data.draw(st.sampled_from([m for m in members if m != failed]))
    before = set(everyone) - {joiner}
    after = path_update(path_update(before, failed=failed), joined=joiner)
    aware = data.draw(st.sets(st.sampled_from(everyone)))
    views = {n: (after if n in aware or n == joiner else before) for n in everyone}
    live = [m for m in members if m != failed]
    check_one_way(SOURCE, disseminate(SOURCE, live, views).edges)
    healed = disseminate(SOURCE, live, {n: after for n in everyone})  # V5
    assert all(healed.received.get(m) == 1 for m in live)
    assert len([e for e in healed.edges if e[1] in live]) == len(live)


def test_diverging_views_can_deliver_twice() -> None:
    """V4: 10.0.1.4 (bucket 32) fails; 10.0.1.6 still lists it and takes ranks [0, 2) of
    (.3 .1 .4 .5) = {.3, .1}; 10.0.1.2 has updated and takes ranks [1, 3) of (.3 .1 .5)."""
    failed, stale = "10.0.1.4", "10.0.1.6"
    updated = path_update(set(SMALL), failed=failed)
    views = {n: (set(SMALL) if n == stale else updated) for n in SMALL}
    d = disseminate(SOURCE, [m for m in SMALL[1:] if m != failed], views)
    assert d.received["10.0.1.1"] == 2
    check_one_way(SOURCE, d.edges)


def test_diverging_views_can_miss_a_live_subscriber() -> None:
    """V4: 10.0.1.2 (bucket 31) fails; every node has updated except 10.0.1.6, the other node
    of bucket 31: it keeps rank 0 of 2 and serves only its half {.3, .1} of bucket 32, so the
    failed node's half {.4, .5} is missed."""
    failed = "10.0.1.2"
    updated = path_update(set(SMALL), failed=failed)
    views = {n: (set(SMALL) if n == "10.0.1.6" else updated) for n in SMALL}
    d = disseminate(SOURCE, [m for m in SMALL[1:] if m != failed], views)
    assert "10.0.1.4" not in d.received and "10.0.1.5" not in d.received
    assert all(c == 1 for c in d.received.values())


def test_algorithm_3_as_printed_misses_the_failed_nodes_slice() -> None:
    """LBDD-E4: every node has run Algorithm 3 as printed for the failure of 10.0.1.2; 10.0.1.6
    is in the same bucket, so it keeps rank 0 of 2 and its half of bucket 32; .4 and .5 (the
    failed node's half) are served by nobody. Recomputing from the updated view (D-L6) does."""
    failed = "10.0.1.2"
    live = [m for m in SMALL[1:] if m != failed]

    def as_printed(me: str, source: str, _view: object) -> tuple[str, ...]:
        local = bucket_construction(me, source, SMALL)
        return select_targets(path_update_as_printed(local, source, failed))

    literal = disseminate(SOURCE, live, {n: SMALL for n in SMALL}, as_printed)
    assert {m for m in live if m not in literal.received} == {"10.0.1.4", "10.0.1.5"}
    fixed = disseminate(SOURCE, live, {n: path_update(set(SMALL), failed=failed) for n in SMALL})
    assert all(fixed.received.get(m) == 1 for m in live)


@settings(max_examples=40)
@given(addresses, st.integers(0, 2**32), st.data())
def test_heartbeat_views_converge_and_then_deliver_exactly_once(
    members: list[str], seed: int, data: st.DataObject
) -> None:
    """D-L7: at any time copies are one-way (V1); after `settled_after()` every live node's
    view is the live set and every live subscriber receives exactly once (V5)."""
    failed = data.draw(st.sets(st.sampled_from(members), max_size=3))
    joiners = data.draw(st.sets(st.sampled_from(members), max_size=3)) - failed
    churn = Churn(
        fail_at={f: data.draw(st.floats(0.0, 10.0)) for f in sorted(failed)},
        join_at={j: data.draw(st.floats(0.0, 10.0)) for j in sorted(joiners)},
    )
    hb = heartbeat_views(SOURCE, members, churn, random.Random(seed))
    now = data.draw(st.floats(0.0, 20.0))
    alive = hb.alive(now)
    check_one_way(SOURCE, disseminate(SOURCE, alive, hb.views(now)).edges)
    end = hb.settled_after()
    final = hb.views(end)
    assert all(v == hb.alive(end) - {n} for n, v in final.items())
    d = disseminate(SOURCE, hb.alive(end), final)
    assert all(d.received.get(m) == 1 for m in hb.alive(end) - {SOURCE})
    assert len(d.edges) == len(hb.alive(end)) - 1


def test_heartbeat_detection_takes_between_timeout_minus_period_and_timeout_plus_delay() -> None:
    churn = Churn(fail_at={"10.0.1.3": 5.0}, join_at={"10.0.1.4": 2.0})
    hb = heartbeat_views(SOURCE, SMALL[1:], churn, random.Random(7))
    dropped = [t for (_, p), t in hb.detected.items() if p == "10.0.1.3"]
    assert len(dropped) == len(SMALL) - 1
    assert all(5.0 + 3.0 - 1.0 < t <= 5.0 + 3.0 + 0.5 for t in dropped)
    assert "10.0.1.3" in hb.view(SOURCE, 5.5) and "10.0.1.3" not in hb.view(SOURCE, 8.6)
    assert "10.0.1.4" not in hb.view(SOURCE, 1.9) and "10.0.1.4" in hb.view(SOURCE, 2.6)
    assert hb.view("10.0.1.4", 2.0) == set(SMALL) - {"10.0.1.4"}  # a joiner knows everybody
    assert "10.0.1.3" not in hb.alive(5.0) and "10.0.1.4" not in hb.alive(1.0)
    again = heartbeat_views(SOURCE, SMALL[1:], churn, random.Random(7))
    assert again == hb  # every draw from the seeded generator


def test_churn_rejects_a_timeout_that_would_suspect_live_nodes() -> None:
    with pytest.raises(ValueError):
        Churn(period=1.0, timeout=1.2, max_delay=0.5)
