"""Exactly-once agreement with the oracle (docs/octopia.md I1, I3) for octopia-snr, octopia-idr
and tid on every conformance generator their features cover, forced and natural (burst) overloads,
explicit advertisements, IDR's cases as pure functions, and the routing mutants rejected."""

from __future__ import annotations

import math

import pytest

from pubsub_spec.conformance.generators import GENERATORS
from pubsub_spec.properties.octopia.checks import delivery_violations
from pubsub_spec.properties.octopia.mutants import (
    CivOnTwoLinks,
    LoopingDetour,
    SnrOnILinks,
    TidIgnoresTid,
    octopia_factory,
    tid_factory,
)
from pubsub_spec.properties.octopia.workloads import burst_trace
from pubsub_spec.reference.common.ops import Publish, Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.octopia.advertisements import Advertisement
from pubsub_spec.reference.octopia.config import OctopiaConfig, with_config
from pubsub_spec.reference.octopia.info import INFOS, OCTOPIA_IDR
from pubsub_spec.reference.octopia.routing import (
    Copy,
    LinkStatus,
    OutputQueue,
    congestion_element,
    idr_copies,
)
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.octopia.tid import TidSystem
from pubsub_spec.reference.sim.run import Driver, compare
from pubsub_spec.reference.sim.system import missing_features

CASES = [(g, p, s) for g in sorted(GENERATORS) for p, s in (("tiny", 1), ("tiny", 2), ("small", 3))]


@pytest.mark.parametrize(("gen", "profile", "seed"), CASES)
def test_agree_on_generators(gen: str, profile: str, seed: int) -> None:
    trace = GENERATORS[gen](seed, 0, profile)
    for info in INFOS:
        assert missing_features(trace, info.features) is None
        bad, _ = delivery_violations(trace, info.variants[0].make)
        assert bad == [], (info.name, bad)


@pytest.mark.parametrize("p", [0.5, 1.0])
def test_idr_agrees_under_forced_overload(p: float) -> None:
    for gen in ("uniform", "partial-lenient", "churn"):
        trace = GENERATORS[gen](7, 0, "small")
        trace = with_config(trace, "octopia-idr", OctopiaConfig(forced_overload=p))
        bad, system = delivery_violations(trace, OCTOPIA_IDR.variants[0].make)
        assert bad == []
        assert isinstance(system, OctopiaSystem) and system.metrics.civ_n > 0


def test_burst_forces_overload_and_detours() -> None:
    """An HRP burst (§VIII) makes Eq. 10 fire at its host: IDR detours in cases (i), (ii)
    and (iv), and all three systems still deliver exactly the oracle's set."""
    trace = burst_trace(1)
    for info in INFOS:
        bad, system = delivery_violations(trace, info.variants[0].make)
        assert bad == [], (info.name, bad)
        if info is OCTOPIA_IDR:
            assert isinstance(system, OctopiaSystem)
            cases = system.metrics.idr_cases
            assert cases["i"] > 0 and cases["ii"] > 0 and cases["iv"] > 0
            assert system.metrics.civ_n > 0


def _explicit(make: type[OctopiaSystem] | type[TidSystem], trace: Trace, late: bool) -> list[str]:
    """Explicit advertise(): whole-schema advertisements, all before the first publish, or
    (late) each just before its publisher's first publish, when subscriptions are stored."""
    cfg = OctopiaConfig(implicit_advertisements=False)
    system = make(trace, cfg, "idr") if make is OctopiaSystem else TidSystem(trace, cfg)
    pubs = sorted(
        {(op.event.publisher, op.event.schema) for op in trace.ops if hasattr(op, "event")}
    )
    advs = [Advertisement(f"A{k}", p, s, ()) for k, (p, s) in enumerate(pubs)]
    driver = Driver(trace, system)
    done: set[str] = set()
    for op in trace.ops:
        if isinstance(op, Publish) and (late or not done):
            for a in advs:  # late: each publisher advertises just before its first publish
                if a.id not in done and (not late or a.publisher == op.event.publisher):
                    system.run_to_quiescence()
                    system.advertise(a.publisher, a)
                    system.run_to_quiescence()
                    done.add(a.id)
        driver.apply(op)
    got = driver.finish().deliveries
    c = compare(expected_deliveries(trace), got)
    return [] if c.agree else [c.summary()]


@pytest.mark.parametrize("late", [False, True])
def test_explicit_advertisements(late: bool) -> None:
    trace = GENERATORS["uniform"](4, 0, "small")
    assert _explicit(OctopiaSystem, trace, late) == []
    assert _explicit(TidSystem, trace, late) == []


