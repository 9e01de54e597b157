"""Tests that kill mutants of reference/common/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema
from pubsub_spec.reference.common.ops import (
    Advertise,
    Publish,
    Timing,
    Trace,
    validate_trace,
)

S = Schema("s", (Attribute("a", "int", 0, 100), Attribute("b", "int", 0, 100)))
T = Schema("t", (Attribute("a", "int", 0, 100),))
ADV = Advertise(1, "ad", "n0", "s", (Predicate("a", 10, 20),))


def test_an_advertisement_admits_its_publishers_conforming_events_only() -> None:
    """OctopiA A7 (conformance/FORMAT.md "Advertisements"): same publisher, same schema, every
    advertised attribute present and in range; each condition on its own."""
    assert ADV.admits(Event("e", "n0", "s", (("a", 15),)))
    assert ADV.admits(Event("e", "n0", "s", (("a", 10), ("b", 99))))  # others unconstrained
    assert not ADV.admits(Event("e", "n1", "s", (("a", 15),)))  # another publisher
    assert not ADV.admits(Event("e", "n0", "t", (("a", 15),)))  # another schema
    assert not ADV.admits(Event("e", "n0", "s", (("b", 15),)))  # advertised attribute missing
    assert not ADV.admits(Event("e", "n0", "s", (("a", 21),)))  # out of the range


def _trace(*ops: Advertise | Publish, initial_nodes: int = 2) -> Trace:
    return Trace((S, T), tuple(ops), initial_nodes=initial_nodes)


def test_a_publish_must_name_an_active_advertisement_of_its_own_publisher() -> None:
    """In a trace with advertisements a publish conforms to an active advertisement of its
    publisher (OctopiA §I, A7); the one it names must exist and be the publisher's own."""
    ok = Publish(2, Event("e", "n0", "s", (("a", 15),)), adv="ad")
    validate_trace(_trace(ADV, ok))
    with pytest.raises(InputError, match="'nope' is unknown or inactive"):
        validate_trace(_trace(ADV, Publish(2, Event("e", "n0", "s", (("a", 15),)), adv="nope")))
    with pytest.raises(InputError, match="'ad' is not 'n1''s"):
        validate_trace(_trace(ADV, Publish(2, Event("e", "n1", "s", (("a", 15),)), adv="ad")))


def test_a_trace_needs_an_initial_node() -> None:
    """conformance/FORMAT.md: `config.initial_nodes` >= 1 (a run needs a peer to start from)."""
    with pytest.raises(InputError, match="need at least one initial node") as err:
        validate_trace(_trace(initial_nodes=0))
    assert err.value.field == "config.initial_nodes"
    validate_trace(_trace(initial_nodes=1))


def test_default_timing_is_the_thesis_table_4_1() -> None:
    """Decision D-OPS: exponential inter-arrival times with the thesis' means (Table 4.1:
    t_sub = 2000 ms, t_pub = 1000 ms)."""
    assert Timing() == Timing(sub_interarrival_ms=2000.0, pub_interarrival_ms=1000.0)
    assert Trace((S,), ()).timing == Timing(2000.0, 1000.0)
