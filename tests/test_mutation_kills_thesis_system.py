"""Tests that kill mutants of reference/thesis/system.py found by scripts/mutation.py
(docs/mutation.md). Each pins a rule of the thesis or a decision of docs/thesis.md:
what a send costs, what a LeafUpdate fault is, where tree nodes live after churn, and who a
leaf delivers to."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Sequence

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Fail, Join, Leave, Op, Publish, Subscribe, Trace
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig, thesis_preset
from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable
from pubsub_spec.reference.thesis.messages import TYPE_OF, Message, size_of
from pubsub_spec.reference.thesis.run import run_and_compare
from pubsub_spec.reference.thesis.substrate import ReferenceSubstrate
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

S = Schema("s", (Attribute("a", "float", 0.0, 100.0), Attribute("b", "int", 0, 10)))


def names(n: int) -> list[str]:
    return [f"n{i}" for i in range(n)]


def sub(i: int, node: str) -> Subscription:
    """Subscription i: a range of `a` drawn from its own generator (varied, so that the tree
    splits into leaves of moderate load instead of piling identical points at max_depth)."""
    rng = random.Random(f"kills:sub:{i}")
    lo = rng.uniform(0.0, 80.0)
    return Subscription(f"s{i}", node, "s", (Predicate("a", lo, lo + rng.uniform(1.0, 20.0)),))


def busy_system(config: ThesisConfig, peers: int = 12, subs: int = 60) -> TwoDTreeSystem:
    """A system whose small capacities make the tree split many times."""
    system = TwoDTreeSystem((S,), "strict", config, 3, names(peers))
    for i in range(subs):
        system.subscribe(sub(i, f"n{i % peers}"), i)
        system.run_to_quiescence()
    return system


SMALL = ThesisConfig(capacity_min=2, capacity_max=4)


# -- what a send costs (thesis §4.2.1: messages and bytes counted at each hop's sender) --------


def test_a_send_is_counted_once_and_each_of_its_hops_at_its_sender() -> None:
    """One send = one message handled at its destination (plus the probes a splitting node held
    and handles again once its children exist, counted in `held`); its hops are the path's
    links, each counted with the message's size at the peer that sends it; a path never names
    a peer twice in a row (a hop to oneself is no hop)."""
    system = TwoDTreeSystem((S,), "strict", thesis_preset((S,), SMALL), 3, names(30))
    handled: Counter[str] = Counter()
    hops: Counter[str] = Counter()
    size: Counter[str] = Counter()
    net = system.net
    assert isinstance(net, ReferenceSubstrate)
    handle, account = system._handle, net.account

    def counting_handle(peer: object, msg: Message) -> None:
        handled[TYPE_OF[type(msg)]] += 1
        handle(peer, msg)  # type: ignore[arg-type]

    def checking_account(path: Sequence[int], msg: Message) -> float:
        assert all(a != b for a, b in itertools.pairwise(path)), path
        kind = TYPE_OF[type(msg)]
        hops[kind] += len(path) - 1
        size[kind] += (len(path) - 1) * size_of(msg)
        return account(path, msg)

    system._handle = counting_handle  # type: ignore[method-assign]
    net.account = checking_account  # type: ignore[method-assign]
    for i in range(50):
        system.subscribe(sub(i, f"n{i % 30}"), i)
        system.run_to_quiescence()
    for j in range(20):
        system.publish(Event(f"e{j}", f"n{j}", "s", (("a", 5.0 * j), ("b", 1))), 100 + j)
        system.run_to_quiescence()
    m = system.metrics
    assert m.splits > 0 and m.messages["ProbePubMulticast"] > 0
    assert sum(handled.values()) == sum(m.sends.values()) + m.held
    for kind in handled:
        assert m.sends[kind] == handled[kind] or kind in ("ProbeSub", "InsertSub", "ProbePub")
    assert m.messages == +hops and m.bytes == +size
    assert sum(m.peer_bytes.values()) == sum(m.bytes.values())


def leaf_update_delays(d: float) -> list[float]:
    """The extra delay drawn for each LeafUpdate of a run with leaf_update_delay_ms = d."""
    system = TwoDTreeSystem(
        (S,), "strict", dataclasses.replace(SMALL, leaf_update_delay_ms=d), 3, names(12)
    )
    delays: list[float] = []
    fault = system.net.leaf_update_fault

    def recording(msg: Message) -> tuple[bool, float]:
        lost, delay = fault(msg)
        if TYPE_OF[type(msg)] == "LeafUpdate":
            delays.append(delay)
        return lost, delay

    system.net.leaf_update_fault = recording  # type: ignore[method-assign]
    for i in range(60):
        system.subscribe(sub(i, f"n{i % 12}"), i)
        system.run_to_quiescence()
    return delays


def test_leaf_update_delays_are_uniform_between_zero_and_the_bound() -> None:
    """LeafNodeUpdateMessages go by UDP (thesis §3.2.2): with leaf_update_delay_ms = d each is
    delayed by a uniform draw in [0, d]; with d = 0 none is delayed."""
    none, some = leaf_update_delays(0.0), leaf_update_delays(2.0)
    assert len(none) >= 20 and set(none) == {0.0}
    assert len(some) >= 20 and all(0.0 <= x <= 2.0 for x in some)
    assert any(x < 1.0 for x in some) and any(x > 1.0 for x in some)


def test_the_split_count_is_the_number_of_internal_nodes() -> None:
    """Program 3.1: a split turns one leaf into an internal node with two children, and the
    tree only grows, so splits = internal nodes and nodes = roots + 2 x splits."""
    system = busy_system(SMALL)
    nodes = system.tree_nodes()
    internal = sum(1 for n in nodes if not n.is_leaf)
    assert system.metrics.splits == internal > 5
    assert len(nodes) == len(system.squares) + 2 * internal


def test_describe_names_the_probe_routing_and_the_delivery() -> None:
    """The thesis preset (probes by prefix-grouped multicast §3.4.2, point-to-point delivery
    §3.4.3) names both; the first release's settings keep their wording."""
    cfg = ThesisConfig()
    describe = [
        TwoDTreeSystem((S,), "strict", c, 0, names(2)).describe()
        for c in (
            cfg,
            thesis_preset((S,), cfg),
            dataclasses.replace(cfg, delivery="lbdd"),
            dataclasses.replace(cfg, probe="unicast", delivery="grouped"),
        )
    ]
    assert describe == [
        "delivery unicast",
        "probes multicast, delivery unicast",
        "delivery lbdd",
        "probes unicast, delivery grouped",
    ]


