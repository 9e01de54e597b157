"""Tests that kill mutants of reference/octopia/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.octopia.advertisements import Advertisement, conforms, overlaps
from pubsub_spec.reference.octopia.civ import bit, bits, civ_of, has
from pubsub_spec.reference.octopia.config import OctopiaCodec, OctopiaConfig
from pubsub_spec.reference.octopia.messages import (
    Adv,
    CibSet,
    Notification,
    Sub,
    Unadv,
    Unsub,
    size_of,
)
from pubsub_spec.reference.octopia.routing import (
    Copy,
    LinkStatus,
    OutputQueue,
    congestion_element,
    idr_copies,
)
from pubsub_spec.reference.octopia.scot import (
    AcyclicFactor,
    Broker,
    Scot,
    _max_flow,
    broker_name,
    complete_graph,
    diameter,
    edge_connectivity,
    fig10_factor,
    is_connected,
    path_factor,
    vertex_connectivity,
)
from pubsub_spec.reference.octopia.subscriptions import SrtEntry, cib_set_targets
from pubsub_spec.reference.octopia.system import BrokerNetwork, OctopiaSystem
from pubsub_spec.reference.octopia.tid import TidSystem
from pubsub_spec.reference.sim.sizes import HEADER, ID

# -- advertisements (§I, A7) ---------------------------------------------------------------

ADV = Advertisement("a1", "p", "q", (Predicate("v", 10, 20), Predicate("w", 0, 50)))


def _sub(*preds: tuple[str, int, int], schema: str = "q") -> Subscription:
    return Subscription("s", "c", schema, tuple(Predicate(a, lo, hi) for a, lo, hi in preds))


def test_advertisement_is_a_value() -> None:
    """An advertisement (§I: a publisher's declaration, PADRES) is a value: equal declarations
    are equal, hashable, usable as set members and keys, and immutable."""
    twin = Advertisement("a1", "p", "q", (Predicate("v", 10, 20), Predicate("w", 0, 50)))
    assert twin == ADV and len({ADV, twin}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        ADV.id = "other"  # type: ignore[misc]


def test_overlap_is_interval_intersection_on_common_attributes() -> None:
    """§I: "an advertisement matches a subscription if both have a non-empty overlap"; A7: the
    closed intervals must intersect on every attribute both constrain, one schema."""
    assert ADV.predicate("w") == Predicate("w", 0, 50) and ADV.predicate("x") is None
    assert overlaps(ADV, _sub(("v", 20, 30)))  # touching closed intervals overlap
    assert overlaps(ADV, _sub(("x", 0, 1)))  # no common attribute: no constraint
    assert not overlaps(ADV, _sub(("v", 21, 30)))  # above
    assert not overlaps(ADV, _sub(("v", 0, 9)))  # below
    assert not overlaps(ADV, _sub(("v", 12, 15), ("w", 60, 70)))  # disjoint on the 2nd
    assert not overlaps(ADV, _sub(("v", 12, 15), schema="other"))


def test_conformance_is_publisher_schema_and_every_range() -> None:
    """A7: an event conforms to an advertisement iff it is its publisher's, of its schema, and
    carries every constrained attribute inside the closed range."""
    ev = Event("e", "p", "q", (("v", 20), ("w", 0)))
    assert conforms(ev, ADV)
    assert not conforms(Event("e", "p2", "q", ev.values), ADV)  # another publisher
    assert not conforms(Event("e", "p", "r", ev.values), ADV)  # another schema
    assert not conforms(Event("e", "p", "q", (("v", 20),)), ADV)  # w missing
    assert not conforms(Event("e", "p", "q", (("v", 21), ("w", 0))), ADV)


def test_civ_bits_indexed_from_the_right() -> None:
    """§IV-C: the CIV has m bits indexed from the right, bit i standing for cluster C_i."""
    assert bit(0) == 1 and bit(3) == 8
    assert bits(0b10110) == (1, 2, 4) and bits(0) == ()
    assert civ_of([0, 2]) == 0b101 and civ_of(set()) == 0
    assert has(0b100, 2) and not has(0b100, 1)


# -- configuration (§VIII, A12; docs/octopia.md) -------------------------------------------


def test_default_configuration_is_fig10_with_the_thesis_latency() -> None:
    """Defaults: Fig. 10's SCOT (A12: 14 x K5 = 70 brokers), θ = 10, ω = 50 ms (§VIII), the
    project's latency model with the thesis' mean RTT of 180 ms (docs/design.md, thesis §4.1.1)."""
    cfg = OctopiaConfig()
    assert cfg.m == 5 and len(Scot(cfg.factor(), cfg.m).brokers) == 70
    assert (cfg.theta, cfg.window_ms, cfg.mean_rtt_ms) == (10.0, 50.0, 180.0)


def test_codec_round_trip_and_domains() -> None:
    """The `octopia-*` trace-header section (conformance/FORMAT.md v2): every field round-trips,
    each is checked against its domain (a probability in [0, 1] for forced_overload; a mean RTT
    above 2 x the latency model's 5 ms base one-way delay; clients and forced links on existing
    brokers B(x, i), 0 <= i < m), and errors name the field."""
    codec = OctopiaCodec("octopia-idr")
    cfg = OctopiaConfig(
        acyclic_edges=(("a", "b"), ("b", "c")),
        m=3,
        mean_rtt_ms=10.5,
        forced_overload=1.0,
        forced_links=(("a", 1, "a", 0), ("b", 0, "c", 0)),
        attach=(("c1", "a", 0), ("c2", "c", 2)),
        overload_rule="both",
        implicit_advertisements=False,
    )
    obj = codec.to_json(cfg)
    assert obj["attach"] == {"c1": ["a", 0], "c2": ["c", 2]}
    assert obj["forced_links"] == [["a", 1, "a", 0], ["b", 0, "c", 0]]
    assert codec.parse(obj, "line 1", ()) == cfg
    assert codec.to_json(OctopiaConfig()) == {}
    assert codec.parse({"forced_overload": 0.0}, "line 1", ()).forced_overload == 0.0
    edges = [["a", "b"]]
    bad: list[tuple[dict[str, Any], str]] = [
        ({"forced_overload": 1.01}, "forced_overload"),
        ({"forced_overload": -0.1}, "forced_overload"),
        ({"mean_rtt_ms": 10}, "mean_rtt_ms"),
        ({"nope": 1}, "nope"),
        ({"acyclic_edges": edges, "m": 2, "attach": {"c": ["a", -1]}}, "attach.c"),
        ({"acyclic_edges": edges, "m": 2, "attach": {"c": ["a", 2]}}, "attach.c"),
        ({"acyclic_edges": edges, "m": 2, "attach": {"c": ["a", True]}}, "attach"),
        ({"acyclic_edges": edges, "m": 2, "attach": {"c": [0, 1]}}, "attach"),
        ({"acyclic_edges": edges, "m": 2, "forced_links": [["a", 0, 1, 0]]}, "forced_links"),
        ({"acyclic_edges": edges, "m": 2, "forced_links": [["a", True, "a", 1]]}, "forced_links"),
        ({"acyclic_edges": edges, "m": 2, "forced_links": [["a", 0, "a", -1]]}, "forced_links"),
        ({"acyclic_edges": edges, "m": 2, "forced_links": [["a", 0, "b", 2]]}, "forced_links"),
    ]
    for o, fld in bad:
        with pytest.raises(InputError) as err:
            codec.parse(o, "line 1", ())
        assert f"config.systems.octopia-idr.{fld}" in str(err.value), o


# -- message sizes (reference/octopia/messages.py: 48-byte header, CIV ceil(m/8), TID 20) ---


def test_message_sizes() -> None:
    """The byte model of the IMs (module doc of messages.py, §VIII "Inter-broker Messages"): a
    48-byte header plus the payload; a CIV costs ceil(m/8) bytes and a TID 20; a CIB_SET of SBP
    carries its subscription (A5), the AFP reply does not; a plain notification carries no CIV
    (civ = 0: only a CIV-N does, §VII-B)."""
    adv = Advertisement("a", "p", "q", (Predicate("v", 0, 1), Predicate("w", 0, 1)))
    sub = _sub(("v", 0, 1), ("w", 0, 1), ("x", 0, 1))
    ev = Event("e", "p", "q", (("v", 0), ("w", 1)))
    assert Notification(ev).civ == 0
    for m, civ in ((1, 1), (5, 1), (8, 1), (9, 2), (16, 2), (17, 3)):
        plain = size_of(Notification(ev), m)
        assert size_of(Notification(ev, civ=1), m) - plain == civ, m
        assert (
            size_of(Adv(adv, ("a", 0)), m) - size_of(Sub(_sub(("v", 0, 1), ("w", 0, 1))), m) == civ
        )
    assert size_of(Notification(ev, tid="t"), 5) - size_of(Notification(ev), 5) == ID == 20
    assert size_of(Adv(adv, ("a", 0), tid="t"), 5) - size_of(Adv(adv, ("a", 0)), 5) == ID
    assert size_of(Sub(sub, tid="t"), 5) - size_of(Sub(sub), 5) == ID
    assert size_of(Unadv("a"), 5) == size_of(Unsub("s"), 5) == HEADER + ID == 68
    assert size_of(Unadv("a", tid="t"), 5) == HEADER + 2 * ID
    assert size_of(Sub(sub), 5) > size_of(Sub(_sub(("v", 0, 1))), 5) > HEADER + ID
    reply, sbp = size_of(CibSet("a", 1), 5), size_of(CibSet("a", 1, sub), 5)
    assert reply > HEADER + ID
    assert sbp - reply == size_of(Sub(sub), 5) - HEADER  # the subscription travels with it
    assert size_of(Notification(ev), 5) > HEADER + ID
    for msg in (Adv(adv, ("a", 0)), Unadv("a"), Sub(sub), Unsub("s"), CibSet("a", 1, sub)):
        assert len({msg, dataclasses.replace(msg)}) == 1  # IMs are values
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(msg, dataclasses.fields(msg)[0].name, None)


# -- the congestion element (§VII-B, Eq. 10, A1, A2, O-QUEUE) -------------------------------


def test_congestion_element_and_the_both_rule() -> None:
    """A2: ΔO = 0 gives CE = inf if ΔI > 0, else 1 (congestion-free: CE = 1). A1's reading
    "both": overloaded iff CE > 1 and q > θ."""
    assert congestion_element(0, 0) == 1.0 and congestion_element(3, 0) == float("inf")
    assert congestion_element(3, 2) == 1.5
    assert LinkStatus(1.5, 11).overloaded(10.0, "both")
    assert not LinkStatus(1.0, 11).overloaded(10.0, "both")  # CE = 1: not > 1
    assert not LinkStatus(1.5, 10).overloaded(10.0, "both")
    assert LinkStatus(1.0, 11).overloaded(10.0, "product")  # CE·q = 11 > 10


def test_lst_row_counts_the_half_open_window() -> None:
    """O-QUEUE (docs/octopia.md): the LST row is the one refreshed at the last window boundary
    t1 = floor(now/ω)ω, counting ΔI (enqueues) and ΔO (departures) over [t1 - ω, t1), and q,
    the notifications enqueued before t1 and still waiting at t1; CE = ΔI/ΔO (Eq. 10)."""
    q = OutputQueue(service_ms=5.0)
    deps = [q.enqueue(t) for t in (5.0, 10.0, 10.0, 12.0, 20.0)]
    assert deps == [10.0, 15.0, 20.0, 25.0, 30.0]  # FIFO, one notification per 5 ms
    # window [10, 20): enqueued at 10, 10, 12 (not 5, not 20); departed at 10, 15 (not 20);
    # waiting at t1 = 20: the one enqueued at 12 (the one enqueued at 20 came after)
    st = q.status(23.0, 10.0)
    assert (st.ce, st.q) == (1.5, 1)
    assert st == q.status(20.0, 10.0)


# -- SCOT graph measures (§III-B, Eqs. 1-4 [R], A12) ----------------------------------------


def test_labels_links_and_fig10_diameter() -> None:
    """§III-B Label Order: broker B(x, i); §IV-A: an iLink joins two brokers of one region, an
    aLink two of one cluster; A12: Fig. 10's G_A is a caterpillar of diameter 5."""
    assert broker_name(("F", 3)) == "B(F,3)"
    s = Scot(fig10_factor(), 5)
    assert s.is_ilink(("F", 0), ("F", 4)) and not s.is_ilink(("F", 0), ("G", 0))
    assert not s.is_ilink(("F", 0), ("G", 1)) and not s.is_ilink(("F", 1), ("F", 1))
    assert s.is_alink(("F", 0), ("G", 0)) and not s.is_alink(("F", 0), ("F", 1))
    assert fig10_factor().diameter() == 5 and diameter(complete_graph(4)) == 1


def test_tree_check_finds_a_cycle_beside_an_isolated_vertex() -> None:
    """Acyclic property (§III-B; A-TREE: connected): n - 1 edges are not enough, a triangle
    next to an isolated vertex is no tree, whichever vertex comes first; K1 is a tree."""
    tri = [("b", "c"), ("c", "d"), ("d", "b")]
    for first in ("a", "b", "c", "d"):
        f = AcyclicFactor.from_edges(tri, vertices=[first] + [v for v in "abcd" if v != first])
        assert f.problem() is not None, first
    assert AcyclicFactor(("a",), ()).problem() is None
    assert is_connected({}) and is_connected({"a": frozenset()})
    assert not is_connected({"a": frozenset(), "b": frozenset("c"), "c": frozenset("b")})


def test_connectivity_of_small_graphs() -> None:
    """κ and λ by Menger (Eqs. 3-4 [R] are checked against them): K1 has κ = λ = 0 (docs:
    "K1 has κ = 0"), K_m has m - 1, a path 1, two triangles sharing a vertex κ = 1, λ = 2."""
    k1 = complete_graph(1)
    assert vertex_connectivity(k1) == edge_connectivity(k1) == 0
    for m in (2, 3, 5):
        assert (
            vertex_connectivity(complete_graph(m)) == edge_connectivity(complete_graph(m)) == m - 1
        )
    bowtie = {
        0: frozenset({1, 2}),
        1: frozenset({0, 2}),
        2: frozenset({0, 1, 3, 4}),
        3: frozenset({2, 4}),
        4: frozenset({2, 3}),
    }
    assert vertex_connectivity(bowtie) == 1 and edge_connectivity(bowtie) == 2


# -- systems on path-3 x K3 (Fig. 7's SCOT) ------------------------------------------------

SCHEMA = Schema("q", (Attribute("v", "int", 0, 100),))
PATH3 = path_factor(3)


def _net(cls: type[BrokerNetwork], attach: dict[str, Broker]) -> BrokerNetwork:
    cfg = OctopiaConfig(
        acyclic_edges=PATH3.edges,
        m=3,
        attach=tuple((c, x, i) for c, (x, i) in sorted(attach.items())),
        implicit_advertisements=False,
    )
    trace = Trace(schemas=(SCHEMA,), ops=(), initial_nodes=1)
    if cls is TidSystem:
        return TidSystem(trace, cfg)
    assert cls is OctopiaSystem
    return OctopiaSystem(trace, cfg, "snr")


def _qsub(sid: str, client: str) -> Subscription:
    return Subscription(sid, client, "q", (Predicate("v", 0, 50),))


def test_late_subscription_is_filtered_at_its_broker_and_figures_are_per_broker() -> None:
    """O-INSTALL (docs/octopia.md): a notification reaching a subscription installed after its
    publish is filtered by sequence number at the subscriber's broker (`filtered_old`), the
    earlier subscription there is delivered once (I1). figures(): SRT and PRT entries per
    broker are the means over the brokers (the "SRT/broker" of Fig. 9(b): scotAFP stores an
    advertisement in its region, m of the |V_A| m brokers, §V); max receptions per (event,
    broker) is 0 before any publication and 1 after (I3)."""
    net = _net(OctopiaSystem, {"p": ("a", 0), "c1": ("c", 0), "c2": ("c", 0)})
    assert isinstance(net, OctopiaSystem)
    assert "max receptions per (event, broker) 0;" in net.figures()[2]
    net.advertise("p", Advertisement("ad", "p", "q", (Predicate("v", 0, 100),)))
    net.subscribe(_qsub("s1", "c1"), 1)
    assert not net.installed("s1")  # its cluster broadcast is under way (O-INSTALL)
    net.run_to_quiescence()
    assert net.installed("s1")
    # 3 SRT entries (region R_a) and 3 PRT entries (cluster C_0) over 9 brokers
    assert sum(net.srt_sizes()) == 3 and sum(net.prt_sizes()) == 3
    assert "SRT entries per broker 0.33, PRT entries per broker 0.33" in net.figures()[1]
    ev = Event("e1", "p", "q", (("v", 7),))
    net.publish(ev, 2)
    net.subscribe(_qsub("s2", "c2"), 3)  # installed at B(c,0) before the copy arrives
    net.run_to_quiescence()
    assert net.deliveries == [Delivery("e1", "s1")]
    assert net.metrics.filtered_old == 1
    assert net.metrics.max_receptions == 1
    assert "max receptions per (event, broker) 1;" in net.figures()[2]


def test_tid_withdrawals_clear_the_reverse_paths() -> None:
    """TID baseline ([20], §II): a subscription is stored as (s, TID, lastHop) along the
    reverse path of every bound TID; its unsubscription follows the same paths and removes
    them; an unadvertisement, flooded like the advertisement, removes the TID's tree: its SRT
    entries and the (s, TID) entries bound to it, at every broker."""
    net = _net(TidSystem, {"p": ("a", 0), "c1": ("c", 2), "c2": ("b", 1)})
    assert isinstance(net, TidSystem)
    net.advertise("p", Advertisement("ad", "p", "q", (Predicate("v", 0, 100),)))
    net.run_to_quiescence()
    assert sum(net.srt_sizes()) == 9  # flooded to every broker
    net.subscribe(_qsub("s1", "c1"), 1)
    net.subscribe(_qsub("s2", "c2"), 2)
    assert not net.installed("s1")  # on its way to the root (O-INSTALL)
    net.run_to_quiescence()
    assert net.installed("s1") and net.installed("s2")
    assert sum(net.prt_sizes()) > 2
    net.unsubscribe("s1")
    net.run_to_quiescence()
    assert all(k[0] == "s2" for b in net.scot.brokers for k in net.prt[b])
    net.unadvertise("ad")
    net.run_to_quiescence()
    assert sum(net.srt_sizes()) == 0 and sum(net.prt_sizes()) == 0


def test_a_new_advertisement_has_no_stc_and_sends_nothing() -> None:
    """§V step 1: the host saves (a, CIV, P) with only its own CIB ON (Fig. 4(a): the CB is the
    host's CI; A4: stored as host_ci plus an empty STC mask); with no subscription anywhere no
    CIB_SET comes back, and a publication reaches no other broker (SNR, §VII-A: copies only
    on PRT lastHops and STC iLinks)."""
    net = _net(OctopiaSystem, {"p": ("b", 1)})
    assert isinstance(net, OctopiaSystem)
    net.advertise("p", Advertisement("ad", "p", "q", (Predicate("v", 0, 100),)))
    net.run_to_quiescence()
    host = net.srt[("b", 1)]["ad"]
    assert (host.host_ci, host.last_hop, host.stc_mask) == (1, None, 0)
    assert {b: e.host_ci for b in net.scot.brokers for e in net.srt[b].values()} == {
        ("b", 0): 1,
        ("b", 1): 1,
        ("b", 2): 1,
    }
    net.publish(Event("e1", "p", "q", (("v", 1),)), 1)
    net.run_to_quiescence()
    assert net.metrics.messages["Notification"] == 0 and net.deliveries == []


def test_cib_set_only_for_advertisements_of_another_cluster() -> None:
    """§VI step (ii) (subscriptions.cib_set_targets): a subscription arriving at B(x, j) sets
    the SCB of, and sends CIB_SET for, the secondary-context entries that overlap it, come from
    another cluster's host and have the SCB OFF."""
    adv = Advertisement("ad", "p", "q", (Predicate("v", 0, 100),))
    srt = {
        "other": SrtEntry(adv, 1, ("x", 1)),
        "same": SrtEntry(adv, 0, ("x", 0)),
        "host": SrtEntry(adv, 0, None),
        "on": SrtEntry(adv, 2, ("x", 2), scb=True),
    }
    assert cib_set_targets(("x", 0), _qsub("s", "c"), srt) == [srt["other"]]


def test_delivery_needs_an_active_matching_subscription() -> None:
    """docs/design.md#delivery (the oracle): an event is delivered to the subscriptions that
    match it and are active for it; the subscriber's broker hands a notification to its client
    only then (`BrokerNetwork.deliver`, §I-II), whatever copy reaches it."""
    for cls in (OctopiaSystem, TidSystem):
        net = _net(cls, {"p": ("a", 0), "c1": ("a", 0), "c2": ("a", 0)})
        net.advertise("p", Advertisement("ad", "p", "q", (Predicate("v", 0, 100),)))
        s1, s2 = _qsub("s1", "c1"), _qsub("s2", "c2")
        net.subscribe(s1, 1)
        net.subscribe(s2, 2)
        net.run_to_quiescence()
        net.unsubscribe("s2")
        net.run_to_quiescence()
        hit, miss = Event("e1", "p", "q", (("v", 7),)), Event("e2", "p", "q", (("v", 70),))
        net.note_publish(hit, 3)
        net.note_publish(miss, 4)
        net.deliver(s2, hit)  # unsubscribed
        net.deliver(s1, miss)  # does not match
        assert net.deliveries == []
        net.deliver(s1, hit)
        assert net.deliveries == [Delivery("e1", "s1")]


def test_sbp_cib_set_sets_the_host_bit_and_completes_installation() -> None:
    """§VI (ii): the subscription, broadcast in its cluster C_0, meets at B(a,0) the secondary
    entry of an advertisement hosted at B(a,1); the SCB goes ON and CIB_SET(adv, s) goes to the
    host, which sets CIB 0 (A5). O-INSTALL: the subscription is installed once its broadcast
    is complete and that CIB_SET has reached the host; then a publication reaches it (SNR: an
    STC copy over the iLink, §VII-A)."""
    net = _net(OctopiaSystem, {"p": ("a", 1), "c1": ("c", 0)})
    assert isinstance(net, OctopiaSystem)
    net.advertise("p", Advertisement("ad", "p", "q", (Predicate("v", 0, 100),)))
    net.run_to_quiescence()
    net.subscribe(_qsub("s1", "c1"), 1)
    net.run_until(lambda: net.metrics.messages["CIB_SET"] == 1)
    assert not net.installed("s1")  # the CIB_SET is on its way
    net.run_to_quiescence()
    assert net.installed("s1") and net.subs["s1"].install.pending == 0
    assert net.srt[("a", 0)]["ad"].scb and net.srt[("a", 1)]["ad"].stc_mask == 0b001
    net.publish(Event("e1", "p", "q", (("v", 1),)), 2)
    net.run_to_quiescence()
    assert net.deliveries == [Delivery("e1", "s1")]


def test_idr_without_target_ilinks_is_case_none() -> None:
    """§VII-B: IDR decides on target iLinks only; with none (t = 0) the broker just follows RPF
    on its aLinks, and the decision is recorded as case "none" (routing.IdrDecision; the
    "IDR cases" of figures() and of the benchmark count the cases, "free" being o = 0 < t)."""
    b = ("b", 0)
    d = idr_copies([b], {}, lambda _: True, lambda _: (0.0, 1.0))
    assert d.case == "none" and d.copies == (Copy(b),)
    free = idr_copies([b], {1: ("a", 1)}, lambda _: False, lambda _: (0.0, 1.0))
    assert free.case == "free" and free.copies == (Copy(b), Copy(("a", 1)))


def test_max_flow_cancels_each_unit_once() -> None:
    """scot._max_flow, the unit-capacity max flow (Edmonds-Karp) behind κ and λ (Menger;
    Eqs. 3-4 [R] are checked against it): on a directed network whose minimum cut is
    {s->a, b->t} the maximum flow is 2, though the first augmenting path s->a->b->t is then
    cancelled through b->a by two later paths that would each re-route it (a flow may cancel
    the one unit on a->b only once)."""
    s, a, b, t, c, d, e, f = range(8)
    arcs = [(s, a), (a, b), (b, t), (s, c), (c, b), (a, d), (d, t), (s, e), (e, b), (a, f), (f, t)]
    cap: dict[tuple[object, object], int] = dict.fromkeys(arcs, 1)
    assert _max_flow(cap, s, t) == 2


@pytest.mark.parametrize("kind", ["snr", "idr", "tid"])
def test_installation_latency_is_the_time_until_the_last_message_arrives(kind: str) -> None:
    """O-INSTALL (docs/octopia.md): a subscription is installed when its cluster broadcast and
    CIB_SETs (TID: its forwards along the reverse paths) have arrived; its latency is that time
    after the subscribe op, recorded once. It was recorded as 0 ms at the subscribe op (found by
    mutation), so `simulate` printed a mean of 0.0 for OctopiA and TID."""
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.reference.common.ops import Subscribe
    from pubsub_spec.reference.sim.run import Driver

    trace = GENERATORS["uniform"](1, 0, "tiny")
    cfg = OctopiaConfig()
    system: BrokerNetwork = (
        TidSystem(trace, cfg) if kind == "tid" else OctopiaSystem(trace, cfg, kind)
    )
    driver = Driver(trace, system)
    for op in trace.ops:
        driver.apply(op)
    driver.finish()
    lat = system.metrics.install_latency_ms
    subs = sum(1 for op in trace.ops if isinstance(op, Subscribe))
    assert len(lat) == subs  # once per subscription, each installed
    assert all(0.0 <= x <= system.engine.now for x in lat)
    assert max(lat) > 0.0  # installation takes messages, hence time


def test_a_notification_finds_the_queue_length_ahead_of_it() -> None:
    """O-QUEUE (docs/octopia.md): a FIFO output queue per directed link, each notification
    taking `service_ms` to leave; the mean q the benchmark prints is the number of
    notifications each one finds ahead of it on arrival: 0, 1, 2 for three arrivals at once,
    0 again once the queue has drained."""
    from pubsub_spec.reference.octopia.routing import OutputQueue

    q = OutputQueue(10.0)
    assert [q.enqueue(0.0) for _ in range(3)] == [10.0, 20.0, 30.0]
    assert (q.q_seen, q.enqueued) == (0 + 1 + 2, 3)
    assert q.enqueue(100.0) == 110.0
    assert (q.q_seen, q.enqueued) == (3, 4)


def test_tid_reports_its_tables_when_an_observer_is_set() -> None:
    """Setting an observer reports the state built before it was set as `state` observations
    with `initial` true (reference/octopia/system.py, conformance/OBSERVATIONS.md): for TID
    every SRT entry (`srt-add`) and every (s, TID) entry of the PRT (`prt-add`)."""
    from pubsub_spec.reference.sim.observe import Observation

    net = _net(TidSystem, {"p": ("a", 0), "c1": ("c", 2), "c2": ("b", 1)})
    net.advertise("p", Advertisement("ad", "p", "q", (Predicate("v", 0, 100),)))
    net.subscribe(_qsub("s1", "c1"), 1)
    net.subscribe(_qsub("s2", "c2"), 2)
    net.run_to_quiescence()
    log: list[Observation] = []
    net.observer = log.append
    names = [o.name for o in log if o.fields.get("initial") is True]
    assert names.count("srt-add") == sum(net.srt_sizes()) == 9
    assert names.count("prt-add") == sum(net.prt_sizes()) > 0


def test_codec_m_is_an_int_from_1_to_64() -> None:
    """The `octopia-*` section's `m`, the clusters K_m of the SCOT G_A x K_m (OctopiA §V; a
    SCOT needs m >= 1, reference/octopia/scot.py): an int in [1, 64]; m = 1, one broker per
    acyclic vertex, is a SCOT too, 0 and 65 are rejected naming the field."""
    codec = OctopiaCodec("octopia-snr")
    assert codec.parse({"m": 1}, "line 1", ()).m == 1
    assert codec.parse({"m": 64}, "line 1", ()).m == 64
    for bad in (0, 65):
        with pytest.raises(InputError, match="m"):
            codec.parse({"m": bad}, "line 1", ())
