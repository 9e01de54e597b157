"""OctopiA Fig. 7 (§VII-B): the four IDR cases on path-3 x K3 with the publisher P at B(b,2),
each produced by a constructed scenario (subscriber placement, overloaded links) and asserted
against the paper's counts: notification IMs of IDR and SNR, brokers that process the
notification, the case IDR takes at each broker, the CIV the CIV-N carries, and the extra
broker on the detour to S1. The text's figure is lost; one placement cannot give all four
cases' counts (A11), so each case has its own. (b)'s "4 brokers" for 4 IMs is an erratum:
copies form a tree from the host (I3), so brokers = IMs + 1, asserted for every run here."""

from __future__ import annotations

import math

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.advertisements import Advertisement
from pubsub_spec.reference.octopia.config import OctopiaConfig
from pubsub_spec.reference.octopia.messages import Message, Notification
from pubsub_spec.reference.octopia.scot import Broker, path_factor
from pubsub_spec.reference.octopia.system import OctopiaSystem

S = Schema("q", (Attribute("v", "int", 0, 100),))
FIG7 = path_factor(3)  # a - b - c
HOST: Broker = ("b", 2)


class Recording(OctopiaSystem):
    """OctopiA recording each notification copy (src, dst, CIV)."""

    def __init__(self, trace: Trace, config: OctopiaConfig, routing: str) -> None:
        self.sent: list[tuple[Broker, Broker, int]] = []
        super().__init__(trace, config, routing)

    def send(self, src: Broker, dst: Broker, msg: Message) -> None:
        if isinstance(msg, Notification):
            self.sent.append((src, dst, msg.civ))
        super().send(src, dst, msg)


def _run(
    place: list[Broker],
    routing: str,
    forced: tuple[tuple[str, int, str, int], ...] = (),
    loads: tuple[tuple[Broker, Broker, int], ...] = (),
) -> Recording:
    """S1..S4 at `place`, all interested in P's one notification; `forced` links overloaded
    (Eq. 10 forced, config `forced_links`); `loads`: (src, dst, q) queues of the last window
    (CE = q / 10, so that A9's "least overloaded" ranks them)."""
    attach = (("P", *HOST), *((f"S{k + 1}", x, i) for k, (x, i) in enumerate(place)))
    cfg = OctopiaConfig(
        acyclic_edges=FIG7.edges,
        m=3,
        attach=attach,
        implicit_advertisements=False,
        forced_links=forced if routing == "idr" else (),
    )
    s = Recording(Trace(schemas=(S,), ops=(), initial_nodes=1), cfg, routing)
    for k in range(len(place)):
        s.subscribe(Subscription(f"s{k + 1}", f"S{k + 1}", "q", (Predicate("v", 0, 10),)), k)
        s.run_to_quiescence()
    s.advertise("P", Advertisement("a", "P", "q", (Predicate("v", 5, 5),)))
    s.run_to_quiescence()
    w = cfg.window_ms
    t1 = math.floor(s.engine.now / w) * w
    for src, dst, q in loads:  # q notifications in and still queued, 10 out, last window
        log = s.queue(src, dst).log
        log.extend([(t1 - 1.5 * w, t1 - 0.5 * w)] * 10 + [(t1 - 0.5 * w, t1 + 1000.0)] * q)
    s.publish(Event("e", "P", "q", (("v", 5),)), 100)
    s.run_to_quiescence()
    assert sorted(d.sub_id for d in s.deliveries) == [f"s{k + 1}" for k in range(len(place))]
    return s


def _brokers(s: Recording) -> int:
    n = len({b for (_, b) in s.receptions})
    assert n == len(s.sent) + 1  # a tree from the host: each broker receives once (I3)
    return n


def _hops_to(s: Recording, target: Broker) -> int:
    parent = {dst: src for src, dst, _ in s.sent}
    hops, b = 0, target
    while b != HOST:
        b, hops = parent[b], hops + 1
    return hops


def _civ_ns(s: Recording) -> list[tuple[Broker, Broker, int]]:
    return [c for c in s.sent if c[2]]


