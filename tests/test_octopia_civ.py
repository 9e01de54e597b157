"""CIV (OctopiA §IV-C, §V, §VI; docs/octopia.md I4, I5, A3): contexts, Fig. 8's vectors and copies,
CIV correctness at quiescence in any arrival order, subgrouping; mutants rejected."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.properties.octopia.checks import (
    civ_violations,
    partition_violations,
    subgrouping_violations,
)
from pubsub_spec.properties.octopia.mutants import (
    NoAfpPrtCheck,
    NoCibSet,
    ShortBroadcast,
    WrongCibBit,
)
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.advertisements import Advertisement, conforms, overlaps
from pubsub_spec.reference.octopia.civ import AdvertisementContext, SubscriptionContext, civ_str
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.scot import path_factor
from pubsub_spec.reference.octopia.subscriptions import subgroups
from pubsub_spec.reference.octopia.system import OctopiaSystem

S = Schema("q", (Attribute("v", "int", 0, 100), Attribute("w", "int", 0, 100)))
P5 = path_factor(5)
BROKERS = [(x, i) for i in range(3) for x in P5.vertices]


def _system(cls: type[OctopiaSystem], attach: list[tuple[str, str, int]]) -> OctopiaSystem:
    cfg = OctopiaConfig(
        acyclic_edges=P5.edges, m=3, attach=tuple(attach), implicit_advertisements=False
    )
    trace = Trace(schemas=(S,), ops=(), initial_nodes=1)
    return cls(trace, cfg, "snr")


def test_contexts_and_strings() -> None:
    a = AdvertisementContext(host_ci=1).with_cib(0)
    assert civ_str(a.civ(), 3) == "011" and civ_str(a.publication(), 3) == "001"
    assert civ_str(a.tc_mask(ptc=False), 3) == "001"
    assert civ_str(SubscriptionContext(host_ci=0, own_ci=1, scb=True).civ(), 3) == "011"
    try:
        a.with_cib(1)
    except ValueError:
        return
    raise AssertionError("CIB_SET from the host's own cluster must be refused")


def test_overlap_soundness_example() -> None:
    adv = Advertisement("a", "p", "q", (Predicate("v", 10, 20),))
    sub = Subscription("s", "c", "q", (Predicate("v", 20, 30), Predicate("w", 0, 5)))
    ev = Event("e", "p", "q", (("v", 20), ("w", 3)))
    assert conforms(ev, adv) and overlaps(adv, sub)
    assert not overlaps(adv, Subscription("t", "c", "q", (Predicate("v", 21, 30),)))


def test_fig8_civs_and_host_copies() -> None:
    """Fig. 8: P1@B(a,2), P2@B(a,1), P3@B(e,1); TCs read as masks 100, 101, 111 (A3); P2's
    host sends 2 copies, P3's 3 (§VII-A)."""
    attach = [
        ("P1", "a", 2), ("P2", "a", 1), ("P3", "e", 1),
        ("S1", "c", 0), ("S2", "d", 0), ("S3", "c", 1), ("S4", "c", 2),
    ]  # fmt: skip
    sys = _system(OctopiaSystem, attach)
    interest = {"S1": (2, 3), "S2": (3, 3), "S3": (3, 3), "S4": (1, 3)}
    for k, (c, (lo, hi)) in enumerate(interest.items()):
        sys.subscribe(Subscription(f"s{c}", c, "q", (Predicate("v", lo, hi),)), k)
        sys.run_to_quiescence()
    for p in (1, 2, 3):
        sys.advertise(f"P{p}", Advertisement(f"a{p}", f"P{p}", "q", (Predicate("v", p, p),)))
    sys.run_to_quiescence()
    got = []
    for p in (1, 2, 3):
        host = sys.host_of(f"P{p}")
        e = sys.srt[host][f"a{p}"]
        ptc = any(
            sys.host_of(c)[1] == host[1] and lo <= p <= hi for c, (lo, hi) in interest.items()
        )
        got.append(civ_str(AdvertisementContext(e.host_ci, e.stc_mask).tc_mask(ptc), 3))
    assert got == ["100", "101", "111"]
    for p, want in ((1, 1), (2, 2), (3, 3)):
        before = sys.metrics.peer_messages[
            (f"B({sys.host_of(f'P{p}')[0]},{sys.host_of(f'P{p}')[1]})", "Notification")
        ]
        sys.publish(Event(f"e{p}", f"P{p}", "q", (("v", p),)), 100 + p)
        host = sys.host_of(f"P{p}")
        after = sys.metrics.peer_messages[(f"B({host[0]},{host[1]})", "Notification")]
        sys.run_to_quiescence()
        assert after - before == want
    assert sorted((d.event_id, d.sub_id) for d in sys.deliveries) == sorted(
        [("e1", "sS4"), ("e2", "sS1"), ("e2", "sS4")]
        + [("e3", s) for s in ("sS1", "sS2", "sS3", "sS4")]
    )


