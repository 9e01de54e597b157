"""LBDD (Li Kai et al., 2014): the properties of §3.5 on generated address sets, with agreeing
and with diverging views, and the decisions D-L1..D-L4 of docs/lbdd.md."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.properties.lbdd.checks import address_sets, one_way_violation
from pubsub_spec.reference.lbdd.algorithms import (
    bucket_construction,
    bucket_no,
    bucket_of_distance,
    build_tree,
    digest,
    disseminate,
    distance,
    path_update,
    slice_bounds,
    tree_depth,
)

addresses = st.lists(
    st.tuples(*[st.integers(0, 255)] * 4).map(lambda t: ".".join(map(str, t))),
    min_size=1,
    max_size=60,
    unique=True,
)


@settings(max_examples=150)
@given(addresses)
def test_agreeing_views_give_a_tree_rooted_at_the_publisher(addrs: list[str]) -> None:
    source, members = addrs[0], addrs[1:]
    tree = build_tree(source, members)
    parents = Counter(c for kids in tree.values() for c in kids)
    # every subscriber has exactly one parent: exactly n copies for n subscribers
    assert set(parents) == set(members) and all(v == 1 for v in parents.values())
    assert source not in parents
    # one-way: every edge goes from a lower to a strictly higher bucket (Theorem 1)
    for parent, kids in tree.items():
        for c in kids:
            assert bucket_no(source, c) > bucket_no(source, parent)
    # depth bound: at most one hop per non-empty bucket, at most 33 buckets
    buckets = {bucket_no(source, m) for m in members}
    assert tree_depth(tree, source) <= min(len(buckets), 33)
    d = disseminate(source, members, {n: addrs for n in addrs})
    assert len(d.edges) == len(members) and all(d.received[m] == 1 for m in members)


@settings(max_examples=150)
@given(st.integers(1, 10_000), st.integers(0, 10_000))
def test_slices_partition_the_target_bucket(k: int, m: int) -> None:
    """D-L2: contiguous integer slices covering [0, m) exactly, sizes differing by <= 1."""
    bounds = (
        [slice_bounds(j, k, m) for j in range(k)]
        if k <= 200
        else [slice_bounds(j, k, m) for j in (0, 1, k // 2, k - 2, k - 1)]
    )
    if k <= 200:
        assert bounds[0][0] == 0 and bounds[-1][1] == m
        assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    sizes = {hi - lo for lo, hi in bounds}
    assert max(sizes) - min(sizes) <= 1


def test_ordering_within_a_bucket_is_by_digest_then_address() -> None:
    """D-L1, and D-L3: empty buckets are skipped (the next non-empty one is the target)."""
    source = "10.0.0.1"
    members = [f"10.0.{i}.{j}" for i in range(1, 5) for j in range(1, 30)]
    local = bucket_construction(members[0], source, [source, *members])
    for ms in local.higher.values():
        assert list(ms) == sorted(ms, key=lambda a: (digest(a), a))
    tree = build_tree(source, members)
    first = min(bucket_no(source, m) for m in members)
    assert {bucket_no(source, c) for c in tree[source]} == {first}


def test_a_digest_tie_with_the_source_is_in_bucket_one() -> None:
    """D-L4: bucket 0 is the source's alone."""
    assert bucket_no("a", "a") == 0
    assert bucket_of_distance(0) == 1  # a digest tie with the source
    assert [bucket_of_distance(d) for d in (1, 2, 3, 4, 2**31, 2**32 - 1)] == [1, 2, 2, 3, 32, 32]


# Two addresses whose MD5 share the high 32 bits (found by a birthday search over 10.x.y.z).
TIE_A, TIE_B = "10.0.81.124", "10.0.170.82"


def test_digest_is_the_high_32_bits_of_md5() -> None:
    assert digest("10.0.0.1") == int(hashlib.md5(b"10.0.0.1").hexdigest()[:8], 16)
    assert digest(TIE_A) == digest(TIE_B) == 0xE0322EF6
    assert distance(TIE_A, TIE_B) == 0


def test_a_real_digest_tie_with_the_source_still_gives_a_tree() -> None:
    """D-L4 on real addresses: the tied member is in bucket 1, served before every other
    bucket; it is never in bucket 0, so the source is the only root."""
    others = [f"10.9.0.{i}" for i in range(1, 40)]
    tree = build_tree(TIE_A, [TIE_B, *others])
    assert bucket_no(TIE_A, TIE_B) == 1
    assert tree[TIE_A] == [TIE_B]  # bucket 1 is the first non-empty bucket, served whole
    parents = Counter(c for kids in tree.values() for c in kids)
    assert set(parents) == {TIE_B, *others} and set(parents.values()) == {1}


