"""Costs pinned for every registered system: the messages, bytes and sends per message type of
each variant on its fixed small trace equal tests/data/golden_costs.json exactly (a change in
what a system sends is a reviewed diff of that file: regenerate with
`.venv/bin/python -m tests.golden_costs --write`). A mutant per system that counts one message
more (one extra hop of the first message type it sends) fails the comparison."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.thesis.config import DELIVERY_STRATEGIES, DeliveryStrategy
from pubsub_spec.reference.thesis.info import BUILTIN_OF, with_delivery
from pubsub_spec.reference.thesis.substrate_fast import FastTwoDTreeSystem
from tests import golden_costs
from tests.golden_costs import Make, costs, golden_of, load

GOLDEN = load()
CASES = [(s.name, v.builtin) for s in SYSTEMS.values() for v in s.variants]


def _diff(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    out = [f"deliveries {want['deliveries']} -> {got['deliveries']}"] * (
        want["deliveries"] != got["deliveries"]
    )
    for kind in sorted(set(want["messages"]) | set(got["messages"])):
        a, b = want["messages"].get(kind), got["messages"].get(kind)
        if a != b:
            out.append(f"{kind}: {a} -> {b}")
    return out


def test_every_registered_system_has_golden_costs() -> None:
    assert set(GOLDEN["systems"]) == set(SYSTEMS) == set(golden_costs.TRACES)
    for name, info in SYSTEMS.items():
        entry = GOLDEN["systems"][name]
        assert set(entry["variants"]) == {v.builtin for v in info.variants}, name
        declared = {t.name for t in info.message_types}
        for variant in entry["variants"].values():
            assert declared <= set(variant["messages"]), name
            assert variant["deliveries"] > 0, name
            assert any(c["messages"] for c in variant["messages"].values()), name


@pytest.mark.parametrize(("system", "variant"), CASES)
def test_costs_equal_the_golden_file(system: str, variant: str) -> None:
    info = SYSTEMS[system]
    want = GOLDEN["systems"][system]
    assert want["trace"] == golden_of(info)["trace"]
    got = costs(info, info.variant(variant).make)
    assert got == want["variants"][variant], (
        f"{system}/{variant} sends differently ({'; '.join(_diff(want['variants'][variant], got))})"
        f": if intended, run {golden_costs.COMMAND} and commit the diff"
    )


@pytest.mark.parametrize("delivery", DELIVERY_STRATEGIES)
def test_the_thesis_fast_engine_has_the_reference_costs(delivery: DeliveryStrategy) -> None:
    def make(trace: Trace) -> System[Any]:
        return FastTwoDTreeSystem.for_trace(with_delivery(trace, delivery))

    got = costs(SYSTEMS["thesis"], make)
    assert got == GOLDEN["systems"]["thesis"]["variants"][BUILTIN_OF[delivery]]


# -- the comparison is exact: one message more fails ---------------------------------------
def one_message_more(make: Make) -> Make:
    """Mutant: the system's first hop is counted twice (one extra message of that declared
    type, with its bytes), everything else unchanged."""

    def mutant(trace: Trace) -> System[Any]:
        system = make(trace)
        m = system.metrics
        hop, hops = m.hop, m.hops
        extra = [True]

        def hop_once_more(peer: str, kind: str, size: int) -> None:
            hop(peer, kind, size)
            if extra.pop() if extra else False:
                hop(peer, kind, size)

        def hops_once_more(senders: Sequence[str], kind: str, size: int) -> None:
            hops(senders, kind, size)
            if senders and (extra.pop() if extra else False):
                hop(senders[0], kind, size)

        setattr(m, "hop", hop_once_more)  # noqa: B010 (mypy: a method cannot be assigned)
        setattr(m, "hops", hops_once_more)  # noqa: B010
        return system

    return mutant


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_a_one_message_mutant_fails_the_golden_comparison(system: str) -> None:
    info = SYSTEMS[system]
    variant = info.default_variant
    want = GOLDEN["systems"][system]["variants"][variant]
    got = costs(info, one_message_more(info.variant(variant).make))
    diff = _diff(want, got)
    assert got != want and len(diff) == 1, diff
    kind = diff[0].split(":")[0]
    a, b = want["messages"][kind], got["messages"][kind]
    assert b["messages"] == a["messages"] + 1 and b["sends"] == a["sends"], diff
    assert b["bytes"] > a["bytes"], diff
