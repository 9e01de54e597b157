"""Model-derived step vectors of the thesis system (conformance/steps/thesis_model.py,
docs/steps.md "Model-derived vectors"): regenerated from the TLA+ models' state graphs byte
for byte, and the model comparison catches a changed handler and a changed map."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pubsub_spec.conformance.steps import thesis_model
from pubsub_spec.conformance.steps.base import canonical
from pubsub_spec.conformance.steps.mutants import LeafUpdateNotForwarded
from pubsub_spec.conformance.steps.thesis import SYSTEM
from pubsub_spec.conformance.steps.vectors import load
from pubsub_spec.properties.thesis.mutants import MUTANTS
from pubsub_spec.reference.thesis.cutoff import Segment
from pubsub_spec.reference.thesis.points import stored_points
from pubsub_spec.reference.thesis.substrate import ReferenceSubstrate
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

pytestmark = pytest.mark.skipif(not thesis_model.available(), reason="tla not installed")


def test_the_model_vectors_regenerate_byte_for_byte() -> None:
    committed = {(v.handler, v.case): v for v in load(only=("thesis",))
                 if v.case.startswith("model-")}  # fmt: skip
    made = list(thesis_model.cases())
    assert sorted((c.handler, c.name) for c in made) == sorted(committed)
    for case in made:
        v = committed[(case.handler, case.name)]
        assert canonical(case.pre) == canonical(v.pre), v.case
        assert canonical(case.input) == canonical(v.input), v.case
        assert SYSTEM.apply(case.pre, case.input) == v.expected, v.case
    twodtree = [c for c in made if c.name.startswith("model-twodtree-")]
    cutoff = [c for c in made if c.name.startswith("model-cutoffremap-")]
    # every state of MCCutoffRemap at MaxV = 3, MaxC = 2: l <= u in 0..3, v in 0..3, c = 2, h = 1
    assert len(cutoff) == 10 * 4
    # every handler the map reaches has model vectors: the four of the 2d-tree's maintenance
    # and probes (docs/steps.md)
    assert {c.handler for c in twodtree} == {"InsertSub", "TransferSub", "LeafUpdate", "ProbePub"}
    # the held messages, the confirmations that replay them, and the deliveries are reached
    assert any(c.pre["node"]["nodes"] and c.pre["node"]["nodes"][0]["held"] for c in twodtree)
    assert any(c.input["type"] == "TransferSub" and c.input["created"] for c in twodtree)
    delivering = [c for c in made if SYSTEM.apply(c.pre, c.input).sends
                  and any(s["name"] == "EventDelivery"
                          for s in SYSTEM.apply(c.pre, c.input).sends)]  # fmt: skip
    assert delivering


@pytest.mark.parametrize(
    "mutant",
    [
        MUTANTS["thesis-split"],  # Program 3.1 as written: no waiting for the confirmations
        MUTANTS["no-seen-inheritance"],  # a child without the parent's processed events
        MUTANTS["no-dedup"],  # no per-event probe dedup (§3.4.1)
        MUTANTS["no-jump-back"],  # a probe for an absent node dropped (Program 3.3, line 53)
        MUTANTS["no-depth-cap"],  # a split past max_depth (the deep bound)
    ],
)
def test_a_changed_handler_disagrees_with_the_model(mutant: type[TwoDTreeSystem]) -> None:
    with pytest.raises(AssertionError, match=r"TwoDTree\.tla's Recv"):
        list(thesis_model.tree_cases(mutant))


def test_a_leaf_update_not_forwarded_disagrees_with_the_deep_bound() -> None:
    # Program 3.1, line 65: only the D = 3 bound splits a node at depth 2, whose update the
    # node at depth 1 must forward to the root
    with pytest.raises(AssertionError, match=r"TwoDTree\.tla's RecvUpdate"):
        list(thesis_model.tree_cases(LeafUpdateNotForwarded))


def test_a_changed_map_disagrees_with_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # activeAt read backwards wrongly: every stored point installed before the event (D-OPS)
    monkeypatch.setattr(thesis_model.TreeMap, "seq", lambda self, i, state: i)
    with pytest.raises(AssertionError, match="delivers"):
        list(thesis_model.tree_cases())


def test_a_changed_region_disagrees_with_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # Region read backwards as the other value's target area
    real = thesis_model.TreeMap.event

    def other(self: Any, j: int) -> Any:
        e = real(self, j)
        return replace(e, values=(("b", 1 - self.values[j]),))

    monkeypatch.setattr(thesis_model.TreeMap, "event", other)
    with pytest.raises(AssertionError, match=r"TwoDTree\.tla's RecvProbe"):
        list(thesis_model.tree_cases())


def test_cutoff_segments_and_matching_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    # the reference's segments all closed (erratum E3): the model's segments differ
    real = stored_points

    def closed(*args: Any) -> Any:
        return tuple(replace(p, segment=Segment(p.segment.index, p.segment.lo, p.segment.hi,
                                                True)) for p in real(*args))  # fmt: skip

    monkeypatch.setattr(thesis_model, "stored_points", closed)
    with pytest.raises(AssertionError, match="segments"):
        list(thesis_model.cutoff_cases())
    monkeypatch.undo()
    # the leaf reads every segment as closed: an event on a boundary is delivered twice
    leaf = ReferenceSubstrate.leaf

    def closed_leaf(self: Any, node: Any) -> Any:
        return [(s, b, [(*e[:4], True, *e[5:]) for e in entries])
                for s, b, entries in leaf(self, node)]  # fmt: skip

    monkeypatch.setattr(ReferenceSubstrate, "leaf", closed_leaf)
    with pytest.raises(AssertionError, match="delivers segments"):
        list(thesis_model.cutoff_cases())
