"""Zones: non-overlapping continuous parts of the content space (Kyra §III.B, K-D1/K-D2,
K-D17, K-D18 in docs/kyra.md).

A zone on one attribute is the half-open interval [lo, hi), the last one of a partition closed
[lo, hi], so that every value of the domain lies in exactly one zone of a partition (decision
K-D1); on several attributes it is a box, one such interval per attribute (`Box`, K-D18). The
default partition is balanced by the subscriptions' load (`Partitioner`, K-D17); the
equal-width one (`equal_width`) cuts an int domain into ceil-sized parts first, which
reproduces Fig. 4 (0-9 into 3 parts: 0-3, 4-6, 7-9; into 2: 0-4, 5-9) (decision K-D2).
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


# -- balanced and multi-dimensional zones (decisions K-D17, K-D18, docs/kyra.md) ---------------

Range = tuple[Number, Number]
Point = tuple[Number, ...]


@dataclass(frozen=True)
class Box:
    """A zone cut along one or more attributes (K-D18): the product of one `Zone` per cut
    attribute, in the order of `cut_attributes`. With one attribute it is the zone of K-D1."""

    dims: tuple[Zone, ...]

    def contains(self, p: Point) -> bool:
        return all(z.contains(x) for z, x in zip(self.dims, p, strict=True))

    def overlaps(self, ranges: tuple[Range, ...]) -> bool:
        """Whether the box of closed ranges shares a point with the zone."""
        return all(z.overlaps(lo, hi) for z, (lo, hi) in zip(self.dims, ranges, strict=True))

    @property
    def empty(self) -> bool:
        return any(z.empty for z in self.dims)

    def text(self) -> str:
        return " x ".join(z.text() for z in self.dims)

    def wire(self) -> list[Number | bool] | list[list[Number | bool]]:
        """One attribute: [lo, hi, closed] (conformance/OBSERVATIONS.md); several: one such
        triple per cut attribute."""
        if len(self.dims) == 1:
            return self.dims[0].wire()
        return [z.wire() for z in self.dims]


def _span(attr: Attribute, z: Zone) -> tuple[float, float]:
    """The zone as a measurable interval: an int value v stands for [v, v + 1)."""
    if attr.type == "int":
        return float(z.lo), float(z.hi) + (1.0 if z.closed else 0.0)
    return float(z.lo), float(z.hi)


def _range_span(attr: Attribute, lo: Number, hi: Number) -> tuple[float, float]:
    return (float(lo), float(hi) + 1.0) if attr.type == "int" else (float(lo), float(hi))


def _fraction(attr: Attribute, r: Range, z: Zone) -> float:
    """The share of a subscription's range that lies in the zone (its load spread uniformly
    over the range, K-D17); a zero-width float range is a point: 1 or 0."""
    a, b = _range_span(attr, *r)
    if b <= a:
        return 1.0 if z.contains(r[0]) else 0.0
    lo, hi = _span(attr, z)
    return max(0.0, min(b, hi) - max(a, lo)) / (b - a)


class Partitioner:
    """Cuts a clique's or the system's content space into parts with balanced load (Kyra
    §III.B: "non-overlapping continuous zones with balanced load").

    `attrs` are the cut attributes (K-D18: one, the partition attribute, or several); `load`
    is the subscriptions' ranges on them (K-D17: the trace's subscriptions, each of weight 1
    spread uniformly over its box, plus one pseudo-subscription over the whole domain so that
    every part has load and no subscriptions give the equal-width cut); `balanced=False` cuts
    by width. A part is halved recursively, the cut attribute turning with the depth (a k-d
    cut), the first ceil(k/2) members on the low side, at the point where the low side holds
    their share of the part's load. A part that cannot be cut on any attribute (an int range of
    one value) gives the members beyond it the empty zone (K-D16)."""

    def __init__(
        self, attrs: tuple[Attribute, ...], load: tuple[tuple[Range, ...], ...], balanced: bool
    ) -> None:
        self.attrs = attrs
        whole = tuple((a.min, a.max) for a in attrs)
        self.load = (*load, whole) if balanced else ()
        self.balanced = balanced

    def domain(self) -> Box:
        return Box(tuple(Zone(a.min, a.max, True) for a in self.attrs))

    def empty(self) -> Box:
        return Box(tuple(Zone(a.min, a.min, False) for a in self.attrs))

    def partition(self, parts: int) -> tuple[Box, ...]:
        """`parts` boxes partitioning the domain, the non-empty first (K-D16 order)."""
        if parts < 1:
            raise ValueError("a partition needs at least one part")
        if not self.balanced and len(self.attrs) == 1:
            # K-D2: the equal-width cut of Fig. 4, ceil-sized parts first on int domains
            return tuple(Box((z,)) for z in local_partition(self.attrs[0], parts))
        boxes = self._split(self.domain(), parts, 0)
        return tuple(sorted(boxes, key=lambda b: b.empty))

    def _split(self, box: Box, k: int, depth: int) -> list[Box]:
        if k == 1:
            return [box]
        k1 = (k + 1) // 2
        for j in range(len(self.attrs)):
            d = (depth + j) % len(self.attrs)
            cut = self._cut(box, d, k1, k)
            if cut is None:
                continue
            z = box.dims[d]
            low = Box((*box.dims[:d], Zone(z.lo, cut, False), *box.dims[d + 1 :]))
            high = Box((*box.dims[:d], Zone(cut, z.hi, z.closed), *box.dims[d + 1 :]))
            return self._split(low, k1, depth + 1) + self._split(high, k - k1, depth + 1)
        return [box] + [self.empty()] * (k - 1)

    def _cut(self, box: Box, d: int, k1: int, k: int) -> Number | None:
        """The bound c on attribute d with both [lo, c) and [c, hi] non-empty and the low side
        holding k1/k of the box's load (by width when not balanced); None if none exists. On an
        int attribute each side keeps as many values as it has members where the part has
        enough, and otherwise no side more values than members (so no value is wasted)."""
        attr, z = self.attrs[d], box.dims[d]
        share = k1 / k
        lo, hi = _span(attr, z)
        c = lo + share * (hi - lo)
        if self.balanced:
            q = self._quantile(box, d, share, c)
            c = q if lo < q < hi else c  # a point load at the low end: cut by width
        if attr.type == "int":
            first, last = int(z.lo), int(z.hi) if z.closed else int(z.hi) - 1
            n = last - first + 1
            if n < 2:
                return None
            least = max(1, min(k1, n - (k - k1)))
            most = min(n - 1, max(k1, n - (k - k1)))
            return first + min(max(round(c) - first, least), most)
        return c if lo < c < hi else None

    def _quantile(self, box: Box, d: int, share: float, fallback: float) -> float:
        attr, z = self.attrs[d], box.dims[d]
        lo, hi = _span(attr, z)
        dens: dict[float, float] = {}
        points: dict[float, float] = {}
        total = 0.0
        for ranges in self.load:
            w = 1.0
            for e, (a, r) in enumerate(zip(self.attrs, ranges, strict=True)):
                if e != d:
                    w *= _fraction(a, r, box.dims[e])
            if w == 0.0:
                continue
            a0, b0 = _range_span(attr, *ranges[d])
            if b0 <= a0:  # a point (zero-width float range)
                if z.contains(ranges[d][0]):
                    points[a0] = points.get(a0, 0.0) + w
                    total += w
                continue
            a1, b1 = max(a0, lo), min(b0, hi)
            if b1 <= a1:
                continue
            rho = w / (b0 - a0)
            dens[a1] = dens.get(a1, 0.0) + rho
            dens[b1] = dens.get(b1, 0.0) - rho
            total += rho * (b1 - a1)
        target = share * total
        acc, rho, prev = 0.0, 0.0, lo
        for x in sorted(set(dens) | set(points)):
            if rho > 0.0 and acc + rho * (x - prev) >= target:
                return prev + (target - acc) / rho
            acc += rho * (x - prev)
            if acc + points.get(x, 0.0) >= target and x > lo:
                return x
            acc += points.get(x, 0.0)
            rho += dens.get(x, 0.0)
            prev = x
        return fallback