def test_a_system_without_peers_reports_zero_figures() -> None:
    figures = TwoDTreeSystem((), "strict", ThesisConfig(), 0, []).figures()
    assert figures[0] == "publication bytes per node per event: 0.00"


# -- who a leaf delivers to (§3.4.1, §3.4.3; D-CHURN) ------------------------------------------


def test_a_departed_subscriber_does_not_hide_the_others_at_its_leaf() -> None:
    """D-CHURN: a leaf skips the points of a subscriber that has left, and matches the rest."""
    ops: tuple[Op, ...] = (
        Subscribe(1, Subscription("gone", "n0", "s", (Predicate("a", 0.0, 50.0),))),
        Subscribe(2, Subscription("kept", "n1", "s", (Predicate("a", 0.0, 50.0),))),
        Leave(3, "n0"),
        Publish(4, Event("e", "n2", "s", (("a", 10.0),))),
    )
    result, c = run_and_compare(Trace((S,), ops, initial_nodes=4))
    assert c.agree and [(d.event_id, d.sub_id) for d in result.deliveries] == [("e", "kept")]


def test_grouped_delivery_reaches_every_matched_subscriber_once() -> None:
    """§3.4.3: the matched subscribers are grouped by first hop and each group forwarded; each
    subscriber takes its own part, once."""
    for delivery in ("grouped", "lbdd"):
        cfg = ThesisConfig(delivery=delivery)
        subs = tuple(
            Subscribe(i, Subscription(f"s{i}", f"n{i}", "s", (Predicate("a", 0.0, 60.0),)))
            for i in range(20)
        )
        pub = Publish(30, Event("e", "n25", "s", (("a", 10.0),)))
        trace = Trace((S,), (*subs, pub), initial_nodes=30, sections=((SECTION, cfg),))
        result, c = run_and_compare(trace)
        assert c.agree and sorted(d.sub_id for d in result.deliveries) == sorted(
            f"s{i}" for i in range(20)
        ), delivery


# -- where tree nodes live after churn (§3.6; D-CHURN) -----------------------------------------


