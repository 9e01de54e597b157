"""Latency model (thesis §4.1.1: the King data set's mean RTT of 180 ms, Table 4.5).

The King data set is not available here; peers get random coordinates in a plane and the
one-way latency is a base plus a term proportional to their distance, scaled so that the mean
RTT over random pairs is `mean_rtt_ms` (decision D-NET). Coordinates come from a generator
seeded by (run seed, peer name): a peer's latency does not depend on the order of joins.
"""

from __future__ import annotations

import math
import random

# Mean distance between two uniform points of the unit square.
_MEAN_UNIT_DISTANCE = 0.5214054331647207
BASE_ONE_WAY_MS = 5.0


class LatencyModel:
    def __init__(self, seed: int, mean_rtt_ms: float) -> None:
        self.seed = seed
        self.scale = (mean_rtt_ms / 2.0 - BASE_ONE_WAY_MS) / _MEAN_UNIT_DISTANCE
        self._coords: dict[str, tuple[float, float]] = {}

    def place(self, name: str) -> None:
        rng = random.Random(f"{self.seed}:coord:{name}")
        self._coords[name] = (rng.random(), rng.random())

    def coordinates(self, name: str) -> tuple[float, float]:
        """The peer's point in the plane (placed by `place`)."""
        return self._coords[name]

    def one_way(self, a: str, b: str) -> float:
        if a == b:
            return 0.0
        (x1, y1), (x2, y2) = self._coords[a], self._coords[b]
        return BASE_ONE_WAY_MS + self.scale * math.hypot(x1 - x2, y1 - y2)
