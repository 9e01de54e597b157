"""Tests that kill mutants of reference/tam/ found by scripts/mutation.py
(docs/mutation.md). Each pins behaviour the papers or docs/design.md state, not an accident of the
code."""

from __future__ import annotations

from typing import Any

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.common.ops import initial_node_names
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.overlay.pastry import sha1_id
from pubsub_spec.reference.sim.sizes import HEADER, ID, event_size, sub_size
from pubsub_spec.reference.tam.config import TamCodec, TamConfig
from pubsub_spec.reference.tam.messages import (
    TamNotify,
    TamPublish,
    TamSubscribe,
    TamTransfer,
    TamUnsubscribe,
    basic_size,
)
from pubsub_spec.reference.tam.system import TamBasicSystem, TamSystem, _TamBase
from pubsub_spec.reference.tam.tables import Intervals, default_intervals, equiprobable_cuts

# -- intervals (§3.5; decision T5) -----------------------------------------------------------


def test_default_intervals_one_per_value_up_to_64_values_else_16_equal_width() -> None:
    """T5 (docs/tam.md): an int domain of at most 64 values has one interval per value (§3.5,
    "separate hash key for each value"); any other domain 16 equal-width intervals."""
    cfg = TamConfig()
    assert (cfg.exact_values, cfg.default_intervals) == (64, 16)
    small = default_intervals(Attribute("a", "int", 0, 63), cfg)  # 64 values
    assert small.count == 64 and small.cuts == tuple(range(1, 64))
    assert [small.label(v) for v in (0, 1, 62, 63)] == [0, 1, 62, 63]
    big = default_intervals(Attribute("a", "int", 0, 64), cfg)  # 65 values
    assert big.count == 16 and big.cuts == tuple(j * 4.0 for j in range(1, 16))
    flt = default_intervals(Attribute("f", "float", 0.0, 16.0), cfg)
    assert flt.cuts == tuple(float(j) for j in range(1, 16))
    assert [flt.label(v) for v in (0.0, 0.99, 1.0, 16.0)] == [0, 0, 1, 15]


def test_equiprobable_cuts_are_the_quantiles() -> None:
    """§3.5: boundaries with equal probability mass per interval: the j/m quantiles of the
    sample, j = 1..m-1 (T5); m intervals have m - 1 boundaries at most."""
    xs = list(range(100))
    assert equiprobable_cuts(xs, 4) == (25.0, 50.0, 75.0)
    assert equiprobable_cuts(xs, 2) == (50.0,)
    assert Intervals(equiprobable_cuts(xs, 4)).count == 4
    assert equiprobable_cuts(xs, 1) == equiprobable_cuts([], 1) == ()  # one interval, no cut


# -- the trace-header section (FORMAT.md; docs/tam.md "Parameters") --------------------------

S = Schema("t", (Attribute("x", "float", 0.0, 100.0), Attribute("y", "float", 0.0, 100.0)))


def test_codec_every_field_round_trips_and_is_checked() -> None:
    """Every field of the `tam` section is written when not default and read back; integers
    are integers (not booleans) >= their bound, numbers >= 0, seen_deadline_ms may be null
    (never purged, T7), cut points lie strictly inside (min, max) of a qualified attribute
    schema/attr (T5), and errors name the field."""
    codec = TamCodec("tam")
    cfg = TamConfig(exact_values=8, index_policy="all", seen_deadline_ms=5.0, mean_rtt_ms=100.0)
    obj = codec.to_json(cfg)
    assert obj == {
        "exact_values": 8,
        "index_policy": "all",
        "seen_deadline_ms": 5.0,
        "mean_rtt_ms": 100.0,
    }
    assert codec.parse(obj, "line 1", (S,)) == cfg
    got = codec.parse({"seen_deadline_ms": None, "mean_rtt_ms": 0}, "line 1", (S,))
    assert got.seen_deadline_ms is None and got.mean_rtt_ms == 0.0
    ok = codec.parse({"intervals": {"t/x": [0.5, 99.5]}}, "line 1", (S,))
    assert ok.cuts_of("t/x") == (0.5, 99.5)
    bad: list[tuple[dict[str, Any], str]] = [
        ({"exact_values": True}, "exact_values"),
        ({"exact_values": "8"}, "exact_values"),
        ({"exact_values": 0}, "exact_values"),
        ({"intervals": {"u/x": [1.0]}}, "intervals.u/x"),
        ({"intervals": {"t/z": [1.0]}}, "intervals.t/z"),
        ({"intervals": {"t/x": [0.0]}}, "intervals.t/x"),
        ({"intervals": {"t/x": [100.0]}}, "intervals.t/x"),
        ({"seen_deadline_ms": -1}, "seen_deadline_ms"),
        ({"mean_rtt_ms": None}, "mean_rtt_ms"),
    ]
    for o, fld in bad:
        with pytest.raises(InputError) as err:
            codec.parse(o, "line 1", (S,))
        assert f"config.systems.tam.{fld}" in str(err.value), o


