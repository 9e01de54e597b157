"""Seeded sub-streams (reference/sim/seeds.py): one derivation for the conformance generators
and the thesis workload, `random.Random("seed:name:...")`; the committed vectors and the pinned
event-log hashes depend on its exact strings."""

from __future__ import annotations

import random

from pubsub_spec.reference.sim.seeds import substream


def test_a_substream_is_the_generator_of_the_joined_string() -> None:
    assert substream(7, "sub", 3).getrandbits(32) == random.Random("7:sub:3").getrandbits(32)
    assert substream(7, "sub", 3).getrandbits(32) == 595620956  # pinned: no other derivation
    assert substream(0, "zipf", 1).getrandbits(48) == 88805204428911


def test_substreams_are_independent_of_order_and_distinct_per_name_and_index() -> None:
    a = [substream(1, "event", i).random() for i in range(4)]
    b = [substream(1, "event", i).random() for i in reversed(range(4))][::-1]
    assert a == b and len(set(a)) == 4
    assert substream(1, "event", 0).random() != substream(1, "sub", 0).random()
    assert substream(1, "event", 0).random() != substream(2, "event", 0).random()
