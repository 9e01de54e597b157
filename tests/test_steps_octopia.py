"""Step vectors of octopia-snr, octopia-idr and tid (conformance/steps/octopia.py,
docs/steps.md): the one-broker harness does at a broker what the whole simulated network does
there, the committed vectors are the ones the generator makes from the current reference,
refused inputs say why, IDR's cases are all among the vectors, and a changed handler fails a
vector naming the field."""

from __future__ import annotations

import copy
from collections.abc import Mapping

import pytest

from pubsub_spec.conformance.steps import octopia, octopia_model
from pubsub_spec.conformance.steps.base import StepInputError, canonical, first_difference
from pubsub_spec.conformance.steps.octopia import SYSTEMS, IdrSteps, TidSteps, recorded
from pubsub_spec.conformance.steps.vectors import choose, judge, load, root
from pubsub_spec.reference.octopia.routing import Copy, snr_copies
from pubsub_spec.reference.octopia.scot import Broker
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.octopia.tid import TidSystem
from pubsub_spec.reference.sim.observe import Observation

NAMES = ("octopia-snr", "octopia-idr", "tid")
VECTORS = {name: load(only=(name,)) for name in NAMES}


@pytest.mark.parametrize("system", NAMES)
def test_the_harness_does_what_the_network_does(system: str) -> None:
    labels = dict(octopia._traces(system))
    for label in ("octopia-stock-1", "churn-0"):
        steps = recorded(system, labels[label])
        assert len({octopia._kind(s.input) for s in steps}) >= 5
        for s in steps:
            got = SYSTEMS[system].apply(s.pre, s.input)
            assert got.invalid is None, (s.input, got.invalid)
            assert first_difference(s.post, got.post, "post") is None
            assert first_difference(s.sent, got.sends, "sends") is None


@pytest.mark.parametrize("system", NAMES)
def test_the_committed_vectors_are_the_generators(system: str) -> None:
    """Freshness: regenerated from the current reference, byte for byte."""
    chosen = list(choose(SYSTEMS[system]))
    model = octopia_model.available()  # the model-derived cases need the TLA+ checker
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


def _idr_cases(pre: object, step_input: object, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The IDR cases the reference decided in one step (its `idr` state observations)."""
    observed: list[str] = []
    real = octopia.harness

    def spy(p: object, system: str, cls: type) -> octopia._Step:
        step = real(p, system, cls)
        inner = step.observed.append

        def record(o: Observation) -> None:
            if o.name == "idr":
                observed.append(str(o.fields["case"]))
            inner(o)

        step.h._observer = record
        return step

    monkeypatch.setattr(octopia, "harness", spy)
    octopia.run_step("octopia-idr", pre, step_input, octopia._OctopiaHarness)
    monkeypatch.setattr(octopia, "harness", real)
    return observed


def test_every_idr_case_and_a_detour_are_among_the_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """§VII-B: cases (i), (ii)/(iii) and (iv) are each decided by some vector (from the link
    status in its context); O-TID-DYN: a copy moved to another bound TID's path."""
    got: set[str] = set()
    for v in VECTORS["octopia-idr"]:
        if v.expected.invalid is None:
            got |= set(_idr_cases(v.pre, v.input, monkeypatch))
    assert {"free", "i", "ii", "iv"} <= got
    civ_n = [s for v in VECTORS["octopia-idr"] for s in v.expected.sends or []
             if s["name"] == "Notification" and s["fields"]["civ"]]  # fmt: skip
    assert civ_n
    detoured = [v for v in VECTORS["tid"] if v.case.endswith("-detour")]
    assert any(s["fields"]["tid"].endswith("-alt") for v in detoured for s in v.expected.sends)


def test_refused_inputs_say_why() -> None:
    for system in NAMES:
        (v,) = [v for v in VECTORS[system] if v.case == "no-advertisement"]
        assert "refused" in str(v.expected.invalid) and "conforms to no" in str(v.expected.invalid)
        (v,) = [v for v in VECTORS[system] if v.case == "not-a-link"]
        assert "link" in str(v.expected.invalid)


class SnrForIdr(OctopiaSystem):
    """§VII-B broken: IDR ignores the link status and sends SNR's copies."""

    def copies(self, b: Broker, alinks: list[Broker], ilinks: dict[int, Broker]) -> list[Copy]:
        return snr_copies(alinks, ilinks)


class NoDetour(TidSystem):
    """O-TID-DYN broken: an overloaded next hop is never avoided."""

    def detours(
        self, b: Broker, src: Broker | None, tid: str, served: Mapping[Broker, list[str]]
    ) -> list[tuple[Broker, str, Broker]]:
        return []


@pytest.mark.parametrize(
    ("steps", "system", "where"),
    [(IdrSteps(SnrForIdr), "octopia-idr", "sends"), (TidSteps(NoDetour), "tid", "sends")],
)  # fmt: skip
def test_a_changed_handler_fails_its_vectors(steps: IdrSteps, system: str, where: str) -> None:
    failed: dict[str, str] = {}
    for v in VECTORS[system]:
        got = judge(v.expected, steps.apply(v.pre, v.input))
        if got is not None:
            failed.setdefault(v.handler, got)
    assert set(failed) <= {"Notification", "publish"} and failed, failed
    assert all(f.startswith(where) for f in failed.values()), failed


def test_a_malformed_state_is_refused() -> None:
    v = next(v for v in VECTORS["octopia-snr"] if v.handler == "Notification")
    bad = copy.deepcopy(v.pre)
    bad["node"]["name"] = "n1"
    with pytest.raises(StepInputError, match="B\\(x,i\\)"):
        SYSTEMS["octopia-snr"].apply(bad, v.input)
    with pytest.raises(StepInputError, match="one of"):
        SYSTEMS["octopia-snr"].apply(v.pre, {**v.input, "type": "GroupJoin"})
