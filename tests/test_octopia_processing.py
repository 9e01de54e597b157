"""Broker processing and matching time (decision O-PROC) and TID's dynamic routing (O-TID-DYN,
OctopiA §II), both behind config options, and the subscriber-scalability signs of Fig. 11 in
the paper's setting (bench_octopia experiment 2b at a small size)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.octopia_eval import PAPER_PROC, paper_sub_trace, sub_figures, with_octopia
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.octopia.config import OctopiaConfig, config_of, with_config
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.octopia.tid import TidSystem
from pubsub_spec.reference.sim.run import compare, run_trace


def _fig11(matching: float) -> tuple[float, float]:
    cfg = replace(PAPER_PROC, matching_ms_per_entry=matching)
    f = sub_figures(with_octopia(paper_sub_trace(1, 100, 60, 2), cfg))
    # PRT and IMs do not depend on time: OctopiA's PRT is S·14/70, twice TID's (PADRES
    # entries), and OctopiA sends twice TID's subscription IMs (the paper's signs)
    assert f.prt_octopia == 60 * 14 / 70 and f.prt_octopia > 1.5 * f.prt_tid
    assert f.ims_octopia > 1.5 * f.ims_tid
    return f.delay_octopia, f.delay_tid


def test_subscription_delay_sign_is_the_matching_time() -> None:
    """Fig. 11(a): OctopiA's subscriptions install faster than TID's only when matching costs
    time per routing-table entry (TID holds every advertisement in every SRT, §VIII)."""
    o, t = _fig11(0.1)
    assert o < 0.6 * t
    o0, t0 = _fig11(0.0)
    assert o0 > t0  # without matching time the cluster broadcast is the slower one


def _tid(trace: Trace, **kw: Any) -> TidSystem:
    t2 = with_config(trace, "tid", replace(config_of(trace, "tid"), **kw))
    r = run_trace(t2, lambda t: TidSystem.for_trace(t))
    assert compare(expected_deliveries(t2), r.deliveries).agree
    assert isinstance(r.system, TidSystem)
    return r.system


def _alternatives(s: TidSystem) -> int:
    """(broker, subscription) pairs with two bound TIDs whose lastHops differ (§II)."""
    n = 0
    for prt in s.prt.values():
        hops: dict[str, set[object]] = {}
        for (sid, _), e in prt.items():
            if e.last_hop is not None:
                hops.setdefault(sid, set()).add(e.last_hop)
        n += sum(1 for h in hops.values() if len(h) > 1)
    return n


def test_processing_off_by_default_and_queues_when_on() -> None:
    trace = GENERATORS["uniform"](3, 0, "small")
    assert OctopiaConfig().processing_ms == 0 and OctopiaConfig().matching_ms_per_entry == 0
    off = _tid(trace)
    assert off.busy_until == {} and off.processing_wait_ms == {}
    on = _tid(trace, processing_ms=20.0)
    assert sum(on.processing_wait_ms.values()) > 0  # IMs waited for a busy broker
    r = run_trace(
        with_config(trace, "octopia-idr", OctopiaConfig(processing_ms=5.0, forced_overload=0.5)),
        lambda t: OctopiaSystem.for_trace(t, "octopia-idr", "idr"),
    )
    assert compare(expected_deliveries(trace), r.deliveries).agree


@pytest.mark.parametrize("gen", ["uniform", "partial-lenient", "churn"])
def test_tid_dynamic_routing_switches_and_delivers_exactly_once(gen: str) -> None:
    """O-TID-DYN: on trees formed while brokers are busy (O-PROC), a subscription can have two
    TIDs with different lastHops; overloaded hops are then avoided, exactly once kept."""
    trace = GENERATORS[gen](3, 0, "small")
    kw = {"mean_rtt_ms": 10.0, "processing_ms": 20.0}
    dyn = _tid(trace, tid_dynamic=True, forced_overload=0.5, **kw)
    assert dyn.switches > 0 and _alternatives(dyn) > 0
    static = _tid(trace, forced_overload=0.5, **kw)
    assert static.switches == 0


def test_tid_dynamic_routing_has_no_alternative_on_shortest_path_trees() -> None:
    """Without processing time the flood's first-arrival trees are shortest-latency-path trees:
    two reverse paths of a subscription through a broker share the rest of the path to the
    subscriber, so no lastHops differ and dynamic routing never acts (bench_octopia 4b)."""
    trace = GENERATORS["uniform"](3, 0, "small")
    dyn = _tid(trace, tid_dynamic=True, forced_overload=0.5)
    assert _alternatives(dyn) == 0 and dyn.switches == 0
