"""Model-derived step vectors of Kyra (conformance/steps/kyra_model.py, docs/steps.md
"Model-derived vectors"): every distinct one-server (state, action) pair of
spec/kyra/MCKyraRouting.tla at its CI bound, each checked against the reference."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pubsub_spec.conformance.steps import kyra_model
from pubsub_spec.conformance.steps.base import Case, canonical
from pubsub_spec.conformance.steps.kyra import SYSTEMS, KyraSteps
from pubsub_spec.conformance.steps.vectors import load, root
from pubsub_spec.reference.kyra import filters
from pubsub_spec.reference.kyra.messages import SubPropagate
from pubsub_spec.reference.kyra.system import KyraSystem, _zones_overlap
from pubsub_spec.reference.kyra.zones import Box, Zone

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


# -- teeth: scripts/step_teeth.py on the Kyra handlers -----------------------------------------


@pytest.fixture
def teeth(monkeypatch: pytest.MonkeyPatch) -> Any:
    path = Path(__file__).parent.parent / "scripts" / "step_teeth.py"
    spec = importlib.util.spec_from_file_location("step_teeth", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "step_teeth", module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def test_the_kyra_vectors_kill_the_handler_mutants(teeth: Any) -> None:
    """At least 95 % of the operator mutants of Kyra's handler functions not argued
    equivalent are killed by the step vectors alone (docs/steps.md, "Teeth")."""
    mine = load(only=("kyra",))
    mutants = list(teeth.operator_mutants(KYRA))
    survivors = []
    for m in mutants:
        undo = m.apply()
        try:
            if teeth.killed(KYRA, mine) is None:
                survivors.append(m)
        finally:
            undo()
    equivalent = [m for m in survivors if teeth._key(m) in teeth.EQUIVALENT]
    real = [m for m in survivors if m not in equivalent]
    assert len(mutants) > 40 and len(real) <= 0.05 * (len(mutants) - len(equivalent)), real
    v = mine[0]  # the handlers are restored
    assert canonical(KYRA.apply(v.pre, v.input).sends) == canonical(v.expected.sends)


def _meeting_pairwise() -> list[tuple[list[Zone], int, int]]:
    """Every (zones, lo, hi) as `nonempty` hands them to `_common` from `_on_sub_move` on a
    layout of §III, over bounds 0..5 (every order of the six bounds): the server's zone Z and
    the tree's Y meet (the server is on the tree, `_zones_overlap`), the extent [lo, hi] meets
    each; both orders of the zones."""
    vals = range(6)
    zones = [Zone(a, b, c) for a in vals for b in vals for c in (False, True)
             if a < b or (a == b and c)]  # fmt: skip
    out = []
    for lo, hi in itertools.product(vals, vals):
        for z, y in itertools.product(zones, zones):
            meet = lo <= hi and z.overlaps(lo, hi) and y.overlaps(lo, hi)
            if meet and _zones_overlap(Box((z,)), Box((y,))):
                out.append(([z, y], lo, hi))
    return out


def test_the_equivalent_kyra_mutants_answer_as_the_reference(teeth: Any) -> None:
    """The survivors argued equivalent in `_common` (scripts/step_teeth.py, EQUIVALENT) answer
    True wherever the reference is asked, as the reference does (Helly in one dimension); a
    killed mutant of the same function answers False somewhere (the check tells them apart)."""
    cases = _meeting_pairwise()
    assert len(cases) > 10000 and all(filters._common(z, lo, hi) for z, lo, hi in cases)
    verdicts = {}
    for m in teeth.operator_mutants(KYRA):
        if m.function != "_common":
            continue
        undo = m.apply()
        try:
            verdicts[teeth._key(m)] = all(filters._common(z, lo, hi) for z, lo, hi in cases)
        finally:
            undo()
    argued = [k for k in verdicts if k in teeth.EQUIVALENT]
    assert len(argued) == 6 and all(verdicts[k] for k in argued)
    assert not all(verdicts.values())  # e.g. `closed and a_lo != a_hi`: a one-point extent
