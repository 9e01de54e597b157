"""Tests that kill mutants of reference/overlay/pastry.py, reference/thesis/config.py and
reference/thesis/info.py found by scripts/mutation.py (docs/mutation.md). Each pins
what Pastry (thesis §2.1.2, §4.1.1), the thesis' parameters (Table 4.1, §4.1.1; docs/thesis.md
"Parameters") or the trace format (conformance/FORMAT.md) state."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Attribute, Schema
from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.sim.system import (
    ADVERTISEMENTS,
    FEATURES,
    OPTIONAL_FEATURES,
    STRICT,
)
from pubsub_spec.reference.thesis.config import (
    DEFAULT_CUTOFF_FRACTION,
    ThesisCodec,
    ThesisConfig,
    default_cutoff,
    thesis_preset,
)
from pubsub_spec.reference.thesis.info import THESIS


def small(ids: list[int], leaf_set_size: int = 2, **kw: Any) -> PastryRing:
    """A ring of 8-bit ids in base 16 (two digits), so a test can place ids by hand."""
    r = PastryRing(id_bits=8, digit_bits=4, leaf_set_size=leaf_set_size, **kw)
    for i in ids:
        r.add(i)
    return r


# -- numeric closeness and the leaf set (Pastry, thesis §2.1.2) --------------------------------


def test_any_id_of_the_space_can_be_a_peer_and_is_its_own_home() -> None:
    """Peer ids are arbitrary points of [0, 2^bits): the peer with id 1 is the home of key 1
    and of key 0 (numerically closest), with or without the lookup cache."""
    r = small([1, 0x80])
    assert r.closest(1) == 1 and r.closest(0) == 1 and r.closest(1) == 1
    assert r.closest(0x7F) == 0x80


def test_the_leaf_set_of_a_small_ring_is_every_other_peer() -> None:
    """With fewer peers than the leaf set holds (16, §4.1.1), every other peer is in it: on
    2 to 6 peers each leaf set has n - 1 members, alternating successor and predecessor."""
    for n in range(2, 7):
        ids = [sha1_id(f"p{i}") for i in range(n)]
        r = PastryRing()
        for i in ids:
            r.add(i)
        for pid in ids:
            assert sorted(r.leaf_set(pid)) == sorted(set(ids) - {pid}), n
    ordered = sorted(ids)
    assert r.leaf_set(ordered[2])[:2] == [ordered[3], ordered[1]]


def test_a_leaf_set_is_a_members_state() -> None:
    r = small([0x10, 0x20, 0x30])
    with pytest.raises(KeyError):
        r.leaf_set(0x15)


# -- prefix routing (Pastry, thesis §2.1.2, Fig. 2.1) ------------------------------------------


def test_a_key_at_the_edge_of_the_leaf_set_goes_straight_to_its_home() -> None:
    """Pastry's first routing rule: a key within the range of the leaf set (its ends included)
    is delivered to the numerically closest leaf in one hop, before the routing table is used.
    Here the key is the id of the lowest leaf, and the routing table's entry for its prefix 1
    would be another of the nine peers 0x10..0x18."""
    ids = [*range(0x10, 0x19), 0x20, 0x30, 0x80]
    r = small(ids)
    assert r.leaf_set(0x20) == [0x30, 0x18]
    assert r.next_hop(0x20, 0x18) == 0x18 and r.route(0x20, 0x18) == [0x18]
    assert r.next_hop(0x20, 0x30) == 0x30


def test_a_routing_table_entry_shares_the_row_plus_one_digits_or_is_empty() -> None:
    """R[row][d] holds a peer whose id shares row + 1 digits with the key, or nothing (Fig. 2.1):
    no peer has prefix 3 here, so R[0][3] is empty even though 0x40 is right after the range."""
    r = small([0x05, 0x40, 0x41, 0x42, 0x90])
    assert r._table_entry(0x05, 0, 0x3F) is None
    assert r._table_entry(0x05, 0, 0x4F) in (0x40, 0x41, 0x42)
    assert r._table_entry(0x90, 1, 0x42) == 0x42


def test_proximity_selection_takes_the_nearest_of_all_when_they_are_few() -> None:
    """PNS (§2.1.2, D-DHT): with at most `proximity_candidates` prefix-sharing peers, the entry
    is the nearest of all of them by the proximity metric (ties: the smaller id)."""
    ids = [0x05, 0x40, 0x47, 0x4C, 0x90, 0xA1]
    near = {0x40: 5.0, 0x47: 1.0, 0x4C: 3.0}
    prox = {
        k: small(ids, proximity=lambda a, b: near.get(b, 9.0), proximity_candidates=k)
        for k in (0, 3, 16)
    }
    for r in prox.values():
        assert r._table_entry(0x05, 0, 0x4F) == 0x47
    tie = small(ids, proximity=lambda a, b: 1.0, proximity_candidates=16)
    assert tie._table_entry(0x05, 0, 0x4F) == 0x40


# -- the thesis' parameters (Table 4.1, §4.1.1; docs/thesis.md "Parameters") -------------------


def test_the_defaults_are_the_thesis_parameters() -> None:
    """Table 4.1 node_capacity rand(10, 30); §4.1.1 mean RTT 180 ms (King), ids of 160 bits,
    base 2^4, leaf set 16; RndRegionProbe minlevel 2, maxlevel 10 (§4.3.3) and p = 0.5, k = 2
    replicas (D-CHURN), a join ready after 500 ms (D-OPS) -- docs/thesis.md "Parameters"."""
    c = ThesisConfig()
    assert (c.id_bits, c.digit_bits, c.leaf_set_size) == (160, 4, 16)
    assert (c.mean_rtt_ms, c.capacity_min, c.capacity_max) == (180.0, 10, 30)
    assert (c.pub_min_level, c.pub_max_level, c.pub_p) == (2, 10, 0.5)
    assert (c.replication, c.join_ready_ms) == (2, 500.0)


SCHEMAS = (
    Schema("s", (Attribute("a", "int", 0, 100), Attribute("b", "float", -5.0, 15.0))),
    Schema("t", (Attribute("c", "int", 7, 7),)),
)


def test_the_default_cutoff_is_a_tenth_of_each_domain_width() -> None:
    """D-CUTOFF: c = 0.1 x (max - min) on every attribute with a positive width; a one-value
    domain has no cut-off line (c would be 0, which §3.5's h < c cannot satisfy)."""
    assert DEFAULT_CUTOFF_FRACTION == 0.1
    assert default_cutoff(SCHEMAS) == (("s/a", 10.0), ("s/b", 2.0))
    assert thesis_preset(SCHEMAS).cutoff == (("s/a", 10.0), ("s/b", 2.0))


def parse(obj: dict[str, Any]) -> ThesisConfig:
    return ThesisCodec().parse(obj, "line 1", SCHEMAS)


def test_the_section_round_trips_and_writes_only_what_differs_from_the_defaults() -> None:
    """FORMAT.md: the `thesis` section lists the fields that differ from the defaults; parsing
    what to_json writes gives the same configuration."""
    codec = ThesisCodec()
    assert codec.to_json(ThesisConfig()) == {}
    c = dataclasses.replace(
        ThesisConfig(),
        pub_p=1.0,
        mean_rtt_ms=50.0,
        capacity_min=1,
        pub_max_level=12,
        cutoff=(("s/a", 10.0),),
        cutoff_h=(("s/a", 4.0),),
        widening=(("s/b", 0.0),),
        probe="multicast",
    )
    out = codec.to_json(c)
    assert out == {
        "pub_p": 1.0,
        "mean_rtt_ms": 50.0,
        "capacity_min": 1,
        "pub_max_level": 12,
        "cutoff": {"s/a": 10.0},
        "cutoff_h": {"s/a": 4.0},
        "widening": {"s/b": 0.0},
        "probe": "multicast",
    }
    assert parse(out) == c


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({"pub_p": 1.5}, "pub_p"),
        ({"leaf_update_loss": -0.1}, "leaf_update_loss"),
        ({"capacity_min": 0}, "capacity_min"),
        ({"mean_rtt_ms": -1.0}, "mean_rtt_ms"),
        ({"cutoff": {"s/a": 0}}, "cutoff.s/a"),
        ({"cutoff": {"s/a": -2.0}}, "cutoff.s/a"),
        ({"widening": {"s/a": -1}}, "widening.s/a"),
        ({"pub_min_level": 5, "pub_max_level": 4}, "pub_max_level"),
        ({"cutoff": {"s/a": 10}, "cutoff_h": {"s/a": 10}}, "cutoff_h.s/a"),
        ({"cutoff_h": {"s/a": 1}}, "cutoff_h.s/a"),
    ],
)
def test_a_value_outside_its_domain_is_an_error_naming_the_field(
    obj: dict[str, Any], field: str
) -> None:
    """Probabilities lie in [0, 1], capacity_min >= 1, other numbers >= 0; a cut-off c > 0 and
    a widening r >= 0 (§3.3, §3.5); minlevel <= maxlevel (Program 3.3); a fixed h needs a c on
    its attribute with h < c (§3.5)."""
    with pytest.raises(InputError, match=f"config.systems.thesis.{field}"):
        parse(obj)