# Scenario ops: ("sub", client, lo, hi) or ("adv", publisher, lo, hi), in any order.
_op = st.tuples(
    st.sampled_from(["sub", "adv"]), st.integers(0, 8), st.integers(0, 100), st.integers(0, 30)
)


def _run(
    cls: type[OctopiaSystem], ops: list[tuple[str, int, int, int]]
) -> tuple[OctopiaSystem, list[Subscription]]:
    attach = [(f"c{k}", *BROKERS[(k * 4) % len(BROKERS)]) for k in range(9)]
    attach = [(c, str(x), int(i)) for c, x, i in attach]
    sys = _system(cls, attach)
    subs: list[Subscription] = []
    for n, (kind, c, lo, width) in enumerate(ops):
        pred = (Predicate("v", lo, min(100, lo + width)),)
        if kind == "sub":
            s = Subscription(f"s{n}", f"c{c}", "q", pred)
            subs.append(s)
            sys.subscribe(s, n)
        else:
            sys.advertise(f"c{c}", Advertisement(f"a{n}", f"c{c}", "q", pred))
        if n % 2 == 0:  # sometimes quiescent, sometimes interleaved (any arrival order)
            sys.run_to_quiescence()
    sys.run_to_quiescence()
    return sys, subs


@settings(max_examples=30)
@given(st.lists(_op, min_size=1, max_size=12))
def test_civ_and_subgrouping_correct(ops: list[tuple[str, int, int, int]]) -> None:
    sys, subs = _run(OctopiaSystem, ops)
    assert civ_violations(sys, subs) == []
    assert subgrouping_violations(sys, subs) == []
    # at most one CIB_SET per (adv, cluster) (I4)
    assert sys.metrics.messages["CIB_SET"] <= len(sys.adverts) * 2


_FIXED = [("sub", 1, 10, 20), ("adv", 0, 0, 100), ("sub", 2, 50, 10), ("sub", 5, 60, 5)]


def test_civ_mutants_rejected() -> None:
    assert civ_violations(*_run(OctopiaSystem, _FIXED)) == []
    assert civ_violations(*_run(WrongCibBit, _FIXED)) != []
    assert civ_violations(*_run(NoCibSet, _FIXED)) != []  # subscriptions after the adv
    # the subscriptions are all stored before the advertisement is issued (index 2 quiesces)
    late_adv = [("sub", 1, 10, 20), ("sub", 2, 50, 10), ("sub", 3, 0, 5), ("adv", 0, 0, 100)]
    assert civ_violations(*_run(OctopiaSystem, late_adv)) == []
    assert civ_violations(*_run(NoAfpPrtCheck, late_adv)) != []  # subscriptions before it


def test_subgrouping_mutant_rejected() -> None:
    assert subgrouping_violations(*_run(ShortBroadcast, _FIXED)) != []


@settings(max_examples=20)
@given(st.lists(st.integers(0, 2), max_size=10))
def test_subgroups_partition(clusters: list[int]) -> None:
    subs = [
        Subscription(f"s{k}", f"c{c}", "q", (Predicate("v", 0, 1),)) for k, c in enumerate(clusters)
    ]
    groups = subgroups(subs, lambda s: int(s.subscriber[1:]), 3)
    assert partition_violations(groups, [s.id for s in subs]) == []
    assert all(int(s.subscriber[1:]) == j for j, g in enumerate(groups) for s in g)
    if subs:  # a subgrouping that drops one subscription is rejected
        dropped = [g[1:] if g else g for g in groups]
        assert partition_violations(dropped, [s.id for s in subs]) != []
