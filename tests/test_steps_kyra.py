"""Step vectors of kyra, siena and mcgroups (conformance/steps/kyra.py, docs/steps.md): the
one-server harness does at a server what the whole simulated network does there, the committed
vectors are the ones the generator makes from the current reference, refused inputs say why, a
changed handler fails a vector naming the handler's field, and a malformed state is refused."""

from __future__ import annotations

import copy

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.steps import kyra
from pubsub_spec.conformance.steps.base import StepInputError, canonical, first_difference
from pubsub_spec.conformance.steps.kyra import SYSTEMS, McGroupsSteps, SienaSteps, recorded
from pubsub_spec.conformance.steps.vectors import Vector, choose, judge, load, root
from pubsub_spec.reference.common.model import Event
from pubsub_spec.reference.kyra.mcgroups import McGroupsSystem
from pubsub_spec.reference.kyra.messages import Message
from pubsub_spec.reference.kyra.siena import SienaSystem

NAMES = ("kyra", "siena", "mcgroups")
VECTORS = {name: load(only=(name,)) for name in NAMES}


@pytest.mark.parametrize("system", NAMES)
@pytest.mark.parametrize("gen", ["uniform", "partial-lenient"])
def test_the_harness_does_what_the_network_does(system: str, gen: str) -> None:
    steps = recorded(system, GENERATORS[gen](1, 0, "tiny"))
    assert len({kyra._kind(s.input) for s in steps}) >= 4
    for s in steps:
        got = SYSTEMS[system].apply(s.pre, s.input)
        assert got.invalid is None, (s.input, got.invalid)
        assert first_difference(s.post, got.post, "post") is None
        assert first_difference(s.sent, got.sends, "sends") is None


def test_a_harness_that_loses_state_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above can fail: a harness that forgets the routing table differs."""
    real = kyra.HARNESS_OF["siena"]

    def forgetful(pre: object, cls: type) -> tuple[object, str]:
        h, me = real(pre, cls)
        h.tables[me].entries.clear()  # type: ignore[attr-defined]
        return h, me

    monkeypatch.setitem(kyra.HARNESS_OF, "siena", forgetful)
    steps = recorded("siena", GENERATORS["uniform"](1, 0, "tiny"))
    differs = [
        s for s in steps if first_difference(s.sent, SYSTEMS["siena"].apply(s.pre, s.input).sends)
    ]
    assert differs


@pytest.mark.parametrize("system", NAMES)
def test_the_committed_vectors_are_the_generators(system: str) -> None:
    """Freshness: regenerated from the current reference, byte for byte."""
    from pubsub_spec.conformance.steps import kyra_model

    chosen = list(choose(SYSTEMS[system]))
    model = kyra_model.available()  # the model-derived cases need the TLA+ checker
    assert sorted((c.handler, c.name) for c, _ in chosen) == sorted(
        (v.handler, v.case) for v in VECTORS[system] if model or not v.case.startswith("model-")
    )
    for case, outcome in chosen:
        where = root() / system / case.handler / case.name
        assert (where / "pre.json").read_text() == canonical(case.pre)
        assert (where / "input.json").read_text() == canonical(case.input)
        if outcome.invalid is None:
            assert (where / "post.json").read_text() == canonical(outcome.post)
            assert (where / "sends.json").read_text() == canonical(outcome.sends)
        else:
            assert (where / "invalid").read_text() == outcome.invalid + "\n"


def _vector(system: str, handler: str, case: str) -> Vector:
    (v,) = [v for v in VECTORS[system] if v.handler == handler and v.case == case]
    return v


def test_refused_inputs_say_why() -> None:
    for system in NAMES:
        v = _vector(system, "subscribe", "not-the-original-server")
        assert v.expected.invalid is not None and "original server" in v.expected.invalid
    assert "refused" in str(_vector("kyra", "Notify", "unknown-subscription").expected.invalid)
    assert "refused" in str(_vector("mcgroups", "GroupJoin", "unknown-group").expected.invalid)
    # the same Notify for a subscription the server holds is delivered
    ok = [v for v in VECTORS["kyra"] if v.handler == "Notify" and v.expected.invalid is None]
    assert any(v.expected.post["delivered"] for v in ok)


class BackToSender(SienaSystem):
    """Siena §II.A broken: an event is also forwarded back toward where it came from."""

    def _route(self, y: str, event: Event, came: str | None) -> None:
        super()._route(y, event, None)


class NoGraft(McGroupsSystem):
    """K-D10 broken: a GroupJoin is acknowledged but the server is not grafted."""

    def handle(self, src: str, dst: str, msg: Message) -> None:
        if type(msg).__name__ != "GroupJoin":
            super().handle(src, dst, msg)


@pytest.mark.parametrize(
    ("steps", "system", "handler", "where"),
    [(SienaSteps(BackToSender), "siena", "EventRoute", "sends"),
     (McGroupsSteps(NoGraft), "mcgroups", "GroupJoin", "post.node.groups")],
)  # fmt: skip
def test_a_changed_handler_fails_its_vectors(
    steps: SienaSteps, system: str, handler: str, where: str
) -> None:
    failed: dict[str, str] = {}
    for v in VECTORS[system]:
        got = judge(v.expected, steps.apply(v.pre, v.input))
        if got is not None:
            failed.setdefault(v.handler, got)
    assert set(failed) == {handler}, failed
    assert failed[handler].startswith(where)


def test_a_malformed_state_is_refused() -> None:
    v = next(v for v in VECTORS["siena"] if v.handler == "EventRoute")
    bad = copy.deepcopy(v.pre)
    bad["node"]["subs"] = list(reversed(bad["node"]["subs"])) * 2 or [1]
    with pytest.raises(StepInputError):
        SYSTEMS["siena"].apply(bad, v.input)
    k = next(v for v in VECTORS["kyra"] if v.handler == "EventRoute")
    bad = copy.deepcopy(k.pre)
    lay = next(iter(bad["context"]["layouts"].values()))
    lay["zones"][k.pre["node"]["name"]] = [[0, 1]]  # a zone is [lo, hi, closed]
    with pytest.raises(StepInputError, match="closed"):
        SYSTEMS["kyra"].apply(bad, k.input)
    with pytest.raises(StepInputError, match="one of"):
        SYSTEMS["kyra"].apply(k.pre, {**k.input, "type": "GroupJoin"})
