"""Zones: non-overlapping continuous parts of one attribute's domain (Kyra §III.B, K-D1/K-D2).

A zone is the half-open interval [lo, hi), the last one of a partition closed [lo, hi], so that
every value of the domain lies in exactly one zone of a partition (decision K-D1). The default
partition is equal-width; on an int domain the parts are ceil-sized first, which reproduces
Fig. 4 (0-9 into 3 parts: 0-3, 4-6, 7-9; into 2: 0-4, 5-9) (decision K-D2).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from pubsub_spec.reference.common.model import Attribute, Number


@dataclass(frozen=True)
class Zone:
    """[lo, hi) or, when `closed`, [lo, hi] (the last zone of a partition, K-D1)."""

    lo: Number
    hi: Number
    closed: bool

    def contains(self, x: Number) -> bool:
        return self.lo <= x < self.hi or (self.closed and x == self.hi)

    def overlaps(self, lo: Number, hi: Number) -> bool:
        """Whether the closed interval [lo, hi] shares a value with the zone."""
        if lo > hi or hi < self.lo or self.empty:
            return False
        return lo < self.hi or (self.closed and lo <= self.hi)

    @property
    def empty(self) -> bool:
        """[lo, lo) holds no value: a clique member beyond the domain's values (K-D16)."""
        return not self.closed and self.hi <= self.lo

    def text(self) -> str:
        return f"[{self.lo}, {self.hi}{']' if self.closed else ')'}"

    def wire(self) -> list[Number | bool]:
        """The zone as an observation field (conformance/OBSERVATIONS.md): [lo, hi, closed]."""
        return [self.lo, self.hi, self.closed]


def equal_width(attr: Attribute, parts: int) -> tuple[Zone, ...]:
    """`parts` zones covering [attr.min, attr.max] (Kyra §III.B "balanced", decision K-D2)."""
    if parts < 1:
        raise ValueError("a partition needs at least one part")
    bounds: list[Number]
    if attr.type == "int":
        lo, hi = int(attr.min), int(attr.max)
        size = hi - lo + 1
        parts = min(parts, size)
        base, extra = divmod(size, parts)
        bounds = [lo]
        for i in range(parts):
            bounds.append(bounds[-1] + base + (1 if i < extra else 0))
        # the last zone is closed at the domain max (its bound would be max + 1)
        bounds[-1] = hi
        zones = [Zone(bounds[i], bounds[i + 1], False) for i in range(parts - 1)]
        zones.append(Zone(bounds[parts - 1], hi, True))
        return tuple(zones)
    width = (float(attr.max) - float(attr.min)) / parts
    fb = [float(attr.min) + i * width for i in range(parts)] + [float(attr.max)]
    return tuple(Zone(fb[i], fb[i + 1], i == parts - 1) for i in range(parts))


def local_partition(attr: Attribute, members: int) -> tuple[Zone, ...]:
    """One zone per clique member (Kyra §III: "each server is assigned a non-overlapping zone"):
    `equal_width`, and when an int domain has fewer values than the clique has members, the
    members beyond them get the empty zone [min, min) (decision K-D16, docs/kyra.md): a value
    cannot be split between two servers without two proxies for one event, so those members
    are never a proxy, store no subscription and join no tree."""
    zones = equal_width(attr, members)
    return zones + (Zone(attr.min, attr.min, False),) * (members - len(zones))


def zone_index(zones: tuple[Zone, ...], x: Number) -> int:
    """The one zone of a partition that contains x (K-D1: exactly one)."""
    i = bisect.bisect_right([z.lo for z in zones], x) - 1
    i = max(0, min(i, len(zones) - 1))
    if not zones[i].contains(x):
        raise ValueError(f"{x} outside the partition")
    return i