# -- messages (docs/tam.md, T14; the shared byte model of reference/sim/sizes.py) -------------


def test_messages_are_values_sized_by_the_shared_byte_model() -> None:
    """messages.py: sizes are the shared byte model (D-MSG), a 48-byte header plus the payload,
    worked by hand: a subscription is id 20 + its id and schema names + 16 and the name per
    predicate (20 + 2 + 1 + 2 * 17 = 57), an event id 20 + names + 8 and the name per value
    (20 + 2 + 1 + 2 * 9 = 41); a basic-scheme message adds the key (an id) to the header, a
    notification the matched ids, a transfer carries only subscriptions. Messages are immutable
    values."""
    sub = Subscription("s1", "n1", "t", (Predicate("x", 0.0, 1.0), Predicate("y", 2.0, 3.0)))
    ev = Event("e1", "n2", "t", (("x", 0.5), ("y", 2.5)))
    assert (HEADER, ID, sub_size(sub), event_size(ev)) == (48, 20, 57, 41)
    assert basic_size(TamSubscribe(7, sub, 1)) == 48 + 20 + 57
    assert basic_size(TamUnsubscribe(7, "s1")) == 48 + 20 + 2
    assert basic_size(TamPublish(7, ev)) == 48 + 20 + 41
    assert basic_size(TamNotify(ev, ("s1", "s22"))) == 48 + 41 + 5
    assert basic_size(TamTransfer((sub, sub))) == 48 + 2 * 57
    n = TamNotify(ev, ("s1",))
    assert n == TamNotify(ev, ("s1",)) and len({n, TamNotify(ev, ("s1",))}) == 1
    t = TamTransfer((sub,))
    assert t == TamTransfer((sub,)) and hash(t) == hash(TamTransfer((sub,)))
    with pytest.raises(AttributeError):
        n.sub_ids = ()  # type: ignore[misc]


# -- the systems' figures (T13, T14; the metrics of docs/design.md#systems) --------------------


def _sys(cls: type[_TamBase]) -> _TamBase:
    return cls((S,), "strict", TamConfig(), 1, initial_node_names(12))


def _sub(sid: str, node: str) -> Subscription:
    return Subscription(sid, node, "t", (Predicate("x", 0.0, 5.0), Predicate("y", 0.0, 5.0)))


@pytest.mark.parametrize("cls", [TamSystem, TamBasicSystem])
def test_hits_misses_keys_latencies_on_a_two_event_run(cls: type[_TamBase]) -> None:
    """Singleton indices (T9) x then y, policy `first` (T6): s registers on index (x) only, one
    key (x in [0, 5] meets the first of 16 intervals, T5). Each event has one key per index
    (§3.5): "keys per event: 2.00". T13: an arrival at a peer (home node for the basic scheme)
    holding a subscription on the key is a hit if one fully matches, else a miss (a false
    positive, §3.4): e1 (x 1, y 1) is a hit, e2 (x 1, y 50) a miss; arrivals on the y key meet
    no subscription and are not counted. Installation: not installed until its JOIN/subscribe
    has reached the key (§3.2, §3.3), one install latency per subscription. A delivery's latency
    is its time since the publish. Every overlay hop is one message, counted at its sender
    (T14)."""
    system = _sys(cls)
    sub = _sub("s", "n3")
    system.subscribe(sub, 1)
    assert system.subs["s"].keys and len(system.subs["s"].keys) == 1
    assert not system.installed("s")  # the key's home is another peer
    system.run_to_quiescence()
    assert system.installed("s")
    assert len(system.metrics.install_latency_ms) == 1
    system.run_until_time(10_000.0)
    system.publish(Event("e1", "n7", "t", (("x", 1.0), ("y", 1.0))), 2)
    system.publish(Event("e2", "n7", "t", (("x", 1.0), ("y", 50.0))), 3)
    system.run_to_quiescence()
    assert system.deliveries == [Delivery("e1", "s")]
    m = system.metrics
    assert (m.hits, m.misses, m.hit_rate) == (1, 1, 0.5)
    assert m.events_keys == 4 and "keys per event: 2.00" in system.figures()[1]
    assert system.figures()[0].startswith("hit rate: 50.0% (1 hits / 2 notifications received")
    (lat,) = m.delivery_latency_ms
    assert 0.0 < lat <= system.engine.now - 10_000.0
    assert m.sends == m.messages and sum(m.messages.values()) > 0


