"""Tests that kill mutants of reference/kyra/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

import dataclasses
import random
import statistics

import pytest

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace
from pubsub_spec.reference.kyra.base import ClusteredLatency
from pubsub_spec.reference.kyra.config import KyraCodec, KyraConfig
from pubsub_spec.reference.kyra.filters import Filter, broadcast, build_tables, route
from pubsub_spec.reference.kyra.hac import diameter
from pubsub_spec.reference.kyra.mcgroups import McGroupsSystem, forgy_kmeans
from pubsub_spec.reference.kyra.messages import (
    EventRoute,
    EventToZone,
    GroupJoin,
    SubPropagate,
    filter_size,
    size_of,
)
from pubsub_spec.reference.kyra.siena import SienaSystem
from pubsub_spec.reference.kyra.trees import adjacency
from pubsub_spec.reference.kyra.zones import Box, Zone, equal_width
from pubsub_spec.reference.sim.run import Driver
from tests.test_kyra_examples import (
    FIG1,
    FIG2_EDGES,
    FIG2_TABLES,
    LETTERS,
    N,
    _event,
    _sub,
    kyra_fig4,
    rng,
    values,
)

# -- Fig. 2 (Kyra §II.A): the static helpers broadcast / build_tables / route ----------------


def _fig2_adj() -> dict[str, list[str]]:
    edges = [(min(N[a], N[b]), max(N[a], N[b])) for a, b in FIG2_EDGES]
    return adjacency([N[c] for c in LETTERS], edges)


def test_fig2_static_tables_and_event9_path() -> None:
    """Kyra §II.A, Fig. 2: a subscription is broadcast over the acyclic tree (one hop per edge,
    away from its server) and recorded per direction; Fig. 2's tables follow from Fig. 1; event
    9 published at A travels A->C->E->F->G->H (docs/kyra.md "Worked examples")."""
    adj = _fig2_adj()
    hops = broadcast(adj, N["A"])
    assert len(hops) == len(FIG2_EDGES) == 7
    assert {frozenset(h) for h in hops} == {frozenset((N[a], N[b])) for a, b in FIG2_EDGES}
    assert hops[0][0] == N["A"]
    filters = [
        (N[s], Filter(_sub(s, v), N[s], ((v, v),))) for s in LETTERS for v in sorted(FIG1[s])
    ]
    tables = build_tables(adj, filters)
    for server, row in FIG2_TABLES.items():
        got = {n: values(tables[N[server]], n) for n in row}
        assert got == {n: rng(v) for n, v in row.items()}, server
    path = route(adj, tables, N["A"], _event("e", "A", 9), (9,), "strict")
    assert path == [(N[a], N[b]) for a, b in ("AC", "CE", "EF", "FG", "GH")]


# -- Fig. 4 (Kyra §III): per-server counters and the figures' text ---------------------------


def test_fig4_event4_from_d_relays_and_uninterested_servers() -> None:
    """Fig. 4: event 4 published at D. D's zone (0-4) covers 4, so D routes it on t1 (zone
    4-6, members B, D, E, G; edges D-E, E-B, B-G): D -> E -> B -> G, 3 EventRoute messages.
    Each of D, E, B, G receives it once; E is a relay (its zone 5-9 does not cover 4); D (proxy
    of D0, E3) and B (proxy of A5) match nothing; G matches G4. The evaluation's "uninterested
    servers reached" (docs/kyra.md "Benchmark") are the servers that received the event and
    delivered nothing: D, E, B."""
    k = kyra_fig4((("D", 4),))
    m = k.metrics
    assert m.messages["EventRoute"] == 3 and m.messages["EventToZone"] == 0
    assert {s: c for s, c in m.events_received.items() if c} == {
        N["D"]: 1,
        N["E"]: 1,
        N["B"]: 1,
        N["G"]: 1,
    }
    assert {s: c for s, c in m.uninterested.items() if c} == {N["D"]: 1, N["E"]: 1, N["B"]: 1}
    assert [(d.event_id, d.sub_id) for d in k.deliveries] == [("e0", "G4")]


def test_delivery_latency_is_the_time_since_the_publish() -> None:
    """docs/comparison.md ("delivery latency from the publication", as for every system): a
    delivery's latency is the time from the publish to the delivery at the subscriber's
    server: positive, and no longer than the time passed since the publish. Fig. 4, event 4
    at D delivered to G4."""
    k = kyra_fig4((("D", 4),))
    (lat,) = k.metrics.delivery_latency_ms
    assert 0.0 < lat <= k.engine.now - k.published_at["e0"]


def test_figures_are_per_event_and_per_server_ratios() -> None:
    """docs/kyra.md "Figures": per event = total / events published; load balance =
    max / mean of events received over the servers. Fig. 4 with event 4 at D (D, E, B, G
    receive it; D, E, B uninterested; 3 event messages) and event 0 at A (A's zone 0-3 covers
    it: A -> D on t0; A, proxy of A1, C1, C2, uninterested; D delivers D0): 4 event messages /
    2 events = 2.00; 4 uninterested / 2 = 2.00; 6 receptions over 8 servers, D receives 2:
    mean 0.75, max/mean 2.67."""
    k = kyra_fig4((("D", 4), ("A", 0)))
    m = k.metrics
    assert m.events == 2
    ops = sum(m.match_ops.values())
    assert ops % 2 == 1  # a non-integer mean, so "/" and "//" differ
    lines = k.figures()
    assert lines[1] == f"matching operations per event: {ops / 2:.1f}"
    assert lines[2] == "messages per event: 2.00"
    assert lines[3] == "uninterested servers reached per event: 2.00"
    assert lines[4] == "load balance (events received, max/mean): 2.67"


def test_kyra_describe_lists_the_largest_cliques_first() -> None:
    """The summary line names the largest cliques (Fig. 4: ABC, DE, FGH; T = max k_i = 3)."""
    assert kyra_fig4().describe() == (
        "system kyra: 8 servers, 3 cliques (largest [3, 3, 2]), T = 3 trees per schema"
    )


# -- message sizes (docs/kyra.md K-D11: the thesis' byte model, docs/thesis.md D-MSG) --------
# A 48-byte header plus the payload; an id is 20 bytes plus its characters (a subscription:
# id, schema name, 16 bytes and the attribute name per predicate; an event: id, schema name, 8
# bytes and the attribute name per value); a range of the partition attribute (the filter's
# extent, each zone) is counted as a predicate's 16 bytes; a group number is 4 bytes.

SUB = Subscription("s1", "n1", "fig", (Predicate("v", 1, 1),))  # 20 + 2 + 3 + (1 + 16) = 42
EV = Event("e0", "n0", "fig", (("v", 9),))  # 20 + 2 + 3 + (1 + 8) = 34


def test_message_sizes_follow_the_byte_model() -> None:
    """K-D11: sizes are the 48-byte header plus the payload, computed here by hand."""
    f = Filter(SUB, "n1", ((1, 1),), (Box((Zone(0, 4, False),)),))
    assert filter_size(f) == 42 + 20 + 16 * 2  # sub, origin id, extent + one zone
    assert size_of(SubPropagate("fig/t0", f)) == 48 + 6 + 94
    # a removal carries the entry's identity (subscription id, proxy), K-D4
    assert size_of(SubPropagate("fig/t0", f, remove=True)) == 48 + 6 + 20 + 2 + 2
    assert size_of(EventToZone(EV)) == 48 + 34
    assert size_of(EventRoute("fig/t2", EV)) == 48 + 6 + 34
    assert size_of(GroupJoin("fig", 0, "n2", "s1")) == 48 + 3 + 4 + 20 + 2


def test_messages_are_values() -> None:
    """A message in flight is a value: _on_propagate forwards the same SubPropagate object to
    every other neighbour (§II.A broadcast), so it must be immutable and hashable."""
    prop = SubPropagate("fig/t0", Filter(SUB, "n1", ((1, 1),)))
    zone = EventToZone(EV)
    assert prop in {prop} and zone in {zone}
    with pytest.raises(dataclasses.FrozenInstanceError):
        prop.tree = "fig/t1"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        zone.event = EV  # type: ignore[misc]


# -- installation (K-D12) and its latency --------------------------------------------------


def test_installed_when_every_propagation_arrived_and_install_latency() -> None:
    """K-D12 (D-OPS; docs/design.md#active): a subscribe completes (`installed`) when every
    message it caused has arrived. Siena on two servers (one MST edge, one-way latency d): a
    subscription at n0 is installed once its SubPropagate reaches n1, d after the subscribe. A
    second subscription made at time d is installed at 2d: its install latency is again d."""
    trace = Trace((Schema("fig", (Attribute("v", "int", 0, 9),)),), (), initial_nodes=2)
    s = SienaSystem(trace)
    d = s.distance("n0", "n1")
    assert d > 0
    assert not s.installed("nope")
    a = Subscription("a", "n0", "fig", (Predicate("v", 1, 2),))
    b = Subscription("b", "n0", "fig", (Predicate("v", 3, 4),))
    s.subscribe(a, 0)
    assert not s.installed("a")
    s.run_to_quiescence()
    assert s.engine.now == pytest.approx(d)
    assert s.installed("a")
    s.subscribe(b, 1)
    assert not s.installed("b")
    s.run_to_quiescence()
    assert s.installed("b")
    assert s.metrics.install_latency_ms == pytest.approx([d, d])


def test_kyra_subscription_is_installed_after_its_propagations() -> None:
    """K-D12 on Kyra (Fig. 4): after the SubMoves and SubPropagates of every subscription have
    arrived, each subscription is installed."""
    k = kyra_fig4()
    assert all(k.installed(sid) for sid in k.subs)
    assert len(k.metrics.install_latency_ms) == 16  # one per subscription of Fig. 1


# -- configuration, clustering helpers, zones, placement -------------------------------------


def test_config_defaults_and_parse_after_partition_attr() -> None:
    """K-D8: mean RTT 180 ms (thesis §4.1.1), maxNumServers 5, maxDistance 60 ms. The codec
    reads every field of the section, whatever its order."""
    c = KyraConfig()
    assert (c.mean_rtt_ms, c.max_clique_size, c.max_clique_ms) == (180.0, 5, 60.0)
    schema = Schema("fig", (Attribute("v", "int", 0, 9), Attribute("w", "int", 0, 9)))
    got = KyraCodec("kyra").parse(
        {"partition_attr": ["fig/w"], "mc_groups": 2, "trees": 3}, "t", (schema,)
    )
    assert got == KyraConfig(partition_attr=("fig/w",), mc_groups=2, trees=3)


def test_diameter_is_the_furthest_pair() -> None:
    """§III.A complete linkage: a clique's diameter is its furthest pair; one server: 0."""

    def dist(a: str, b: str) -> float:
        return {("a", "b"): 3.0, ("a", "c"): 5.0, ("b", "c"): 4.0}[(a, b)]

    assert diameter(("a",), dist) == 0.0
    assert diameter(("a", "b", "c"), dist) == 5.0


def test_equal_width_on_a_float_domain() -> None:
    """K-D2 equal-width: [0, 1] into 4 parts is [0, .25), [.25, .5), [.5, .75), [.75, 1]."""
    zones = equal_width(Attribute("x", "float", 0.0, 1.0), 4)
    assert zones == (
        Zone(0.0, 0.25, False),
        Zone(0.25, 0.5, False),
        Zone(0.5, 0.75, False),
        Zone(0.75, 1.0, True),
    )
    shifted = equal_width(Attribute("x", "float", 2.0, 4.0), 2)
    assert shifted == (Zone(2.0, 3.0, False), Zone(3.0, 4.0, True))


def test_clustered_placement_is_gaussian_in_both_coordinates() -> None:
    """K-D15: one cluster, centre (cx, cy) from `random.Random(f"{seed}:cluster-centre:0")`;
    each server's offset is Gaussian with standard deviation `spread` (0.05) in x and in y."""
    lat = ClusteredLatency(1, 180.0, 1, 0.05)
    names = [f"n{i}" for i in range(40)]
    for n in names:
        lat.place(n)
    c = random.Random("1:cluster-centre:0")
    cx, cy = c.random(), c.random()
    for axis, centre in ((0, cx), (1, cy)):
        xs = [lat._coords[n][axis] for n in names]
        assert abs(statistics.fmean(xs) - centre) < 0.03
        assert 0.03 < statistics.pstdev(xs) < 0.07


# -- multicast groups (§II.B, Fig. 3; K-D10) -------------------------------------------------


def test_forgy_kmeans_small_examples() -> None:
    """K-D10: Forgy's K-Means on 0/1 server vectors, squared Euclidean distance, ties to the
    lower group. With k = number of vectors every vector is an initial centre (Forgy draws
    k distinct vectors), so the result is computed by hand:
    - {n0}, {n1}: each is at distance 0 from its own centre and 2 from the other: [0, 1];
    - {}, {n0}: the empty cell is at 0 from centre 0 and 1 from centre 1; {n0} at 1 and 0:
      [0, 1] (a centre is the cell's 0/1 vector; a centre 2.0 would tie {n0} to group 0);
    - {n0}, {n0}, {n1}, {n1}: cells 1 and 3 tie with cells 0 and 2 and go to the lower group:
      [0, 0, 2, 2].
    With k = 2 on the last vectors, the two clusters come out whatever the initial draw."""
    a, b = frozenset({"n0"}), frozenset({"n1"})
    assert forgy_kmeans([a, b], 2, 20, random.Random(0)) == [0, 1]
    assert forgy_kmeans([frozenset(), a], 2, 20, random.Random(0)) == [0, 1]
    assert forgy_kmeans([a, a, b, b], 4, 20, random.Random(0)) == [0, 0, 2, 2]
    for seed in range(6):
        g = forgy_kmeans([a, a, b, b], 2, 20, random.Random(seed))
        assert g[0] == g[1] != g[2] == g[3]


MC_SCHEMA = Schema("fig", (Attribute("v", "int", 0, 3),))


def _mc_trace(cfg: KyraConfig, ops: list[Op], nodes: int) -> Trace:
    return Trace((MC_SCHEMA,), tuple(ops), initial_nodes=nodes).with_section("mcgroups", cfg)


def _mc_sub(sid: str, server: str, lo: int, hi: int) -> Subscription:
    return Subscription(sid, server, "fig", (Predicate("v", lo, hi),))


def test_mcgroups_members_memberships_and_graft() -> None:
    """§II.B / K-D10 worked example: 4 cells of v in 0..3, 4 groups (k = cells, so Forgy's
    initial centres are all the cells). Offline subscriptions: n0 [0, 1], n1 [2, 3]. Cell
    vectors {n0}, {n0}, {n1}, {n1} give groups [0, 0, 2, 2]; a group's members are the servers
    of its cells: group 0 = {n0}, group 2 = {n1}; n2 is in none (memberships 1, 1, 0).
    A new subscription of n0 on [1, 2] overlaps groups 0 (n0 is a member) and 2 (not a member):
    n0 is grafted onto group 2 as a leaf of its closest member n1 (one GroupJoin), the
    subscription is installed when the GroupJoin arrives, and an event 2 published at n1 is
    multicast to n0 and delivered."""
    cfg = KyraConfig(mc_cells=4, mc_groups=4)
    ops: list[Op] = [
        Subscribe(0, _mc_sub("a", "n0", 0, 1)),
        Subscribe(1, _mc_sub("b", "n1", 2, 3)),
    ]
    trace = _mc_trace(cfg, ops, 3)
    m = McGroupsSystem(trace)
    assert m.group_of_cell["fig"] == [0, 0, 2, 2]
    assert m.members == {("fig", 0): {"n0"}, ("fig", 2): {"n1"}}
    assert m.table_records() == {"n0": 1, "n1": 1, "n2": 0}
    assert m.describe() == "system mcgroups: 3 servers, 2 groups (members [1, 1])"
    d = Driver(trace, m)
    for op in ops:
        d.apply(op)
    d.apply(Subscribe(2, _mc_sub("c", "n0", 1, 2)))
    assert m.metrics.messages["GroupJoin"] == 1
    assert m.installed("c")
    assert m.members[("fig", 2)] == {"n0", "n1"}
    assert m.table_records() == {"n0": 2, "n1": 1, "n2": 0}
    d.apply(Publish(3, Event("e", "n1", "fig", (("v", 2),))))
    d.finish()
    assert sorted((x.event_id, x.sub_id) for x in m.deliveries) == [("e", "b"), ("e", "c")]


def test_mcgroups_first_member_of_an_empty_group() -> None:
    """K-D10: a subscription on a group with no member makes its server the group's first
    member (no tree to graft onto, no message). Offline: only n0 [0, 0]; cells {n0}, {}, {},
    {} with k = 4 give groups [0, 1, 1, 1] (the empty cells tie and go to group 1); group 1 is
    empty. n1 then subscribes [2, 3] and n0 publishes 3: n0 sends it to n1 (EventToGroup)."""
    cfg = KyraConfig(mc_cells=4, mc_groups=4)
    ops: list[Op] = [Subscribe(0, _mc_sub("a", "n0", 0, 0))]
    trace = _mc_trace(cfg, ops, 2)
    m = McGroupsSystem(trace)
    assert m.group_of_cell["fig"] == [0, 1, 1, 1]
    assert m.members == {("fig", 0): {"n0"}, ("fig", 1): set()}
    d = Driver(trace, m)
    d.apply(ops[0])
    d.apply(Subscribe(1, _mc_sub("b", "n1", 2, 3)))
    assert m.members[("fig", 1)] == {"n1"} and m.metrics.messages["GroupJoin"] == 0
    d.apply(Publish(2, Event("e", "n0", "fig", (("v", 3),))))
    d.finish()
    assert m.metrics.messages["EventToGroup"] == 1
    assert [(x.event_id, x.sub_id) for x in m.deliveries] == [("e", "b")]


def test_mcgroups_describe_shows_the_six_largest_groups() -> None:
    """describe() summarises the group sizes, largest first, the six largest. Seven cells of v
    in 0..6 and seven groups (k = cells: every cell its own centre); server n_j subscribes
    [j, 6], so cell i's vector is {n0..n_i}, seven distinct vectors, seven groups of sizes
    1..7."""
    schema = Schema("fig", (Attribute("v", "int", 0, 6),))
    ops: list[Op] = [
        Subscribe(j, Subscription(f"s{j}", f"n{j}", "fig", (Predicate("v", j, 6),)))
        for j in range(7)
    ]
    trace = Trace((schema,), tuple(ops), initial_nodes=7).with_section(
        "mcgroups", KyraConfig(mc_cells=7, mc_groups=7)
    )
    m = McGroupsSystem(trace)
    assert m.group_of_cell["fig"] == list(range(7))
    assert m.describe() == "system mcgroups: 7 servers, 7 groups (members [7, 6, 5, 4, 3, 2])"


def test_balanced_zones_on_two_attributes_balance_each_box_by_its_own_load() -> None:
    """K-D17 with K-D18 (docs/kyra.md; Cao & Singh §III.B, "non-overlapping continuous zones
    with balanced load"): cut along x then y, each part of the cut on y balances the load of
    the subscriptions inside its own x part, not of all of them. Eight point subscriptions,
    four near (0, 0) and four near (9, 9), in four zones: two in each."""
    from pubsub_spec.reference.kyra.zones import Partitioner

    attrs = (Attribute("x", "int", 0, 9), Attribute("y", "int", 0, 9))
    corners = [(0, 0), (1, 0), (0, 1), (1, 1), (8, 8), (9, 8), (8, 9), (9, 9)]
    load = tuple(((x, x), (y, y)) for x, y in corners)
    boxes = Partitioner(attrs, load, True).partition(4)
    assert [sum(b.contains(p) for p in corners) for b in boxes] == [2, 2, 2, 2]


def test_a_part_too_narrow_to_cut_gives_the_empty_zone() -> None:
    """K-D16 with K-D17 (reference/kyra/zones.py, Partitioner: "A part that cannot be cut on
    any attribute ... gives the members beyond it the empty zone"): a float span with no
    representable value strictly inside (2^53 - 8 .. 2^53 + 2 has spacing 1, then 2) in 8
    balanced parts: every part left over is `Partitioner.empty()`, never a zero-width cut
    [c, c) at the part's low end, and the non-empty parts still partition the domain."""
    from pubsub_spec.reference.kyra.zones import Partitioner

    big = 2.0**53
    attr = Attribute("x", "float", big - 8, big + 2)
    p = Partitioner((attr,), (), True)
    boxes = p.partition(8)
    assert len(boxes) == 8 and any(b.empty for b in boxes)
    assert all(b == p.empty() for b in boxes if b.empty)
    for v in (big - 8, big - 5, big - 1, big, big + 2):
        assert sum(b.contains((v,)) for b in boxes) == 1, v
