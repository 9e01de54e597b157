"""TLA+ trace validation of observed LBDD trees (properties/lbdd/observed.py): the
reference-lbdd built-in's EventDelivery observations validate against spec/lbdd/LBDD.tla, and
a log whose copies leave the LBDD tree (a star from the origin, a member left out) does not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.observed import observed_run
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.properties.lbdd.observed import observed_trees, validate_observed
from pubsub_spec.properties.lbdd.trace_export import abstract_digests
from pubsub_spec.reference.lbdd.algorithms import build_tree
from pubsub_spec.reference.sim.observe import send


@pytest.mark.parametrize("gen", ["uniform", "boundaries", "zipf"])
def test_the_reference_lbdd_trees_validate(gen: str) -> None:
    run = observed_run("reference-lbdd", GENERATORS[gen](1, 0, "tiny"))
    results = validate_observed(run)
    assert results
    for key, v in results:
        assert v is None or v.ok, (key, v)
    assert any(v is not None for _, v in results)


def _members() -> tuple[str, list[str]]:
    """An origin and members whose tree has two levels and fits the map's three buckets."""
    for i in range(200):
        origin, members = "n0", [f"n{j}" for j in range(1 + i % 50, 6 + i % 50)]
        tree = build_tree(origin, members)
        if abstract_digests(origin, [origin, *members]) and len(tree[origin]) < len(members):
            return origin, members
    raise AssertionError("no fitting tree")


def _run(edges: Sequence[tuple[str, str]], origin: str, members: list[str]) -> ObservedRun:
    base = observed_run("reference-lbdd", GENERATORS["uniform"](1, 0, "tiny"))
    log = tuple(
        Observed(1, send("EventDelivery", a, b, event="e1", origin=origin, members=members))
        for a, b in edges
    )
    return replace(base, log=log)


def _edges(origin: str, members: list[str]) -> list[tuple[str, str]]:
    tree = build_tree(origin, members)
    out, frontier = [], [origin]
    while frontier:
        out += [(a, b) for a in frontier for b in tree[a]]
        frontier = [b for a in frontier for b in tree[a]]
    return out


def test_the_paper_tree_validates_and_a_star_or_a_missing_member_does_not() -> None:
    origin, members = _members()
    good = _edges(origin, members)
    [(key, v)] = validate_observed(_run(good, origin, members))
    assert v is not None and v.ok, v
    assert key == ("e1", origin, "")
    star = [(origin, m) for m in members]
    [(_, v)] = validate_observed(_run(star, origin, members))
    assert v is not None and not v.ok
    last = good[-1]
    [(_, v)] = validate_observed(_run(good[:-1], origin, members))
    assert v is not None and not v.ok, last


def test_observed_trees_records_every_receiver() -> None:
    origin, members = _members()
    [tree] = observed_trees(_run(_edges(origin, members), origin, members)).values()
    assert tree.source == origin and set(tree.nodes) == {origin, *members}
    assert {n for n, _, _ in tree.forwards} == {origin, *members}
    assert all(tree.received[m] == 1 for m in members)