def test_basic_install_latency_counts_each_subscription_once() -> None:
    """The basic scheme (§3.2) stores a subscription at the home of each of its keys; it is
    installed when all have been stored, and its install latency is recorded once (docs/design.md
    metrics: one installation latency per subscription)."""
    system = _sys(TamBasicSystem)
    wide = Subscription("w", "n3", "t", (Predicate("x", 0.0, 40.0),))  # 7 intervals of x
    system.subscribe(wide, 1)
    system.subscribe(_sub("s", "n5"), 2)
    assert len(system.subs["w"].keys) == 7 and not system.installed("w")
    system.run_to_quiescence()
    assert system.installed("w") and system.installed("s")
    assert len(system.metrics.install_latency_ms) == 2


@pytest.mark.parametrize("cls", [TamSystem, TamBasicSystem])
def test_a_gone_subscribers_subscriptions_end_everywhere(cls: type[_TamBase]) -> None:
    """D-CHURN (docs/design.md; docs/tam.md T12): the subscriptions of a peer that leaves end; the
    basic scheme drops them from every home node (no home holds them, no notification is sent
    for them)."""
    system = _sys(cls)
    system.subscribe(_sub("s", "n3"), 1)
    system.subscribe(Subscription("w", "n3", "t", (Predicate("x", 0.0, 40.0),)), 2)
    system.run_to_quiescence()
    system.leave("n3")
    system.run_to_quiescence()
    assert not system.subs["s"].active and not system.subs["w"].active
    if isinstance(system, TamBasicSystem):
        assert all(not at for at in system.store.values())
        assert system.figures()[2].startswith("home nodes: 0 hold subscriptions, max load 0")
    before = sum(system.metrics.messages.values())
    system.publish(Event("e1", "n7", "t", (("x", 1.0), ("y", 1.0))), 3)
    system.run_to_quiescence()
    assert system.deliveries == [] and system.metrics.messages["TamNotify"] == 0
    assert sum(system.metrics.messages.values()) > before


def test_basic_join_hands_the_stored_subscriptions_to_the_new_home() -> None:
    """T12 (docs/tam.md): on a join, the basic scheme hands the stored subscriptions whose key
    has a new home to it (Pastry key handover), one TamTransfer per (old, new) home pair;
    publications then reach them there (§3.2)."""
    system = _sys(TamBasicSystem)
    assert isinstance(system, TamBasicSystem)
    system.subscribe(_sub("s", "n3"), 1)
    system.run_to_quiescence()
    (key,) = system.subs["s"].keys
    old = system.ring.closest(key)
    ring = 1 << 160

    def dist(pid: int) -> int:
        return min((pid - key) % ring, (key - pid) % ring)

    name = next(f"j{k}" for k in range(100_000) if dist(sha1_id(f"j{k}")) < dist(old))
    system.join(name)
    new = system.pid_of[name]
    assert system.ring.closest(key) == new
    assert key in system.store[new] and "s" in system.store[new][key]
    assert key not in system.store.get(old, {})
    assert system.metrics.messages["TamTransfer"] == 1
    system.publish(Event("e1", "n7", "t", (("x", 1.0), ("y", 1.0))), 2)
    system.run_to_quiescence()
    assert system.deliveries == [Delivery("e1", "s")]


def test_seen_list_drops_a_duplicate_within_its_deadline() -> None:
    """§3.6 / T7 (docs/tam.md): under policy `all` a subscription registers on every applicable
    index, so a publication reaches its peer once per index; the peer's seen-list discards a
    copy that arrives within `seen_deadline_ms` of the first (T8: the first copy is matched
    against all the peer's subscriptions): delivered once."""
    system = TamSystem(
        (S,),
        "strict",
        TamConfig(index_policy="all", seen_deadline_ms=1e9),
        1,
        initial_node_names(12),
    )
    system.subscribe(_sub("s", "n3"), 1)  # on (x) and on (y)
    system.run_to_quiescence()
    system.publish(Event("e1", "n7", "t", (("x", 1.0), ("y", 1.0))), 2)
    system.run_to_quiescence()
    assert system.deliveries == [Delivery("e1", "s")]
    assert system.metrics.duplicates_dropped == 1


