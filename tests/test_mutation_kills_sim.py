"""Tests that kill mutants of reference/sim/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

import itertools

import pytest

from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import Publish, Subscribe, Trace
from pubsub_spec.reference.common.oracle import Delivery, expected_deliveries
from pubsub_spec.reference.registry import SYSTEMS, system
from pubsub_spec.reference.sim.latency import BASE_ONE_WAY_MS, LatencyModel
from pubsub_spec.reference.sim.metrics import MessageType, Metrics
from pubsub_spec.reference.sim.run import compare
from pubsub_spec.reference.sim.stream import (
    DeliveryStream,
    compare_stream,
    expected_per_event,
)
from pubsub_spec.reference.sim.system import (
    MULTI_SCHEMA,
    STRICT,
    ConfigCodec,
    System,
    missing_features,
    needed_features,
)

# -- latency: decision D-NET (docs/thesis.md; thesis §4.1.1, Table 4.5) -----------------------


def test_latency_mean_rtt_of_random_pairs_is_the_configured_mean() -> None:
    """D-NET: one-way latency = 5 ms + distance x scale, the scale chosen so that the mean RTT of
    random pairs is 180 ms (thesis §4.1.1, the King data set's mean, Table 4.5). Pooled over
    four seeded placements of 300 peers (180,000 pairs); a scale of (rtt/2 + 5)/d instead of
    (rtt/2 - 5)/d gives a mean RTT of 200 ms."""
    total, pairs = 0.0, 0
    for seed in range(1, 5):
        model = LatencyModel(seed, 180.0)
        names = [f"p{i}" for i in range(300)]
        for n in names:
            model.place(n)
        for a, b in itertools.combinations(names, 2):
            rtt = model.one_way(a, b) + model.one_way(b, a)
            assert rtt >= 2 * BASE_ONE_WAY_MS  # the 5 ms base of every one-way hop
            total += rtt
            pairs += 1
        assert model.one_way("p0", "p0") == 0.0  # a peer sending to itself: no network
    assert abs(total / pairs - 180.0) < 4.0


# -- metrics (thesis §4.2.1; docs/thesis.md D-MSG, docs/kyra.md "hops/send") -----------------


def test_hops_per_send_is_the_mean_route_length() -> None:
    """Hops per send is messages / sends of a type: the mean number of overlay hops of one
    logical send (docs/thesis.md: "Pastry hops per ProbeSub route 1.46 -> 1.47"; docs/kyra.md:
    "1.6 hops per send"), a fraction, 0 for a type never sent. Bytes and messages are counted
    at each hop's sender (Metrics.hop)."""
    m = Metrics()
    m.hops(["a", "b", "c"], "ProbeSub", 10)  # one route of three hops
    m.sends["ProbeSub"] += 1
    m.hop("a", "ProbeSub", 10)  # a second send, delivered in one hop
    m.sends["ProbeSub"] += 1
    assert m.hops_per_send("ProbeSub") == 2.0
    m.hop("b", "ProbeSub", 10)
    m.sends["ProbeSub"] += 1
    assert m.hops_per_send("ProbeSub") == 5 / 3
    assert m.hops_per_send("ProbePub") == 0.0
    assert m.messages["ProbeSub"] == 5 and m.bytes["ProbeSub"] == 50
    assert m.peer_messages[("a", "ProbeSub")] == 2 and m.peer_bytes[("b", "ProbeSub")] == 20


def test_message_type_declarations_are_values() -> None:
    """A system declares its message types (docs/design.md#systems: each
    system "declares its message types"; `MessageType(name, doc)`): a declaration is a value,
    equal by content and usable in sets, so that a registry entry (`SystemInfo`, frozen) is
    itself hashable."""
    a, b = MessageType("ProbeSub", "thesis §4.2.1"), MessageType("ProbeSub", "thesis §4.2.1")
    assert a == b and len({a, b}) == 1
    assert len({info for info in SYSTEMS.values()}) == len(SYSTEMS)


# -- the oracle comparison (docs/design.md#delivery; docs/thesis.md "oracle: agree (...)") ------

D1, D2, D3 = Delivery("e1", "s1"), Delivery("e1", "s2"), Delivery("e2", "s1")


def test_comparison_counts_missed_duplicate_spurious_and_says_so() -> None:
    """A run agrees with the oracle iff every expected delivery happened exactly once and no
    other did (docs/design.md#delivery: exactly once per (event, subscription)); the summary line
    reads `oracle: agree (N deliveries, 0 missed, 0 duplicate, 0 spurious)` (docs/thesis.md)."""
    ok = compare([D1, D2], [D2, D1])
    assert ok.agree and (ok.missed, ok.duplicate, ok.spurious) == ((), (), ())
    assert ok.summary() == "oracle: agree (2 deliveries, 0 missed, 0 duplicate, 0 spurious)"
    bad = compare([D1, D2], [D1, D1, D3, D3])
    assert not bad.agree
    assert (bad.missed, bad.duplicate, bad.spurious) == ((D2,), (D1,), (D3,))
    assert bad.summary() == "oracle: DISAGREE (2 deliveries, 1 missed, 1 duplicate, 1 spurious)"
    assert not compare([D1], []).agree and not compare([], [D3]).agree


BIG = 2**53  # the first integer after it is not a float64


def _big_trace() -> Trace:
    schema = Schema("s", (Attribute("a", "int", 0, 2**60),))
    subs = [
        Subscription("x", "n1", "s", (Predicate("a", BIG + 1, BIG + 1),)),
        Subscription("y", "n1", "s", (Predicate("a", -BIG - 1, -BIG - 1),)),
        Subscription("z", "n1", "s", (Predicate("a", 0, 10),)),
    ]
    events = [(BIG, "e1"), (BIG + 1, "e2"), (-BIG, "e3"), (5, "e4")]
    ops = [Subscribe(i, s) for i, s in enumerate(subs)] + [
        Publish(3 + i, Event(eid, "n0", "s", (("a", v),))) for i, (v, eid) in enumerate(events)
    ]
    return Trace((schema,), tuple(ops))


def test_streamed_oracle_is_the_oracle_beyond_float_precision() -> None:
    """The streamed oracle is `reference/common/oracle.py` event by event (stream.py:
    "equal to it"): matching is exact on integers (docs/design.md#event: closed intervals), also
    where float64 cannot tell 2^53 from 2^53 + 1; there the comparison must not be vectorised
    in floats. An ordinary trace gives the same ids by either path."""
    assert dict(expected_per_event(_big_trace())) == {"e1": [], "e2": ["x"], "e3": [], "e4": ["z"]}
    # float64(2^53 + 3) == float64(2^53 + 4) == 2^53 + 4: equal as floats, not as integers
    big = Trace(
        _big_trace().schemas,
        (
            Subscribe(0, Subscription("q", "n1", "s", (Predicate("a", BIG + 4, BIG + 4),))),
            Publish(1, Event("g1", "n0", "s", (("a", BIG + 3),))),
            Publish(2, Event("g2", "n0", "s", (("a", BIG + 4),))),
        ),
    )
    assert dict(expected_per_event(big)) == {"g1": [], "g2": ["q"]}
    schema = Schema("t", (Attribute("a", "int", 0, 99), Attribute("b", "int", 0, 99)))
    ops = (
        Subscribe(0, Subscription("z", "n1", "t", (Predicate("a", 0, 10),))),
        Subscribe(1, Subscription("w", "n1", "t", (Predicate("b", 5, 5),))),
        Publish(2, Event("f1", "n0", "t", (("a", 5), ("b", 5)))),
        Publish(3, Event("f2", "n0", "t", (("a", 50), ("b", 5)))),
        Publish(4, Event("f3", "n0", "t", (("b", 7),))),  # a partial event (no a)
    )
    cases: list[tuple[MatchMode, list[str]]] = [("strict", []), ("lenient", ["z"])]
    for mode, f3 in cases:
        trace = Trace((schema,), ops, matching=mode)
        got = dict(expected_per_event(trace))
        assert got == {"f1": ["z", "w"], "f2": ["w"], "f3": f3}
        streamed = {(e, s) for e, ids in got.items() for s in ids}
        assert streamed == {(d.event_id, d.sub_id) for d in expected_deliveries(trace)}


def test_compare_stream_equals_compare() -> None:
    """`compare_stream` returns the very Comparison of `compare` (stream.py docstring): an
    expected delivery made once is neither missed nor duplicate; twice is a duplicate."""
    stream = DeliveryStream()
    for d in (D1, D1, D3):
        stream.add(d.event_id, d.sub_id)
    seen: list[tuple[int, int]] = []
    got = compare_stream(
        iter([("e1", ["s1", "s2"]), ("e2", ["s1"])]), stream, lambda a, b: seen.append((a, b))
    )
    assert got == compare([D1, D2, D3], [D1, D1, D3])
    assert (got.missed, got.duplicate, got.spurious) == ((D2,), (D1,), ())
    assert seen == [(1, 1), (2, 2)]  # progress(done, total): events compared so far


# -- the System interface and features (docs/design.md#systems) --------------


def _trace_with_schemas(n: int) -> Trace:
    schemas = tuple(Schema(f"s{i}", (Attribute("a", "int", 0, 9),)) for i in range(n))
    return Trace(schemas, ())


def test_two_schemas_need_the_multi_schema_feature() -> None:
    """conformance/PROTOCOL.md "Features": a trace whose header declares more than one schema
    needs multi-schema (several schemas hosted at once, thesis §3.1); one schema does not."""
    assert needed_features(_trace_with_schemas(1)) == frozenset({STRICT})
    assert needed_features(_trace_with_schemas(2)) == frozenset({STRICT, MULTI_SCHEMA})
    assert missing_features(_trace_with_schemas(2), frozenset({STRICT})) == (
        "needs unsupported feature(s): multi-schema"
    )


def test_every_system_must_implement_the_whole_interface() -> None:
    """docs/design.md#systems: every simulated system implements the `System`
    interface (trace ops in: subscribe/installed/unsubscribe/publish/join/leave/fail; what a
    run reports: peer_count; the engine's `_dispatch`); describe, figures and apply_other are
    optional. A system section's codec reads, defaults and writes back (ConfigCodec)."""
    assert System.__abstractmethods__ == frozenset(
        {"subscribe", "installed", "unsubscribe", "publish", "join", "leave", "fail",
         "peer_count", "_dispatch"}
    )  # fmt: skip
    assert ConfigCodec.__abstractmethods__ == frozenset({"default", "parse", "to_json"})


# -- the registry (reference/registry.py; conformance/FORMAT.md: unknown names rejected) -----


def test_an_unknown_system_name_is_refused_with_the_known_names() -> None:
    """An unknown system is refused and the error lists the known ones (as an unknown system
    section of a trace header is, conformance/FORMAT.md)."""
    assert system("thesis") is SYSTEMS["thesis"]
    with pytest.raises(KeyError) as err:
        system("nope")
    assert "unknown system 'nope'" in str(err.value)
    assert all(name in str(err.value) for name in SYSTEMS)
