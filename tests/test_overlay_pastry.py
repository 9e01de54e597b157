"""The Pastry-like DHT (thesis §2.1.2, §4.1.1)."""

from __future__ import annotations

import random
import statistics

from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id


def ring(n: int) -> tuple[PastryRing, list[int]]:
    r = PastryRing()
    ids = [sha1_id(f"n{i}") for i in range(n)]
    for i in ids:
        r.add(i)
    return r, ids


def test_routes_end_at_the_numerically_closest_peer_in_about_log16_n_hops() -> None:
    r, ids = ring(1000)
    rng = random.Random(0)
    hops = []
    for j in range(500):
        key = sha1_id(f"k{j}")
        path = r.route(rng.choice(ids), key)
        best = min(ids, key=lambda i: (r.ring_distance(i, key), i))
        assert not path or path[-1] == best
        hops.append(len(path))
    assert 1.5 < statistics.mean(hops) < 4.0  # log16(1000) ~ 2.5


def test_leaf_set_has_16_nearest_peers() -> None:
    r, ids = ring(100)
    s = sorted(ids)
    ls = r.leaf_set(s[50])
    assert len(ls) == 16 and set(ls) == set(s[42:50] + s[51:59])


def test_replicas_are_the_k_closest_others() -> None:
    r, _ids = ring(50)
    key = sha1_id("x")
    home = r.closest(key)
    reps = r.k_closest(key, 3, exclude=frozenset({home}))
    assert len(reps) == 3 and home not in reps
    assert r.closest(key, frozenset({home})) == reps[0]
