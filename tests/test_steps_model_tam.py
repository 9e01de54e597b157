"""Model-derived step vectors of Tam over Scribe (conformance/steps/tam_model.py, docs/steps.md
"Model-derived vectors"): every distinct one-peer (state, action) of spec/tam/MCScribe.tla at its
CI bound is a committed `tam` vector, each checked against the model's successor, and a
reference that disagrees with the model stops the generation."""

from __future__ import annotations

from collections import Counter

import pytest

from pubsub_spec.conformance.steps import tam_model
from pubsub_spec.conformance.steps.base import canonical
from pubsub_spec.conformance.steps.model_graph import Graph, Record, State
from pubsub_spec.conformance.steps.tam import SYSTEMS, TamSteps
from pubsub_spec.conformance.steps.vectors import load, root
from pubsub_spec.reference.common.model import Event
from pubsub_spec.reference.overlay.scribe import ScribeLeave, ScribeMessage
from pubsub_spec.reference.tam.system import TamSystem

HANDLERS = ("ScribeJoin", "ScribeLeave", "ScribeMulticast", "ScribePublish", "subscribe",
            "unsubscribe")  # fmt: skip


@pytest.fixture(scope="module")
def graph() -> Graph:
    if not tam_model.available():
        pytest.skip("the TLA+ checker `tla` is not installed (scripts/setup.sh installs it)")
    return tam_model.graph()


def test_the_committed_model_vectors_are_the_generators(
    graph: Graph,
) -> None:
    """Every distinct one-peer (state, action) of MCScribe at its CI bound (7,657 states) is a
    vector, byte for byte, for each of the six handlers the model's actions map onto."""
    tam = SYSTEMS["tam"]
    made = list(tam_model.cases(tam.apply, graph))
    assert len(made) == 49
    assert Counter(c.handler for c in made) == {
        "ScribeMulticast": 11, "ScribeJoin": 9, "ScribeLeave": 9, "unsubscribe": 8,
        "ScribePublish": 6, "subscribe": 6,
    }  # fmt: skip
    committed = {(v.handler, v.case): v for v in load(only=("tam",)) if v.case.startswith("model-")}
    assert sorted(committed) == sorted((c.handler, c.name) for c in made)
    for case in made:
        where = root() / "tam" / case.handler / case.name
        assert (where / "pre.json").read_text() == canonical(case.pre)
        assert (where / "input.json").read_text() == canonical(case.input)
        outcome = tam.apply(case.pre, case.input)
        assert outcome.invalid is None
        assert (where / "post.json").read_text() == canonical(outcome.post)
        assert (where / "sends.json").read_text() == canonical(outcome.sends)


def test_what_is_not_one_peers_step_is_skipped(graph: Graph) -> None:
    """Churn (Fail, RebuildTree) and messages dropped by the model's epoch or to a failed peer
    map onto no handler; everything else maps onto one."""
    skipped: Counter[str] = Counter()
    mapped = 0
    for a, b, action in graph.edges:
        step = tam_model.step_of(graph.states[a], graph.states[b], action)
        if step is None:
            skipped[action] += 1
        else:
            mapped += 1
            assert step[0] in HANDLERS
    assert set(skipped) == {"Fail", "RebuildTree", "Recv"}  # Recv: RecvDrop only
    assert mapped > 10 * len(skipped) and mapped + sum(skipped.values()) == len(graph.edges)


class NoLeave(TamSystem):
    """Scribe §2.2.2 broken: a pruned peer does not tell its parent (no LEAVE)."""

    def send(self, src: int, dst: int, msg: ScribeMessage[Event]) -> None:
        if not isinstance(msg, ScribeLeave):
            super().send(src, dst, msg)


def test_a_reference_that_disagrees_with_the_model_stops_the_generation(
    graph: Graph,
) -> None:
    with pytest.raises(AssertionError, match=r"Unsubscribe at peer \d: the model sends"):
        list(tam_model.cases(TamSteps(NoLeave).apply, graph))


def _state(**changes: object) -> State:
    """A state of MCScribe: peers 1, 2, 3, 5, 6; 6 a member below forwarder 3 below root 1."""
    peers = (1, 2, 3, 5, 6)
    s: State = {
        "alive": frozenset(peers),
        "inT": {p: p in (1, 3, 6) for p in peers},
        "par": {1: 0, 2: 0, 3: 1, 5: 0, 6: 3},
        "ch": {p: frozenset({3} if p == 1 else {6} if p == 3 else ()) for p in peers},
        "mem": {p: p == 6 for p in peers},
        "subd": frozenset({6}),
        "msgs": frozenset(),
        "epoch": 0,
        "published": frozenset(),
        "activeAt": (frozenset(),),
        "got": ({p: 0 for p in peers},),
    }
    s.update(changes)
    return s


def test_the_map_read_backwards() -> None:
    """A model state as one peer's pre-state: its group state, its subscription, and the
    model's NextHop as the overlay's answer."""
    s = _state()
    pre = tam_model.pre_of(s, 6)
    node = pre["node"]
    assert node["groups"] == [{"key": tam_model.KEY, "parent": "n3", "children": [],
                               "member": True}]  # fmt: skip
    assert node["registered"] == {tam_model.KEY: ["s6"]} and node["subs"][0]["seq"] == 1
    assert pre["context"]["routes"] == {tam_model.KEY: "n3"}  # NextHop(6) = 3
    assert tam_model.pre_of(s, 1)["context"]["routes"] == {tam_model.KEY: "n1"}  # the home
    assert tam_model.pre_of(s, 5)["node"]["groups"] == []
    # published while 6 was not yet a member: its subscription came after (seq 3 > 2)
    late = _state(published=frozenset({1}), activeAt=(frozenset(),))
    assert tam_model.pre_of(late, 6)["node"]["subs"][0]["seq"] == tam_model.LATE_SEQ
    # a multicast at 3 from 1 maps onto ScribeMulticast at peer 3; one from an older epoch
    # is dropped by the model (no handler)
    mc = Record(t="mc", s=1, d=3, e=1, ep=0, k=0)
    before, after = _state(msgs=frozenset({mc}), published=frozenset({1})), _state()
    step = tam_model.step_of(before, after, "Recv")
    assert step is not None and step[:2] == ("ScribeMulticast", 3)
    assert tam_model.step_of({**before, "epoch": 1}, after, "Recv") is None