def test_unadvertise_removes_the_region_entries() -> None:
    trace = GENERATORS["uniform"](4, 0, "tiny")
    s = OctopiaSystem(trace, OctopiaConfig(), "snr")
    aid = sorted(s.adverts)[0]
    assert sum(aid in s.srt[b] for b in s.scot.brokers) == s.scot.m  # I6: region only
    s.unadvertise(aid)
    s.run_to_quiescence()
    assert all(aid not in s.srt[b] for b in s.scot.brokers)
    t = TidSystem(trace, OctopiaConfig())
    assert all(aid in t.srt[b] for b in t.scot.brokers)  # flooding: every broker
    t.unadvertise(aid)
    t.run_to_quiescence()
    assert all(aid not in t.srt[b] for b in t.scot.brokers)


def test_tid_flooding_costs_2e_minus_n_plus_1() -> None:
    """A16: flooding one advertisement on the 70-broker SCOT costs 2|E| - (n-1) = 341 IMs, of
    which 341 - (n-1) = 272 are discarded duplicates; scotAFP costs m-1 = 4 plus replies."""
    trace = GENERATORS["uniform"](4, 0, "tiny")
    t = TidSystem(trace, OctopiaConfig())
    n_adv = len(t.adverts)
    assert t.metrics.messages["Advertisement"] == 341 * n_adv
    assert t.metrics.duplicates_discarded == 272 * n_adv
    o = OctopiaSystem(trace, OctopiaConfig(), "snr")
    assert o.metrics.messages["Advertisement"] == 4 * n_adv


# -- IDR as a pure function (§VII-B) -----------------------------------------------------
A1, A2 = ("y", 0), ("z", 0)
IL = {1: ("x", 1), 2: ("x", 2), 3: ("x", 3)}


def _rank(b: tuple[str, int]) -> tuple[float, float]:
    return (float(b[1]), 1.0)


def test_idr_case_i() -> None:
    d = idr_copies([A1], IL, lambda b: b in (IL[1], IL[3]), _rank)
    assert d.case == "i" and d.copies == (Copy(A1), Copy(IL[2], 0b1010))  # n(a + t - o)


def test_idr_case_ii() -> None:
    d = idr_copies([A1, A2], IL, lambda b: b in IL.values() or b == A1, _rank)
    assert d.case == "ii" and d.copies == (Copy(A1), Copy(A2, 0b1110))  # n·a


def test_idr_case_iv_and_bit_clearing() -> None:
    d = idr_copies([A1], IL, lambda b: True, _rank)
    assert d.case == "iv" and d.copies == (Copy(A1), Copy(IL[1], 0b1100))  # n(a + 1)
    one = idr_copies([], {2: IL[2]}, lambda b: True, _rank)
    assert one.copies == (Copy(IL[2], 0),)  # sending to k clears bit k (A10)


def test_congestion_element_and_eq10() -> None:
    assert congestion_element(3, 0) == math.inf and congestion_element(0, 0) == 1.0  # A2
    assert LinkStatus(2.0, 6).overloaded(10.0) and not LinkStatus(1.0, 10).overloaded(10.0)
    assert LinkStatus(2.0, 11).overloaded(10.0, "both")
    assert not LinkStatus(math.inf, 0).overloaded(10.0)
    q = OutputQueue(service_ms=1.0)
    for k in range(40):
        q.enqueue(k * 0.25)  # 4 in per ms, 1 out per ms
    st = q.status(10.0, 5.0)  # window [5, 10): ΔI 20, ΔO 5 (k = 4..8), q at 10 ms = 30
    assert (st.ce, st.q) == (4.0, 30) and st.overloaded(10.0)


# -- mutants (docs/octopia.md) ------------------------------------------------------------------
def test_routing_mutants_rejected() -> None:
    trace = with_config(
        GENERATORS["uniform"](7, 0, "small"), "octopia-idr", OctopiaConfig(forced_overload=0.7)
    )
    for cls in (CivOnTwoLinks, LoopingDetour):
        bad, _ = delivery_violations(trace, octopia_factory(cls, "octopia-idr", "idr"))
        assert bad != [], cls.__name__
    plain = GENERATORS["uniform"](7, 0, "small")
    bad, _ = delivery_violations(plain, octopia_factory(SnrOnILinks, "octopia-snr", "snr"))
    assert bad != []
    bad, _ = delivery_violations(plain, tid_factory(TidIgnoresTid))
    assert bad != []


def test_looping_detour_is_caught_by_reception_count() -> None:
    trace = burst_trace(1)
    bad, _ = delivery_violations(trace, octopia_factory(LoopingDetour, "octopia-idr", "idr"))
    assert any("received a notification" in b for b in bad)


def test_deterministic_runs() -> None:
    trace = with_config(
        GENERATORS["uniform"](9, 0, "tiny"), "octopia-idr", OctopiaConfig(forced_overload=0.5)
    )
    from pubsub_spec.reference.sim.run import run_trace

    for info in INFOS:
        a = run_trace(trace, info.variants[0].make)
        b = run_trace(trace, info.variants[0].make)
        assert a.event_log_hash == b.event_log_hash and a.deliveries == b.deliveries
