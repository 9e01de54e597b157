"""Kyra's zones in every mode (Cao & Singh, INFOCOM 2004, §III.B: "non-overlapping continuous
zones with balanced load"): equal-width (K-D2), balanced by the subscriptions' load (K-D17),
cut along one or several attributes (K-D18), on every domain size, including int domains with
fewer values than a clique has members (K-D16). docs/kyra.md."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.kyra.config import KyraCodec, KyraConfig
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.kyra.zones import Box, Partitioner
from pubsub_spec.reference.sim.run import run_trace

MODES = [("balanced", 1), ("equal-width", 1), ("balanced", 2), ("equal-width", 2)]


def _points(attrs: tuple[Attribute, ...]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(int(a.min), int(a.max) + 1) for a in attrs)))


def _assert_partition(boxes: tuple[Box, ...], attrs: tuple[Attribute, ...]) -> None:
    for p in _points(attrs):  # K-D1: every point of the domain in exactly one zone
        assert sum(b.contains(p) for b in boxes) == 1, p


@settings(max_examples=150, deadline=None)
@given(
    values=st.tuples(st.integers(1, 12), st.integers(1, 4)),
    parts=st.integers(1, 9),
    mode=st.sampled_from(MODES),
    load=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.integers(0, 3)), max_size=8),
)
def test_int_partitions_cover_every_domain_size(
    values: tuple[int, int], parts: int, mode: tuple[str, int], load: list[tuple[int, int, int]]
) -> None:
    """Any int domain (1..12 values, and a second attribute of 1..4), any number of parts, any
    load: the parts partition the domain, the non-empty first; on one attribute as many parts
    are non-empty as the domain has values, up to the number of parts (K-D16)."""
    zones, dims = mode
    attrs = (Attribute("k", "int", 0, values[0] - 1), Attribute("j", "int", 0, values[1] - 1))[
        :dims
    ]
    ranges = tuple(
        ((min(a, b) % values[0], max(a, b) % values[0]), (c % values[1], c % values[1]))[:dims]
        for a, b, c in load
    )
    boxes = Partitioner(attrs, ranges, zones == "balanced").partition(parts)
    assert len(boxes) == parts
    _assert_partition(boxes, attrs)
    nonempty = [not b.empty for b in boxes]
    assert nonempty == sorted(nonempty, reverse=True)  # K-D16: the empty zones last
    if dims == 1:
        assert sum(nonempty) == min(parts, values[0])


def _trace(values: int, members: int, zones: str, dims: int) -> Trace:
    """One clique of `members` servers; `k` has `values` int values (a trace's domain has
    min < max, so at least 2), `x` is a float."""
    schema = Schema("s", (Attribute("k", "int", 0, values - 1), Attribute("x", "float", 0.0, 1.0)))
    servers = [f"n{i}" for i in range(members)]
    ops: list[Op] = []
    for i, server in enumerate(servers):
        ranges = ((0, 0), (values - 1, values - 1), (0, values - 1), (i % values, i % values))
        for j, (lo, hi) in enumerate(ranges):
            sid = f"{server}-{j}"
            ops.append(Subscribe(0, Subscription(sid, server, "s", (Predicate("k", lo, hi),))))
        ops.append(Subscribe(0, Subscription(f"x{i}", server, "s", (Predicate("x", 0.0, 0.5),))))
    for i, server in enumerate(servers * 2):
        ev = Event(f"e{i}", server, "s", (("k", i % values), ("x", 0.25 * (i % 4))))
        ops.append(Publish(0, ev))
    ops = [replace(op, seq=j) for j, op in enumerate(ops, start=1)]
    trace = Trace((schema,), tuple(ops), initial_nodes=members)
    return trace.with_section("kyra", KyraConfig(zones=zones, zone_dims=dims))


@settings(max_examples=40, deadline=None)
@given(values=st.integers(2, 7), members=st.integers(1, 6), mode=st.sampled_from(MODES))
def test_kyra_runs_exactly_once_on_every_domain_size(
    values: int, members: int, mode: tuple[str, int]
) -> None:
    """The crash of an int partition attribute with fewer values than a clique has members
    (once a ValueError in build_layout) cannot occur in any zone mode: the run agrees with the
    oracle and every member beyond the values is never a proxy (K-D16)."""
    trace = _trace(values, members, *mode)
    clique = tuple(f"n{i}" for i in range(members))
    result = run_trace(trace, lambda t: KyraSystem(t, cliques=[clique]))
    assert sorted(result.deliveries) == sorted(expected_deliveries(trace))
    kyra = result.system
    assert isinstance(kyra, KyraSystem)
    for server in clique:
        if kyra.layouts["s"].zones[server].empty:
            assert kyra.proxy[server] == {}


def test_balanced_zones_follow_the_subscriptions() -> None:
    """K-D17: 30 subscriptions on [0, 9] and 10 on [90, 99] of a 0..99 domain, 4 members: the
    balanced cut puts two zones inside [0, 9] and a third across it, equal-width one; each
    balanced zone holds an equal share of the load (the uniform pseudo-subscription included)."""
    k = Attribute("k", "int", 0, 99)
    load = (((0, 9),),) * 30 + (((90, 99),),) * 10
    eq = Partitioner((k,), load, False).partition(4)
    bal = Partitioner((k,), load, True).partition(4)
    assert [(b.dims[0].lo, b.dims[0].hi) for b in eq] == [(0, 25), (25, 50), (50, 75), (75, 99)]
    assert sum(b.dims[0].hi <= 10 for b in bal) == 2
    share = [sum(sum(b.contains((v,)) for v in range(lo, hi + 1)) / (hi - lo + 1)
                 for (lo, hi), in load) + sum(b.contains((v,)) for v in range(100)) / 100
             for b in bal]  # fmt: skip
    # 41 units over 4 zones, 10.25 each, up to one value's load (3.01 in [0, 9]) off
    assert max(abs(x - 41 / 4) for x in share) <= 3.02, share
    assert [b.dims[0].lo for b in bal] == sorted(b.dims[0].lo for b in bal)


def test_no_subscriptions_give_the_equal_width_cut() -> None:
    """K-D17: with no load the uniform pseudo-subscription alone cuts by width (Fig. 4's
    0-3/4-6/7-9 on an empty clique)."""
    v = Attribute("v", "int", 0, 9)
    assert Partitioner((v,), (), True).partition(3) == Partitioner((v,), (), False).partition(3)


def test_fig4_zones_are_balanced_too() -> None:
    """Fig. 4's equal-width zones (0-3/4-6/7-9, 0-4/5-9) hold 6/6/4 and 7/9 of Fig. 1's 16
    values, the least possible maximum; the balanced cut (K-D17) gives 0-2/3-5/6-9 (5/5/6) and
    0-4/5-9: as balanced, so Fig. 4 does not tell the two apart."""
    v = Attribute("v", "int", 0, 9)
    fig1 = [1, 5, 7, 8, 1, 2, 0, 6, 3, 5, 5, 7, 4, 6, 2, 9]
    load = tuple(((x, x),) for x in fig1)

    def held(boxes: tuple[Box, ...]) -> list[int]:
        return [sum(b.contains((x,)) for x in fig1) for b in boxes]

    assert held(Partitioner((v,), load, False).partition(3)) == [6, 6, 4]
    assert held(Partitioner((v,), load, True).partition(3)) == [5, 5, 6]
    assert held(Partitioner((v,), load, True).partition(2)) == [7, 9]


def test_two_attribute_zones_are_boxes() -> None:
    """K-D18: with zone_dims 2 the first cut is on the partition attribute, the next on the
    second attribute (a k-d cut); a subscription without a predicate on the first attribute
    but narrow on the second overlaps fewer zones than with one attribute."""
    k, x = Attribute("k", "int", 0, 9), Attribute("x", "float", 0.0, 1.0)
    boxes = Partitioner((k, x), (), False).partition(4)
    assert [b.text() for b in boxes] == [
        "[0, 5) x [0.0, 0.5)", "[0, 5) x [0.5, 1.0]", "[5, 9] x [0.0, 0.5)", "[5, 9] x [0.5, 1.0]"
    ]  # fmt: skip
    narrow = ((0, 9), (0.1, 0.2))
    assert sum(b.overlaps(narrow) for b in boxes) == 2
    one = Partitioner((k,), (), False).partition(4)
    assert sum(b.overlaps(narrow[:1]) for b in one) == 4
    schema = Schema("s", (k, x))
    assert KyraConfig(zone_dims=2).cut_attributes(schema) == (k, x)
    assert KyraConfig(zone_dims=5).cut_attributes(schema) == (k, x)
    assert KyraConfig(zone_dims=2, partition_attr=("s/x",)).cut_attributes(schema) == (x, k)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"zones": "quantile"}, "config.systems.kyra.zones"),
        ({"zones": 1}, "config.systems.kyra.zones"),
        ({"zone_dims": 0}, "config.systems.kyra.zone_dims"),
        ({"zone_dims": 1.5}, "config.systems.kyra.zone_dims"),
        ({"zone_dims": True}, "config.systems.kyra.zone_dims"),
    ],
)
def test_codec_checks_the_zone_fields(obj: dict[str, object], message: str) -> None:
    codec = KyraCodec("kyra")
    with pytest.raises(InputError, match=message.replace(".", r"\.")):
        codec.parse(obj, "header", ())
    cfg = codec.parse({"zones": "equal-width", "zone_dims": 2}, "header", ())
    assert cfg == KyraConfig(zones="equal-width", zone_dims=2)
    assert codec.to_json(cfg) == {"zones": "equal-width", "zone_dims": 2}
    assert codec.to_json(KyraConfig()) == {}