def test_fig7a_case_i_6_ims_each_one_broker_more_to_s1() -> None:
    """(a): B(b,2)->B(b,0) overloaded; the CIV-N with CIV 001 takes B(b,2)->B(b,1), which sends
    one copy to B(b,0) and one to B(c,1): 6 IMs for IDR and SNR, one broker more to S1."""
    place = [("c", 0), ("c", 1), ("a", 2), ("c", 2)]  # S1..S4 (A11's placement)
    idr = _run(place, "idr", forced=(("b", 2, "b", 0),))
    snr = _run(place, "snr")
    assert (len(idr.sent), len(snr.sent)) == (6, 6)
    assert (_brokers(idr), _brokers(snr)) == (7, 7)
    assert idr.metrics.idr_cases["i"] == 1
    assert _civ_ns(idr) == [(HOST, ("b", 1), 0b001)]
    assert {d for s, d, _ in idr.sent if s == ("b", 1)} == {("b", 0), ("c", 1)}
    assert _hops_to(idr, ("c", 0)) == _hops_to(snr, ("c", 0)) + 1


def test_fig7b_case_ii_4_against_5_ims() -> None:
    """(b): every target iLink of B(b,2) overloaded; the CIV-N with CIV 011 rides S4's aLink
    to B(c,2), whose iLinks are free: IDR 4 IMs, SNR 5; brokers 5 against 6 (the paper says
    4 against 6: 4 IMs reach 5 brokers, an erratum)."""
    place = [("c", 0), ("c", 1), ("b", 1), ("c", 2)]
    idr = _run(place, "idr", forced=(("b", 2, "b", 0), ("b", 2, "b", 1)))
    snr = _run(place, "snr")
    assert (len(idr.sent), len(snr.sent)) == (4, 5)
    assert (_brokers(idr), _brokers(snr)) == (5, 6)
    assert idr.metrics.idr_cases["ii"] == 1
    assert _civ_ns(idr) == [(HOST, ("c", 2), 0b011)]
    assert {d for s, d, _ in idr.sent if s == ("c", 2)} == {("c", 0), ("c", 1)}


def test_fig7c_cases_i_ii_iv_5_against_6_ims() -> None:
    """(c): B(b,2)->B(b,0) overloaded: CIV-N 001 to B(b,1) (i); B(b,1)->B(b,0) overloaded too:
    on along S2's aLink to B(c,1) (ii); B(c,1)->B(c,0) overloaded with no free target aLink:
    the overloaded iLink carries it to S1 (iv). IDR 5 IMs and 6 brokers, SNR 6 and 7."""
    place = [("c", 0), ("c", 1), ("a", 2), ("c", 2)]  # S1..S4 (A11's placement)
    forced = (("b", 2, "b", 0), ("b", 1, "b", 0), ("c", 1, "c", 0))
    idr = _run(place, "idr", forced=forced)
    snr = _run(place, "snr")
    assert (len(idr.sent), len(snr.sent)) == (5, 6)
    assert (_brokers(idr), _brokers(snr)) == (6, 7)
    assert {k: idr.metrics.idr_cases[k] for k in ("i", "ii", "iv")} == {"i": 1, "ii": 1, "iv": 1}
    assert _civ_ns(idr) == [(HOST, ("b", 1), 0b001), (("b", 1), ("c", 1), 0b001)]
    assert (("c", 1), ("c", 0), 0) in idr.sent  # bit 0 cleared on the last iLink (A10)


def test_fig7d_case_iv_5_ims_each_one_broker_more_to_s1() -> None:
    """(d): every target link of B(b,2) overloaded (its aLink copy still goes, A8); the CIV-N
    with CIV 001 takes the least overloaded target iLink, B(b,2)->B(b,1) (A9), and B(b,1)
    replicates downstream: 5 IMs for IDR and SNR, one broker more to S1."""
    place = [("c", 0), ("c", 1), ("c", 2), ("c", 2)]
    forced = (("b", 2, "a", 2), ("b", 2, "c", 2), ("b", 2, "b", 0), ("b", 2, "b", 1))
    loads = ((HOST, ("b", 0), 30), (HOST, ("b", 1), 20))
    idr = _run(place, "idr", forced=forced, loads=loads)
    snr = _run(place, "snr")
    assert (len(idr.sent), len(snr.sent)) == (5, 5)
    assert (_brokers(idr), _brokers(snr)) == (6, 6)
    assert idr.metrics.idr_cases["iv"] == 1
    assert _civ_ns(idr) == [(HOST, ("b", 1), 0b001)]
    assert _hops_to(idr, ("c", 0)) == _hops_to(snr, ("c", 0)) + 1
    # with the loads the other way round, A9 picks B(b,0) and the CIV-N carries 010
    swapped = _run(place, "idr", forced=forced, loads=((HOST, ("b", 0), 20), (HOST, ("b", 1), 30)))
    assert _civ_ns(swapped) == [(HOST, ("b", 0), 0b010)]
