"""Step vectors of tam and tam-basic (conformance/steps/tam.py, docs/steps.md): the one-peer
harness does at a peer what the whole simulated network does there, the committed vectors are
the ones the generator makes from the current reference, refused inputs say why, and a changed
handler fails a vector naming the field."""

from __future__ import annotations

import copy
from collections import defaultdict
from dataclasses import replace

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.conformance.steps import tam, tam_model
from pubsub_spec.conformance.steps.base import StepInputError, canonical, first_difference
from pubsub_spec.conformance.steps.tam import SYSTEMS, TamBasicSteps, TamSteps, recorded
from pubsub_spec.conformance.steps.vectors import choose, judge, load, root
from pubsub_spec.reference.common.model import Event
from pubsub_spec.reference.sim.observe import send as sent
from pubsub_spec.reference.tam.config import BASIC_SECTION, SECTION, IndexPolicy, config_of
from pubsub_spec.reference.tam.messages import TamNotify
from pubsub_spec.reference.tam.system import TamBasicSystem, TamSystem, hex_key

NAMES = ("tam", "tam-basic")
VECTORS = {name: load(only=(name,)) for name in NAMES}


@pytest.mark.parametrize("system", NAMES)
@pytest.mark.parametrize("policy", ["first", "all"])
def test_the_harness_does_what_the_network_does(system: str, policy: IndexPolicy) -> None:
    trace = GENERATORS["uniform"](1, 0, "tiny")
    section = SECTION if system == "tam" else BASIC_SECTION
    trace = trace.with_section(section, replace(config_of(trace, section), index_policy=policy))
    steps = recorded(system, trace)
    assert len({tam._kind(s.input) for s in steps}) >= 4
    for s in steps:
        got = SYSTEMS[system].apply(s.pre, s.input)
        assert got.invalid is None, (s.input, got.invalid)
        assert first_difference(s.post, got.post, "post") is None
        assert first_difference(s.sent, got.sends, "sends") is None


@pytest.mark.parametrize("system", NAMES)
def test_the_committed_vectors_are_the_generators(system: str) -> None:
    """Freshness: regenerated from the current reference, byte for byte (the model-derived
    ones when the TLA+ checker is installed: tests/test_steps_model_tam.py)."""
    chosen = list(choose(SYSTEMS[system]))
    model = tam_model.available()
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


def test_refused_inputs_say_why() -> None:
    for system in NAMES:
        (v,) = [v for v in VECTORS[system] if v.case == "not-the-subscriber"]
        assert v.expected.invalid is not None and "subscriber" in v.expected.invalid
    left = [v for v in VECTORS["tam"] if v.case.endswith("-notmember")]
    assert left and all("refused" in str(v.expected.invalid) for v in left)


class NoSeenList(TamSystem):
    """Tam et al. §3.6 broken: under the `all` policy a peer matches a publication again at
    each of its index trees (no seen-list)."""

    def deliver(self, pid: int, group: int, payload: Event) -> None:
        self.seen_list = False
        super().deliver(pid, group, payload)


class HomeNotifiesAll(TamBasicSystem):
    """§3.2 broken: the home notifies every stored subscription's subscriber, matching or not."""

    def _match_at_home(self, pid: int, key: int, event: Event) -> None:
        by_peer: dict[int, list[str]] = defaultdict(list)
        for sid in sorted(self.store[pid].get(key, {})):
            s = self._eligible(sid, event)
            if s is not None:
                by_peer[self.pid_of[s.subscriber]].append(s.id)
        for dst in sorted(by_peer):
            if self.observer is not None and dst != pid:
                self.observe(sent("TamNotify", self.name_of[pid], self.name_of[dst],
                                  event=event.id, key=hex_key(key), subs=by_peer[dst]))  # fmt: skip
            self._route(pid, None, TamNotify(event, tuple(by_peer[dst])), dst)


@pytest.mark.parametrize(
    ("steps", "system", "handler", "where"),
    [(TamSteps(NoSeenList), "tam", "ScribeMulticast", "post.node.seen"),
     (TamBasicSteps(HomeNotifiesAll), "tam-basic", "TamPublish", "sends")],
)  # fmt: skip
def test_a_changed_handler_fails_its_vectors(
    steps: TamSteps, system: str, handler: str, where: str
) -> None:
    failed: dict[str, str] = {}
    for v in VECTORS[system]:
        got = judge(v.expected, steps.apply(v.pre, v.input))
        if got is not None:
            failed.setdefault(v.handler, got)
    assert handler in failed and failed[handler].startswith(where), failed


def test_a_malformed_state_is_refused() -> None:
    v = next(v for v in VECTORS["tam"] if v.handler == "ScribeJoin" and v.expected.sends)
    bad = copy.deepcopy(v.pre)
    bad["context"]["routes"] = {}  # the overlay's answer the JOIN needs
    with pytest.raises(StepInputError, match="routes"):
        SYSTEMS["tam"].apply(bad, v.input)
    with pytest.raises(StepInputError, match="hex"):
        SYSTEMS["tam"].apply(v.pre, {**v.input, "key": "XYZ"})