def test_members_with_equal_digests_are_ordered_by_address() -> None:
    """D-L1: Algorithm 1 as printed (rank = number of peers with a smaller digest) gives two
    tied nodes the same rank; ordering by (digest, address) gives them ranks 0 and 1."""
    source = "10.0.0.1"
    a = bucket_construction(TIE_A, source, [source, TIE_A, TIE_B])
    b = bucket_construction(TIE_B, source, [source, TIE_A, TIE_B])
    assert (a.self_no, a.size) == (b.self_no, b.size) == (bucket_no(source, TIE_A), 2)
    assert {a.rank, b.rank} == {0, 1}
    assert b.rank == 0  # "10.0.170.82" < "10.0.81.124" as strings


def test_build_tree_ignores_the_source_and_duplicates() -> None:
    members = ["10.0.1.1", "10.0.1.2", "10.0.1.1", "10.0.0.1", "10.0.1.3"]
    tree = build_tree("10.0.0.1", members)
    assert set(tree) == {"10.0.0.1", "10.0.1.1", "10.0.1.2", "10.0.1.3"}
    assert sorted(c for kids in tree.values() for c in kids) == ["10.0.1.1", "10.0.1.2", "10.0.1.3"]
    assert build_tree("10.0.0.1", []) == {"10.0.0.1": []}
    assert tree_depth(build_tree("10.0.0.1", []), "10.0.0.1") == 0


def test_a_small_tree_pinned_by_hand() -> None:
    """Algorithms 1-2 on seven addresses, checked against the digests by hand: buckets 31
    (two nodes) and 32 (four nodes); the source takes bucket 31 whole; 10.0.1.6 (rank 0 of 2)
    takes ranks [0, 2) of bucket 32, 10.0.1.2 (rank 1) takes [2, 4)."""
    tree = build_tree("10.0.0.1", [f"10.0.1.{i}" for i in range(1, 7)])
    assert tree == {
        "10.0.0.1": ["10.0.1.6", "10.0.1.2"],
        "10.0.1.1": [],
        "10.0.1.2": ["10.0.1.4", "10.0.1.5"],
        "10.0.1.3": [],
        "10.0.1.4": [],
        "10.0.1.5": [],
        "10.0.1.6": ["10.0.1.3", "10.0.1.1"],
    }
    assert tree_depth(tree, "10.0.0.1") == 2


def test_a_bucket_serves_the_next_non_empty_bucket_with_uneven_slices() -> None:
    """D-L2, D-L3 with m < k and m/k not an integer: slices [floor(j m/k), floor((j+1) m/k))."""
    assert [slice_bounds(j, 3, 2) for j in range(3)] == [(0, 0), (0, 1), (1, 2)]
    assert [slice_bounds(j, 2, 5) for j in range(2)] == [(0, 2), (2, 5)]
    assert [slice_bounds(j, 4, 1) for j in range(4)] == [(0, 0), (0, 0), (0, 0), (0, 1)]


@settings(max_examples=100)
@given(addresses, st.data())
def test_diverging_views_during_failure_detection(addrs: list[str], data: st.DataObject) -> None:
    """While some nodes still list a failed node (heartbeat not yet timed out) and a joined node
    is not yet known to all: edges still go to strictly higher buckets, so there is no cycle and
    every copy is finite; a live subscriber may be missed (its parent in some view is the failed
    node) or receive twice (two nodes' slices overlap); once every view is updated by
    Algorithm 3, every live subscriber receives exactly once."""
    if len(addrs) < 4:
        return
    source, members = addrs[0], addrs[1:]
    failed = data.draw(st.sampled_from(members))
    live = [m for m in members if m != failed]
    aware = set(data.draw(st.lists(st.sampled_from(addrs), unique=True)))
    views = {
        n: (path_update(set(addrs), failed=failed) if n in aware else set(addrs)) for n in addrs
    }
    d = disseminate(source, live, views)
    for a, b in d.edges:
        assert bucket_no(source, b) > bucket_no(source, a)
    assert len(d.edges) <= len(addrs) * len(addrs)
    agreed = {n: path_update(set(addrs), failed=failed) for n in addrs}
    healed = disseminate(source, live, agreed)
    assert all(healed.received.get(m) == 1 for m in live)
    assert failed not in healed.received


@settings(max_examples=100)
@given(address_sets)
def test_one_way_check_holds_for_lbdd(addrs: list[str]) -> None:
    assert one_way_violation(addrs) is None


def test_one_way_check_rejects_forwarding_within_a_bucket() -> None:
    bad = [
        one_way_violation([f"10.0.{i}.{j}" for i in range(3) for j in range(1, 40)][k:], True)
        for k in range(3)
    ]
    assert all(b is not None and "higher bucket" in b for b in bad), bad
