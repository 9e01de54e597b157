"""Kyra on an int partition attribute with fewer values than a clique has members (decision
K-D16, docs/kyra.md): once a `ValueError` in `build_layout`; now the members beyond the domain's
values get an empty zone, and every value is still in exactly one zone of each clique (Kyra,
Cao & Singh, INFOCOM 2004, §III: "each server is assigned a non-overlapping zone")."""

from __future__ import annotations

import pytest

from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace, Unsubscribe
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.kyra.zones import Zone, equal_width, local_partition
from pubsub_spec.reference.sim.run import run_trace

CLIQUE = tuple(f"n{i}" for i in range(5))


def _trace(values: int) -> Trace:
    """Five servers in one clique, the partition attribute `k` with `values` int values."""
    schema = Schema("s", (Attribute("k", "int", 0, values - 1), Attribute("x", "float", 0.0, 1.0)))
    ops: list[Op] = []
    for i, server in enumerate(CLIQUE):
        for lo, hi in ((0, 0), (values - 1, values - 1), (0, values - 1)):
            sid = f"s{server}-{lo}-{hi}"
            ops.append(Subscribe(0, Subscription(sid, server, "s", (Predicate("k", lo, hi),))))
        ops.append(Subscribe(0, Subscription(f"x{i}", server, "s", (Predicate("x", 0.0, 0.5),))))
    ops.append(Unsubscribe(0, "sn4-0-0"))
    for i, server in enumerate(CLIQUE * 2):
        k = i % values
        ops.append(Publish(0, Event(f"e{i}", server, "s", (("k", k), ("x", 0.25)))))
    renumbered = tuple(_seq(op, j) for j, op in enumerate(ops, start=1))
    return Trace((schema,), renumbered, initial_nodes=len(CLIQUE))


def _seq(op: Op, seq: int) -> Op:
    from dataclasses import replace

    return replace(op, seq=seq)


def _kyra(trace: Trace) -> KyraSystem:
    return KyraSystem(trace, cliques=[CLIQUE])


@pytest.mark.parametrize("values", [2, 3, 4])
def test_fewer_values_than_members_leaves_the_rest_an_empty_zone(values: int) -> None:
    trace = _trace(values)
    result = run_trace(trace, _kyra)
    assert sorted(result.deliveries) == sorted(expected_deliveries(trace))
    kyra = result.system
    lay = kyra.layouts["s"]
    zones = [lay.zones[s].dims[0] for s in CLIQUE]
    # the first `values` members (name order) hold one value each, the rest nothing (K-D16)
    assert [(z.lo, z.hi) for z in zones[:values]] == [(v, v + 1) for v in range(values - 1)] + [
        (values - 1, values - 1)
    ]
    assert all(z.empty for z in zones[values:]) and not any(z.empty for z in zones[:values])
    for v in range(values):  # every value in exactly one zone of the clique (K-D1)
        assert sum(z.contains(v) for z in zones) == 1
    for server in CLIQUE[values:]:
        assert kyra.proxy[server] == {}  # never a proxy
        assert all(server not in t.members for t in lay.trees)  # on no tree
        assert not lay.zones[server].overlaps(((0, values - 1),))


def test_enough_values_keep_the_equal_width_zones() -> None:
    """No change where there was no crash: a domain with at least as many values as members."""
    for attr in (Attribute("k", "int", 0, 4), Attribute("k", "int", 0, 9),
                 Attribute("f", "float", 0.0, 1.0)):  # fmt: skip
        assert local_partition(attr, 5) == equal_width(attr, 5)
    assert len(local_partition(Attribute("k", "int", 0, 1), 5)) == 5


def test_an_empty_zone_overlaps_nothing() -> None:
    empty = Zone(3, 3, False)
    assert empty.empty and not empty.contains(3)
    assert not empty.overlaps(0, 9) and not empty.overlaps(3, 3)
    assert not Zone(3, 3, True).empty and Zone(3, 3, True).overlaps(0, 9)
    assert Zone(3, 4, False).overlaps(0, 9)
