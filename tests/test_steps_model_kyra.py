"""Model-derived step vectors of Kyra (conformance/steps/kyra_model.py, docs/steps.md
"Model-derived vectors"): every distinct one-server (state, action) pair of
spec/kyra/MCKyraRouting.tla at its CI bound, each checked against the reference."""

from __future__ import annotations

from collections import Counter

import pytest

from pubsub_spec.conformance.steps import kyra_model
from pubsub_spec.conformance.steps.base import Case, canonical
from pubsub_spec.conformance.steps.kyra import SYSTEMS, KyraSteps
from pubsub_spec.conformance.steps.vectors import load, root
from pubsub_spec.reference.kyra.messages import SubPropagate
from pubsub_spec.reference.kyra.system import KyraSystem

KYRA = SYSTEMS["kyra"]
COUNT = 132  # distinct one-server (state, action) pairs of MCKyraRouting at its CI bound
needs_tla = pytest.mark.skipif(
    not kyra_model.available(), reason="the TLA+ checker `tla` is not installed (scripts/setup.sh)"
)


def _model_vectors() -> list[tuple[str, str]]:
    return [(v.handler, v.case) for v in load(only=("kyra",)) if v.case.startswith("model-")]


def test_the_constants_are_the_model_modules_at_its_ci_bound() -> None:
    c = kyra_model.constants()
    assert c["Zone"] == tuple(
        frozenset(z) for z in ({0, 1, 2}, {3, 4, 5}, {0, 1}, {2, 3}, {4, 5})
    )  # MCZone
    assert c["Adj"][0][3] == frozenset({1, 3})  # MCAdj: server 4 on tree 1
    assert c["Pub"] == (5,) and c["Key"] == (2,) and c["NEvents"] == 1  # the CI overrides
    assert c["Unsubs"] == frozenset({2}) and c["ZoneCheck"] is True  # the cfg's values


def test_zones_read_backwards_hold_exactly_the_models_keys() -> None:
    from pubsub_spec.conformance.steps.kyra import dec_box

    mp = kyra_model._Map(kyra_model.constants())
    for n in mp.servers:
        box = dec_box(mp.box(mp.zone[n]), "zone")
        assert {k for k in mp.keys if box.contains((k,))} == mp.zone[n]
    for t in mp.trees:
        box = dec_box(mp.box(mp.y[t]), "tree zone")
        assert {k for k in mp.keys if box.contains((k,))} == mp.y[t]
    with pytest.raises(AssertionError, match="contiguous"):
        mp.box(frozenset({0, 2}))


def test_the_committed_model_vectors_cover_every_one_server_action() -> None:
    got = _model_vectors()
    assert len(got) == COUNT
    assert sorted(c for _, c in got) == [f"model-kyra-{k:03d}" for k in range(COUNT)]
    handlers = Counter(h for h, _ in got)
    # Subscribe, Publish, RecvMove, RecvProp, Route (zone and route) and RecvNotify; the
    # model's Unsubscribe is every server's at once and gives none
    assert set(handlers) == {"subscribe", "publish", "SubMove", "SubPropagate", "EventToZone",
                             "EventRoute", "Notify"}  # fmt: skip
    for h, c in got:
        assert (root() / "kyra" / h / c / "post.json").is_file()  # none refused


@needs_tla
def test_the_model_vectors_are_regenerated_byte_for_byte() -> None:
    cases = list(kyra_model.cases(KYRA.apply))
    assert [(c.handler, c.name) for c in cases] == sorted(_model_vectors(), key=lambda x: x[1])
    assert len({canonical([c.pre, c.input]) for c in cases}) == COUNT  # distinct pairs
    for case in cases:
        where = root() / "kyra" / case.handler / case.name
        assert (where / "pre.json").read_text() == canonical(case.pre)
        assert (where / "input.json").read_text() == canonical(case.input)
        assert KYRA.keep(case)  # kept whatever arcs they take


class _NoRelay(KyraSystem):
    """MUTANT (the model's Bug = "NoRelay"): an entry is recorded but not passed on."""

    def _on_propagate(self, src: str, dst: str, msg: SubPropagate) -> None:
        self.table(dst, msg.tree).add(src, msg.filter)


@needs_tla
def test_a_reference_disagreeing_with_the_model_stops_the_generation() -> None:
    with pytest.raises(AssertionError, match=r"RecvProp at server \d: the model's sends"):
        list(kyra_model.cases(KyraSteps(_NoRelay).apply))


def test_without_the_checker_no_model_case_is_a_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def cases(apply: object) -> list[Case]:
        calls.append(1)
        return []

    monkeypatch.setattr(kyra_model, "available", lambda: False)
    monkeypatch.setattr(kyra_model, "cases", cases)
    monkeypatch.setattr("pubsub_spec.conformance.steps.kyra.candidates", lambda name: iter(()))
    assert list(KYRA.candidates()) == [] and calls == []
    monkeypatch.setattr(kyra_model, "available", lambda: True)
    assert list(KYRA.candidates()) == [] and calls == [1]