def test_values_at_the_ends_of_their_domains_are_accepted() -> None:
    c = parse(
        {
            "pub_p": 1,
            "leaf_update_loss": 0,
            "capacity_min": 1,
            "mean_rtt_ms": 0,
            "pub_min_level": 4,
            "pub_max_level": 4,
            "widening": {"s/a": 0},
        }
    )
    assert (c.pub_p, c.capacity_min, c.pub_max_level, c.widening) == (1.0, 1, 4, (("s/a", 0.0),))


# -- the registry entry (reference/registry.py) ------------------------------------------------


def test_the_thesis_system_supports_every_feature_but_advertisements() -> None:
    """Advertisements are no-ops to the thesis system (no advertisement in the thesis): it
    declares every feature but the optional ones."""
    assert THESIS.features == frozenset(FEATURES) - OPTIONAL_FEATURES
    assert ADVERTISEMENTS not in THESIS.features and STRICT in THESIS.features


def test_on_a_ring_no_larger_than_a_leaf_set_every_key_is_one_hop_away() -> None:
    """With n <= 16 + 1 peers every peer's leaf set holds all the others (§4.1.1), so Pastry's
    first rule delivers every key to its home in one hop -- also a key in the gap between the
    two ends of a leaf set, where the routing table would name a peer of the key's prefix."""
    ids = [sha1_id(f"p{i}") for i in range(17)]
    r = PastryRing()
    for i in ids:
        r.add(i)
    for j in range(400):
        key = sha1_id(f"k{j}")
        home = r.closest(key)
        for pid in ids[:6]:
            assert r.next_hop(pid, key) == home, (pid, key)
