"""Installation bookkeeping (reference/sim/installation.py): one rule for every system. A
subscribe completes when every message its installation waits for has arrived (D-OPS), and its
installation latency is recorded once per subscription (O-INSTALL, docs/octopia.md)."""

from __future__ import annotations

import pytest

from pubsub_spec.reference import registry
from pubsub_spec.reference.common.ops import Subscribe
from pubsub_spec.reference.sim.installation import Installation
from pubsub_spec.reference.sim.run import run_trace
from pubsub_spec.reference.thesis.workload import thesis_trace


def test_installed_when_every_expected_message_arrived_latency_recorded_once() -> None:
    inst = Installation(100.0)
    inst.expect(2)
    lat: list[float] = []
    assert not inst.installed and not inst.settle(110.0, lat) and lat == []
    inst.arrived()
    inst.expect()  # a forward sent by the handler of that arrival
    inst.arrived()
    assert not inst.settle(120.0, lat) and lat == []
    inst.arrived()
    assert inst.installed and inst.settle(130.0, lat) and lat == [30.0]
    assert inst.settle(140.0, lat) and lat == [30.0]  # once
    inst.restart(1)  # e.g. the thesis' removal probes on unsubscription
    assert not inst.installed
    inst.arrived()
    assert inst.settle(150.0, lat) and lat == [30.0]


def test_nothing_to_wait_for_is_installed_at_once_with_zero_latency() -> None:
    lat: list[float] = []
    assert Installation(5.0).settle(5.0, lat) and lat == [0.0]


def test_an_unexpected_arrival_is_an_accounting_error() -> None:
    inst = Installation(0.0, 1)
    inst.arrived()
    with pytest.raises(AssertionError, match="not expected"):
        inst.arrived()
    assert inst.pending == 0


@pytest.mark.parametrize("name", sorted(registry.variants()))
def test_one_install_latency_per_subscription(name: str) -> None:
    """Every system records exactly one installation latency per subscription of a run, none
    negative. (Tam over Scribe once recorded two 0 ms latencies for a subscription whose JOINs
    were all absorbed at once, at the subscriber itself.)"""
    _, variant = registry.variants()[name]
    trace = thesis_trace(40, 3, 200, 7)
    subs = sum(isinstance(op, Subscribe) for op in trace.ops)
    lat = run_trace(trace, variant.make).metrics.install_latency_ms
    assert subs == 120 and len(lat) == subs and min(lat) >= 0.0
