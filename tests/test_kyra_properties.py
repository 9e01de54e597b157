"""Hypothesis properties of Kyra's cliques (§III.A, Fig. 5) and routing trees (§III.A MSTs),
each with mutants shown rejected (properties/kyra/)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.properties.kyra.checks import check_cliques, check_tree
from pubsub_spec.properties.kyra.mutants import (
    DropCoveringSiena,
    cyclic_tree,
    early_exit_hac,
    no_size_check_hac,
    single_linkage_hac,
    star_tree,
)
from pubsub_spec.reference.kyra.hac import cluster_server_cliques
from pubsub_spec.reference.kyra.siena import SienaSystem
from pubsub_spec.reference.kyra.trees import minimum_spanning_tree
from pubsub_spec.reference.sim.run import run_and_compare

Points = list[tuple[float, float]]
Hac = Callable[[Sequence[str], Callable[[str, str], float], float, int], list[tuple[str, ...]]]


def _metric(points: Points) -> tuple[list[str], Callable[[str, str], float]]:
    names = [f"s{i}" for i in range(len(points))]
    at = dict(zip(names, points, strict=True))

    def d(a: str, b: str) -> float:
        (x1, y1), (x2, y2) = at[a], at[b]
        return round(math.hypot(x1 - x2, y1 - y2), 6)

    return names, d


points_st = st.lists(
    st.tuples(st.integers(0, 20).map(float), st.integers(0, 20).map(float)),
    min_size=1,
    max_size=9,
)
limits_st = st.tuples(st.integers(1, 15).map(float), st.integers(1, 5))


@settings(max_examples=60)
@given(points_st, limits_st)
def test_hac_postconditions(points: Points, limits: tuple[float, int]) -> None:
    """Partition, size and distance limits, maximality (K-E2), determinism."""
    names, d = _metric(points)
    max_d, max_n = limits
    cliques = cluster_server_cliques(names, d, max_d, max_n)
    assert check_cliques(names, cliques, d, max_d, max_n) == []
    assert cluster_server_cliques(list(reversed(names)), d, max_d, max_n) == cliques


def _rejected(hac: Hac, cases: list[tuple[Points, float, int]]) -> bool:
    for pts, max_d, max_n in cases:
        names, d = _metric(pts)
        if check_cliques(names, hac(names, d, max_d, max_n), d, max_d, max_n):
            return True
    return False


# a chain 0-4-8 with spacing below maxDistance 5: single linkage joins all (diameter 8)
CHAIN: list[tuple[Points, float, int]] = [([(0.0, 0.0), (4.0, 0.0), (8.0, 0.0)], 5.0, 5)]
CLOSE: list[tuple[Points, float, int]] = [([(0.0, 0.0), (1.0, 0.0), (2.0, 0.0)], 5.0, 2)]
FOUR: list[tuple[Points, float, int]] = [([(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)], 5.0, 4)]


def test_hac_mutants_rejected() -> None:
    assert not _rejected(cluster_server_cliques, CHAIN + CLOSE + FOUR)
    assert _rejected(single_linkage_hac, CHAIN)  # diameter limit
    assert _rejected(no_size_check_hac, CLOSE)  # size limit
    assert _rejected(early_exit_hac, FOUR)  # maximality


@settings(max_examples=60)
@given(points_st)
def test_mst_is_a_minimum_spanning_tree(points: Points) -> None:
    names, d = _metric(points[:6])
    edges = minimum_spanning_tree(names, d)
    assert check_tree(names, edges, d) == []
    assert minimum_spanning_tree(list(reversed(names)), d) == edges  # deterministic


def test_mst_mutants_rejected() -> None:
    names, d = _metric([(0.0, 0.0), (10.0, 0.0), (11.0, 0.0), (12.0, 1.0)])
    assert check_tree(names, minimum_spanning_tree(names, d), d) == []
    assert any("not minimum" in v for v in check_tree(names, star_tree(names, d), d))
    assert any("edges for" in v for v in check_tree(names, cyclic_tree(names, d), d))


def test_table_dropping_a_covering_filter_is_rejected() -> None:
    """The oracle comparison catches a routing table that drops a covering filter."""
    missed = 0
    for seed in range(3):
        trace = GENERATORS["zipf"](seed, 0, "small")
        _, good = run_and_compare(trace, SienaSystem)
        assert good.agree
        _, bad = run_and_compare(trace, DropCoveringSiena)
        missed += len(bad.missed)
    assert missed > 0
