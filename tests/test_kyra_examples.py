"""The worked examples of Kyra (Cao & Singh, INFOCOM 2004) rebuilt from Fig. 1's subscriptions
(docs/kyra.md, "Worked examples"; §2.2, §2.7): Siena's tables of Fig. 2, the multicast memberships
of Fig. 3, Kyra's zones, proxy subscriptions, trees and tables of Fig. 4, the paths of event 9, and
errata K-E1 and K-E2."""

from __future__ import annotations

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace
from pubsub_spec.reference.kyra.config import KyraConfig
from pubsub_spec.reference.kyra.filters import RoutingTable
from pubsub_spec.reference.kyra.hac import cluster_server_cliques
from pubsub_spec.reference.kyra.siena import SienaSystem
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.kyra.zones import Box, Zone, equal_width
from pubsub_spec.reference.sim.run import Driver

# Servers A..H are the trace's nodes n0..n7 (docs/kyra.md, "Mapping a trace onto a service
# network").
LETTERS = "ABCDEFGH"
N = {c: f"n{i}" for i, c in enumerate(LETTERS)}
L = {v: k for k, v in N.items()}
SCHEMA = Schema("fig", (Attribute("v", "int", 0, 9),))
# Fig. 1: the subscriptions submitted to each server (a value set = one equality per value).
FIG1 = {"A": {1, 5}, "B": {7, 8}, "C": {1, 2}, "D": {0, 6}, "E": {3, 5}, "F": {5, 7},
        "G": {4, 6}, "H": {2, 9}}  # fmt: skip


def _sub(server: str, v: int) -> Subscription:
    return Subscription(f"{server}{v}", N[server], "fig", (Predicate("v", v, v),))


def _event(eid: str, at: str, v: int) -> Event:
    return Event(eid, N[at], "fig", (("v", v),))


def fig_trace(events: tuple[tuple[str, int], ...] = (("A", 9),)) -> Trace:
    ops: list[Op] = []
    for server in LETTERS:
        for v in sorted(FIG1[server]):
            ops.append(Subscribe(len(ops), _sub(server, v)))
    for i, (at, v) in enumerate(events):
        ops.append(Publish(len(ops), _event(f"e{i}", at, v)))
    # Fig. 4's zones are the equal-width ones (K-D2); the balanced cut (K-D17) of Fig. 1's
    # subscriptions is as balanced (test_fig4_zones_are_balanced_too) but cuts elsewhere
    trace = Trace((SCHEMA,), tuple(ops), initial_nodes=8)
    return trace.with_section("kyra", KyraConfig(zones="equal-width"))


def values(table: RoutingTable, neighbour: str) -> set[int]:
    """The value-set view of Figs. 2 and 4: the events a direction's entries admit."""
    entries = table.entries.get(N[neighbour], {})
    return {
        v for v in range(10) for f in entries.values()
        if f.admits(_event("x", "A", v), (v,), "strict")
    }  # fmt: skip


def rng(text: str) -> set[int]:
    """'0-2,5' -> {0, 1, 2, 5}."""
    out: set[int] = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out


def run(system: KyraSystem | SienaSystem, trace: Trace) -> None:
    d = Driver(trace, system)
    for op in trace.ops:
        d.apply(op)
    d.finish()


# -- Fig. 2: filter-based routing (§II.A) ----------------------------------------------------
FIG2_EDGES = [("A", "C"), ("B", "C"), ("C", "D"), ("C", "E"), ("E", "F"), ("F", "G"), ("G", "H")]
FIG2_TABLES = {
    "A": {"C": "0-9"}, "B": {"C": "0-7,9"},
    "C": {"A": "1,5", "B": "7-8", "D": "0,6", "E": "2-7,9"},
    "D": {"C": "1-9"}, "E": {"C": "0-2,5-8", "F": "2,4-7,9"},
    "F": {"E": "0-3,5-8", "G": "2,4,6,9"}, "G": {"F": "0-3,5-8", "H": "2,9"},
    "H": {"G": "0-8"},
}  # fmt: skip


def siena_fig2() -> SienaSystem:
    trace = fig_trace()
    s = SienaSystem(trace, edges=[tuple(sorted((N[a], N[b]))) for a, b in FIG2_EDGES])  # type: ignore[misc]
    run(s, trace)
    return s