def churn_trace(k: int = 2) -> Trace:
    cfg = dataclasses.replace(SMALL, capacity_min=2, capacity_max=6, replication=k)
    ops: list[Op] = []
    seq = 0
    stay = ["n0", "n1", "n3", "n4", "n5", "n6"]  # n2 and n7 fail, with one joined peer
    for i in range(80):
        ops.append(Subscribe(seq, sub(i, stay[i % len(stay)])))
        seq += 1
        if i % 10 == 9:
            ops.append(Join(seq, f"j{i}"))
            seq += 1
        if i in (39, 69):
            ops.append(Fail(seq, ("n7",) if i == 39 else ("j19", "n2")))
            seq += 1
    ops.append(Publish(seq, Event("e", "n0", "s", (("a", 50.0),))))
    return Trace((S,), tuple(ops), initial_nodes=8, seed=5, sections=((SECTION, cfg),))


def assert_homes_and_capacities(system: TwoDTreeSystem) -> None:
    for peer in system.peers.values():
        for node in peer.nodes.values():
            assert system._home(system._key(node.qattr, node.bits)) is peer, node.ident
            assert not node.splitting
            if node.is_leaf and node.depth < system.config.max_depth:
                assert len(node.points) <= peer.capacity, (node.ident, peer.name)


def test_after_joins_and_failures_each_node_lives_at_its_home_within_capacity() -> None:
    """§3.6: an object lives at the ready peer closest to its key; a joining peer takes its
    objects when ready, a failed peer's objects go to their new homes. Program 3.1 and §3.2.2:
    a leaf holds no more points than its host's capacity, below max_depth -- also after it has
    moved to a peer of smaller capacity (checked again on arrival)."""
    result, c = run_and_compare(churn_trace())
    system = result.system
    assert c.agree
    assert_homes_and_capacities(system)
    assert any(p.nodes for p in system.peers.values() if p.name.startswith("j"))


def test_a_failed_homes_routing_tables_are_rebuilt_from_their_parents() -> None:
    """§3.6: the LeafNodeRoutingTable is not replicated; the new home rebuilds it from a copy of
    the parent's (or from the node's children when that copy does not describe it, D-CHURN)."""
    system = busy_system(SMALL, peers=10, subs=80)
    victims = sorted(
        system.peers.values(), key=lambda p: -sum(not n.is_leaf for n in p.nodes.values())
    )[:2]
    lost = [n for p in victims for n in p.nodes.values() if not n.is_leaf and n.bits]
    assert len(lost) >= 2
    system.fail([p.name for p in victims])
    system.run_to_quiescence()
    refined = 0
    for node in sorted(lost, key=lambda n: n.depth):
        parent = system._find_node(node.qattr, node.bits[:-1])
        assert parent is not None and parent.lnrt is not None
        expected = LeafNodeRoutingTable.rebuilt_from_parent(node.bits, list(parent.lnrt))
        assert node.lnrt is not None and list(node.lnrt) == list(expected), node.ident
        refined += list(expected) != list(LeafNodeRoutingTable.after_split(node.bits))
    assert refined > 0


def test_a_leaf_that_moves_to_a_smaller_peer_splits_there() -> None:
    """§3.2.2 / Program 3.1: a leaf splits when its load exceeds its host's capacity. After the
    subscriptions, peers join (and take their objects when ready, §3.6) and then fail (their
    objects go to new homes): wherever a leaf arrives with more points than its new host's
    capacity, it splits there, with no further subscription to trigger it."""
    cfg = dataclasses.replace(SMALL, capacity_min=2, capacity_max=8)
    system = busy_system(cfg, peers=10, subs=120)
    assert_homes_and_capacities(system)
    splits = system.metrics.splits
    for j in range(30):
        system.join(f"j{j}")
    system.run_to_quiescence()
    assert all(p.ready for p in system.peers.values())
    assert_homes_and_capacities(system)
    after_joins = system.metrics.splits
    assert after_joins > splits
    for _ in range(15):  # fail, one at a time, the host of the fullest leaf
        host = max(
            system.peers.values(),
            key=lambda p: (max((len(n.points) for n in p.nodes.values()), default=0), p.name),
        )
        system.fail([host.name])
        system.run_to_quiescence()
        assert_homes_and_capacities(system)
    assert system.metrics.splits > after_joins and system.metrics.points_lost == 0