@pytest.mark.parametrize("cls", [TamSystem, TamBasicSystem])
def test_figures_of_a_run_without_subscriptions_report_zero(cls: type[_TamBase]) -> None:
    """The figures (`simulate`'s report, docs/tam.md) of a system that holds no subscription:
    no subscription has a key (keys per subscription: mean 0.00, max 0) and, for the basic
    scheme (§3.2), no home node holds one (max load 0): a maximum over nothing is 0, the empty
    count, not 1 or -1."""
    system = _sys(cls)
    for step in ("before any operation", "after a publication"):
        lines = system.figures()
        assert lines[1].startswith("keys per subscription: mean 0.00, max 0;"), step
        if cls is TamBasicSystem:
            assert lines[2] == "home nodes: 0 hold subscriptions, max load 0", step
        system.publish(Event("e1", "n7", "t", (("x", 1.0), ("y", 1.0))), 1)
        system.run_to_quiescence()


def test_only_the_root_handovers_join_is_observed_as_a_handover() -> None:
    """conformance/OBSERVATIONS.md ("tam, tam-basic"): a ScribeJoin carries `handover: true`
    only when it is the old root joining below an arriving home (T12), the one JOIN that
    follows each `scribe-root` change flagged `handover`; every other JOIN (a member's, a
    forwarder's, a repair after a failure) carries no such field."""
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.reference.sim.observe import SEND, STATE, Observation
    from pubsub_spec.reference.sim.run import run_trace
    from pubsub_spec.reference.tam.info import TAM

    make = next(v.make for v in TAM.variants if v.builtin == "tam")
    log: list[Observation] = []

    def observed(trace: Any) -> Any:
        system = make(trace)
        system.observer = log.append
        return system

    run_trace(GENERATORS["churn"](1, 0, "small"), observed)
    joins = [o for o in log if o.kind == SEND and o.name == "ScribeJoin"]
    flagged = [o for o in joins if "handover" in o.fields]
    roots = [o for o in log if o.kind == STATE and o.name == "scribe-root"]
    handed = [o for o in roots if o.fields.get("handover") is True]
    assert handed and len(flagged) == len(handed) < len(joins)
    for o in flagged:
        assert o.fields["handover"] is True and o.fields["origin"] == o.node  # the old root
        assert (o.to, o.fields["key"]) in {(r.node, r.fields["key"]) for r in handed}


# -- the workload of Table 2 (Tam et al. §5; decision T16) -----------------------------------


def test_table2_publications_take_every_value_of_every_attribute() -> None:
    """§5: "publishers specify values for all attributes", each uniform over the attribute's
    values 0 .. V_a - 1 (T16): over 400 publications every value, the largest included, turns
    up for every attribute, and no other value does."""
    from pubsub_spec.reference.tam.workload import TABLE2_VALUES, table2_event, table2_schema

    schema = table2_schema()
    seen: dict[str, set[int]] = {a: set() for a, _ in TABLE2_VALUES}
    for j in range(400):
        for name, v in table2_event(1, j, schema, 16).values:
            seen[name].add(int(v))
    assert seen == {a: set(range(n)) for a, n in TABLE2_VALUES}


def test_table2_subscriptions_are_exact_by_default() -> None:
    """T16: the hit-rate curves use exact subscriptions (an equality on every attribute, one
    digest each); ranges (Fig. 3) only when asked for."""
    from pubsub_spec.reference.common.ops import Subscribe
    from pubsub_spec.reference.tam.workload import table2_trace

    w = table2_trace(16, 40, 1)
    subs = [op.sub for op in w.trace.ops if isinstance(op, Subscribe)]
    assert len(subs) == 40 and w.digests == 40
    assert all(p.lo == p.hi for s in subs for p in s.predicates)
    ranged = table2_trace(16, 40, 1, ranges=1)
    assert ranged.digests > 40


def test_expected_hit_rate_counts_the_values_of_each_attribute_left_out() -> None:
    """T16: h(I) = prod over the attributes a not in I of 1/V_a, V_a the number of values of
    a, max - min + 1 whatever the domain's minimum."""
    from pubsub_spec.reference.tam.workload import expected_hit_rate

    schema = Schema("t", (Attribute("a", "int", 1, 4), Attribute("b", "int", 10, 11)))
    assert expected_hit_rate(schema, ("a", "b")) == 1.0
    assert expected_hit_rate(schema, ("b",)) == pytest.approx(1 / 4)
    assert expected_hit_rate(schema, ()) == pytest.approx(1 / 8)