def test_fig2_siena_tables() -> None:
    s = siena_fig2()
    for server, row in FIG2_TABLES.items():
        got = {L[n]: values(s.tables[N[server]], L[n]) for n in s.adj[N[server]]}
        assert got == {n: rng(v) for n, v in row.items()}, server
    # 85 values held in all (docs/kyra.md, "Worked examples")
    assert sum(len(rng(v)) for row in FIG2_TABLES.values() for v in row.values()) == 85


def test_fig2_event9_path_and_matches() -> None:
    s = siena_fig2()
    # §II.A: event 9 published at A is matched at C, E, F, G before reaching H: 5 messages.
    assert s.metrics.messages["EventRoute"] == 5
    relays = {L[x] for x, n in s.metrics.uninterested.items() if n}
    assert relays == {"A", "C", "E", "F", "G"}  # A publishes; C, E, F, G relay
    assert [(d.event_id, d.sub_id) for d in s.deliveries] == [("e0", "H9")]


# -- Fig. 3: multicast groups (§II.B) -----------------------------------------------------------
def test_fig3_memberships_from_groups() -> None:
    """Each group spans every server with a subscription on an event of the group."""
    groups = {"g0": {5, 8}, "g1": {0, 1, 4, 6}, "g2": {2, 3, 7, 9}}
    members = {
        g: {s for s, vals in FIG1.items() if vals & evs} for g, evs in groups.items()
    }  # fmt: skip
    assert members == {"g0": set("ABEF"), "g1": set("ACDG"), "g2": set("BCEFH")}
    # event 9 goes to g2: B receives it needlessly, G (Siena's relay) is skipped
    assert "B" in members["g2"] and 9 not in FIG1["B"] and "G" not in members["g2"]
    assert sum(len(m) for m in members.values()) == 13  # tree memberships (docs/kyra.md)


# -- Fig. 4: Kyra (§III) -----------------------------------------------------------------------
FIG4_CLIQUES = [("A", "B", "C"), ("D", "E"), ("F", "G", "H")]
FIG4_EDGES = {("A", "D"), ("D", "F"), ("D", "E"), ("E", "B"), ("B", "G"), ("E", "C"), ("C", "H")}


def kyra_fig4(events: tuple[tuple[str, int], ...] = (("A", 9),)) -> KyraSystem:
    trace = fig_trace(events)

    def weight(a: str, b: str) -> float:  # the paper's tree edges are the MSTs
        return 1.0 if (L[a], L[b]) in FIG4_EDGES or (L[b], L[a]) in FIG4_EDGES else 10.0

    cliques = [tuple(N[x] for x in c) for c in FIG4_CLIQUES]
    k = KyraSystem(trace, cliques=cliques, weight=weight)
    run(k, trace)
    return k


def test_fig4_zones_and_trees() -> None:
    k = kyra_fig4()
    lay = k.layouts["fig"]
    zones = {L[s]: (z.dims[0].lo, z.dims[0].hi) for s, z in lay.zones.items()}
    # half-open [lo, hi) except the last, closed (K-D1): A 0-3 B 4-6 C 7-9, D 0-4 E 5-9
    assert zones == {"A": (0, 4), "B": (4, 7), "C": (7, 9), "D": (0, 5), "E": (5, 9),
                     "F": (0, 4), "G": (4, 7), "H": (7, 9)}  # fmt: skip
    assert [(t.zone.dims[0].lo, t.zone.dims[0].hi) for t in lay.trees] == [(0, 4), (4, 7), (7, 9)]
    assert [{L[m] for m in t.members} for t in lay.trees] == [set("ADF"), set("BDEG"), set("CEH")]
    edges = [{tuple(sorted((L[a], L[b]))) for a in t.adj for b in t.adj[a]} for t in lay.trees]
    assert edges == [{("A", "D"), ("D", "F")}, {("D", "E"), ("B", "E"), ("B", "G")},
                     {("C", "E"), ("C", "H")}]  # fmt: skip


def test_fig4_proxy_subscriptions_with_erratum_k_e1() -> None:
    k = kyra_fig4()
    proxy = {L[s]: {f.sub.predicates[0].lo for f in fr.values()} for s, fr in k.proxy.items()}
    # Fig. 4's column; B holds {5} (A{1,5} overlaps B's zone 4-6), not "-" (erratum K-E1)
    assert proxy == {"A": {1, 2}, "B": {5}, "C": {7, 8}, "D": {0, 3}, "E": {5, 6},
                     "F": {2}, "G": {4, 5, 6}, "H": {7, 9}}  # fmt: skip


