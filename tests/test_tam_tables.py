"""Tam's schema layer (reference/tam/tables.py; Tam et al. §3.1, §3.2, §3.5) and its config
codec: digests (T1, T2), intervals (T5), keys per range subscription, index selection (T6, T9)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription
from pubsub_spec.reference.tam.config import TamCodec, TamConfig
from pubsub_spec.reference.tam.tables import (
    Intervals,
    Table,
    default_intervals,
    digest,
    equiprobable_cuts,
)

T2 = Schema(  # Tam et al. Table 2, value counts of decision T16
    "workload",
    (
        Attribute("price", "int", 1, 10),
        Attribute("volume", "int", 1, 10),
        Attribute("color", "int", 1, 5),
        Attribute("size", "float", 0.0, 100.0),
    ),
)


def sub(preds: dict[str, tuple[float, float]], sid: str = "s") -> Subscription:
    return Subscription(
        sid, "n0", T2.name, tuple(Predicate(a, lo, hi) for a, (lo, hi) in preds.items())
    )


def test_digest_is_typed_ordered_qualified_and_injective() -> None:
    d = digest(T2, ("price", "color"), (3, 1))
    assert json.loads(d) == ["workload", [["int", "price", 3], ["int", "color", 1]]]
    seen = {digest(T2, ("price", "color"), c) for c in itertools.product(range(4), repeat=2)}
    assert len(seen) == 16  # T1: distinct label tuples give distinct digests
    other = Schema("other", T2.attributes)
    assert digest(other, ("price",), (1,)) != digest(T2, ("price",), (1,))  # T2


def test_intervals_half_open_with_the_last_closed() -> None:
    iv = Intervals((10.0, 20.0))
    assert [iv.label(v) for v in (0.0, 9.99, 10.0, 19.99, 20.0, 30.0)] == [0, 0, 1, 1, 2, 2]
    assert list(iv.labels(10.0, 10.0)) == [1] and list(iv.labels(5.0, 20.0)) == [0, 1, 2]


def test_labels_of_a_range_are_exactly_the_intersecting_intervals() -> None:
    cfg = TamConfig(default_intervals=7)
    a = Attribute("size", "float", 0.0, 100.0)
    iv = default_intervals(a, cfg)
    bounds = [0.0, *iv.cuts, 100.0]
    rng = random.Random(0)
    for _ in range(500):
        lo, hi = sorted(rng.choice([rng.uniform(0, 100), rng.choice(bounds)]) for _ in range(2))
        meet = [
            j
            for j in range(iv.count)
            if (bounds[j] <= hi and (lo < bounds[j + 1] or (j == iv.count - 1 and lo <= 100.0)))
        ]
        assert list(iv.labels(lo, hi)) == meet
        v = rng.uniform(lo, hi)
        assert iv.label(v) in iv.labels(lo, hi)


def test_small_int_domain_has_one_interval_per_value() -> None:
    iv = default_intervals(T2.by_name["price"], TamConfig())
    assert iv.count == 10 and [iv.label(v) for v in range(1, 11)] == list(range(10))
    big = default_intervals(Attribute("b", "int", 0, 64), TamConfig())
    assert big.count == 16


def test_keys_per_range_subscription_is_the_product_of_intervals_met() -> None:
    table = Table(T2, TamConfig(indices=(("workload", (("price", "volume"),)),), fallback=False))
    s = sub({"price": (2, 4), "volume": (1, 10)})
    keys = table.subscription_keys(s, ("price", "volume"))
    assert len(keys) == len(set(keys)) == 3 * 10 == table.key_count(s, ("price", "volume"))
    ev = Event("e", "n1", T2.name, (("price", 3), ("volume", 7), ("color", 2), ("size", 1.0)))
    assert table.event_key(ev, ("price", "volume")) in keys


def test_index_selection_policies_and_uncovered_subscriptions() -> None:
    cfg = TamConfig(indices=(("workload", (("price", "volume"), ("color",))),), fallback=False)
    table = Table(T2, cfg)
    s = sub({"price": (1, 10), "volume": (1, 10), "color": (2, 2)})
    assert table.select(s, "first") == [("price", "volume")]
    assert table.select(s, "fewest-keys") == [("color",)]
    assert table.select(s, "all") == [("price", "volume"), ("color",)]
    with pytest.raises(InputError, match="covers no index"):
        table.select(sub({"size": (0.0, 1.0)}), "first", "line 3")
    # T9: without declared indices, or with the fallback, every attribute is an index
    assert Table(T2, TamConfig()).indices == tuple((a.name,) for a in T2.attributes)
    assert Table(T2, TamConfig(indices=cfg.indices)).select(sub({"size": (0.0, 1.0)}), "first")


def test_equiprobable_cuts_put_finer_intervals_where_values_are_dense() -> None:
    rng = random.Random(1)
    xs = [rng.uniform(0, 10) for _ in range(900)] + [rng.uniform(10, 100) for _ in range(100)]
    cuts = equiprobable_cuts(xs, 10)
    assert len(cuts) == 9 and sum(c < 10 for c in cuts) >= 8


def test_codec_round_trip_and_errors_name_the_field() -> None:
    codec = TamCodec("tam")
    cfg = TamConfig(
        indices=(("workload", (("price", "volume"),)),),
        intervals=(("workload/size", (10.0, 50.0)),),
        index_policy="all",
        seen_deadline_ms=5.0,
    )
    obj = codec.to_json(cfg)
    assert codec.parse(obj, "line 1", (T2,)) == cfg
    assert codec.to_json(TamConfig()) == {}
    bad: list[tuple[dict[str, Any], str]] = [
        ({"index_policy": "most"}, "config.systems.tam.index_policy"),
        ({"indices": {"workload": [["nope"]]}}, "config.systems.tam.indices.workload[0]"),
        ({"intervals": {"workload/size": [50.0, 10.0]}}, "config.systems.tam.intervals"),
        ({"bogus": 1}, "config.systems.tam.bogus"),
    ]
    for o, fld in bad:
        with pytest.raises(InputError) as err:
            codec.parse(o, "line 1", (T2,))
        assert fld in str(err.value)


def test_equiprobable_cuts_are_safe_on_every_input() -> None:
    """An empty sample, a single value, m <= 1 and a sample piled at the domain's ends give
    cuts strictly inside (min, max), strictly increasing (T5), never an interval holding only
    the maximum."""
    assert equiprobable_cuts([], 4) == () and equiprobable_cuts([5.0], 4) == ()
    assert equiprobable_cuts([1.0, 2.0, 3.0], 0) == ()
    at_max = [0.0] + [100.0] * 9
    assert equiprobable_cuts(at_max, 4) == (100.0,)  # without the domain: the old behaviour
    assert equiprobable_cuts(at_max, 4, (0.0, 100.0)) == ()
    below = [-5.0, 0.0, 10.0, 20.0, 30.0]
    cuts = equiprobable_cuts(below, 5, (0.0, 100.0))
    assert cuts == (10.0, 20.0, 30.0)
    assert all(0.0 < c < 100.0 for c in cuts) and list(cuts) == sorted(set(cuts))
