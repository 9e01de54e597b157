"""SCOT topology (OctopiA §III-IV; docs/octopia.md I7): the Fig. 10 numbers, and the formulas on
random small trees x K_m by Hypothesis, with the Strong-product mutant rejected."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.properties.octopia.checks import scot_violations, strong_product_mutant
from pubsub_spec.reference.octopia.scot import (
    AcyclicFactor,
    Scot,
    edge_connectivity,
    fig10_factor,
    path_factor,
)


def test_fig10_topology_numbers() -> None:
    s = Scot(fig10_factor(), 5)  # §VIII, A12
    assert len(s.brokers) == 70
    assert sum(s.is_inner_broker(b) for b in s.brokers) == 20
    assert sum(s.is_edge_broker(b) for b in s.brokers) == 50
    assert (len(s.alinks()), len(s.ilinks()), len(s.links())) == (65, 140, 205)
    assert all(len(s.secondary_neighbours(b)) == 4 for b in s.brokers)
    assert s.factor.diameter() == 5
    assert edge_connectivity(s.adjacency) == 5  # κ by brute force is slow here: small graphs
    # a region's brokers all have the same type (§IV-B)
    for x in s.factor.vertices:
        assert len({s.is_edge_broker(b) for b in s.region(x)}) == 1
    assert scot_violations(s, connectivity=False) == []


def test_fig3_clusters_and_regions() -> None:
    s = Scot(path_factor(6), 3)  # Fig. 3: three clusters, six regions (shape lost: a path)
    assert len({b[1] for b in s.brokers}) == 3 and len(s.factor.vertices) == 6
    assert all(len(s.cluster(i)) == 6 for i in range(3))


def test_not_a_tree_rejected() -> None:
    cyclic = AcyclicFactor.from_edges([("a", "b"), ("b", "c"), ("c", "a")])
    assert cyclic.problem() is not None
    try:
        Scot(cyclic, 3)
    except ValueError:
        return
    raise AssertionError("a cyclic G_A must be rejected (Acyclic property, §III-B)")


@st.composite
def trees(draw: st.DrawFn) -> AcyclicFactor:
    n = draw(st.integers(1, 5))
    names = [chr(ord("a") + k) for k in range(n)]
    edges = [(names[draw(st.integers(0, k - 1))], names[k]) for k in range(1, n)]
    return AcyclicFactor(tuple(names), tuple(edges))


@settings(max_examples=25)
@given(trees(), st.integers(1, 4))
def test_scot_formulas_hold(factor: AcyclicFactor, m: int) -> None:
    assert scot_violations(Scot(factor, m)) == []


@settings(max_examples=10)
@given(trees().filter(lambda f: len(f.vertices) >= 2), st.integers(2, 3))
def test_strong_product_mutant_rejected(factor: AcyclicFactor, m: int) -> None:
    s = Scot(factor, m)
    assert scot_violations(s, strong_product_mutant(s)) != []