FIG4_TABLES = {
    ("A", 0): {"D": "0,2,3"}, ("B", 1): {"E": "5,6", "G": "4-6"}, ("C", 2): {"E": "", "H": "7,9"},
    ("D", 0): {"A": "1,2", "F": "2"}, ("D", 1): {"E": "4-6"}, ("E", 1): {"B": "4-6", "D": ""},
    ("E", 2): {"C": "7-9"}, ("F", 0): {"D": "0-3"}, ("G", 1): {"B": "5,6"}, ("H", 2): {"C": "7,8"},
}  # fmt: skip


def test_fig4_routing_tables() -> None:
    k = kyra_fig4()
    for (server, t), row in FIG4_TABLES.items():
        tree = k.layouts["fig"].trees[t]
        table = k.table(N[server], tree.name)
        got = {L[n]: values(table, L[n]) for n in tree.adj[N[server]]}
        assert got == {n: rng(v) for n, v in row.items()}, (server, t)
    # docs/kyra.md, "Worked examples": 30 values held in Kyra's tables against Siena's 85
    assert sum(len(rng(v)) for row in FIG4_TABLES.values() for v in row.values()) == 30


def test_fig4_event9_path() -> None:
    k = kyra_fig4()
    # §III: event 9 at A goes to C (zone 7-9), then on t2 to H: two messages against five
    assert k.metrics.messages["EventToZone"] == 1 and k.metrics.messages["EventRoute"] == 1
    assert k.metrics.peer_messages[(N["A"], "EventToZone")] == 1
    assert k.metrics.peer_messages[(N["C"], "EventRoute")] == 1
    assert [(d.event_id, d.sub_id) for d in k.deliveries] == [("e0", "H9")]


def test_fig4_every_event_exactly_once() -> None:
    events = tuple((p, v) for p in "ADG" for v in range(10))
    k = kyra_fig4(events)
    got = sorted((d.event_id, d.sub_id) for d in k.deliveries)
    want = sorted(
        (f"e{i}", f"{s}{v}") for i, (_, v) in enumerate(events) for s in LETTERS
        if v in FIG1[s]
    )  # fmt: skip
    assert got == want


def test_unrestricted_proxy_mutant_duplicates() -> None:
    """docs/kyra.md, "Invariants and mutants": a proxy that delivers without the zone check (s not
    restricted to Z_z) duplicates: D's subscription [3, 6] is held by D (0-4) and E (5-9), both
    on t1."""
    trace = Trace(
        (SCHEMA,),
        (
            Subscribe(0, Subscription("s", N["D"], "fig", (Predicate("v", 3, 6),))),
            Publish(1, _event("e", "B", 5)),
        ),
        initial_nodes=8,
    )

    class Unrestricted(KyraSystem):
        def _route(self, y: str, tree: object, event: Event, came: str | None) -> None:
            lay = self.layouts[event.schema]
            z = lay.zones[y]
            # the mutant: the zone check always passes (proxy stores s, not s ∩ Z_z)
            lay.zones[y] = Box((Zone(0, 9, True),))
            try:
                super()._route(y, tree, event, came)  # type: ignore[arg-type]
            finally:
                lay.zones[y] = z

    cliques = [tuple(N[x] for x in c) for c in FIG4_CLIQUES]
    for cls, n in ((KyraSystem, 1), (Unrestricted, 2)):
        k = cls(trace, cliques=cliques)
        run(k, trace)
        assert len(k.deliveries) == n


# -- Fig. 5 erratum K-E2 ------------------------------------------------------------------------
def test_fig5_terminates_when_no_pair_fits_k_e2() -> None:
    """Three servers 1 ms apart, maxNumServers 2: after one merge, the remaining pair is
    within maxDistance but breaks the size limit; Fig. 5 as printed loops forever."""
    cliques = cluster_server_cliques(["a", "b", "c"], lambda x, y: 1.0, 10.0, 2)
    assert cliques == [("a", "b"), ("c",)]


def test_equal_width_reproduces_fig4() -> None:
    a = SCHEMA.attributes[0]
    assert [(z.lo, z.hi, z.closed) for z in equal_width(a, 3)] == [
        (0, 4, False), (4, 7, False), (7, 9, True)
    ]  # fmt: skip
    assert [(z.lo, z.hi) for z in equal_width(a, 2)] == [(0, 5), (5, 9)]
