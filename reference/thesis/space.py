"""Logic space mapping and 2d-tree zones (thesis §3.2, Fig. 3.1; §3.2.1, Program 3.1).

A range [l, u] on attribute A is the point (l, u) of A's square [min, max]^2; an event value v
has the target area [min, v] x [v, max]. A tree node is identified by the attribute's qualified
name and a bit string (child "0" / "1"); at depth d it splits on x when d is even, on y when d
is odd (thesis §3.2.1). Child 0 is the lower half [lo, mid), child 1 the upper half [mid, hi];
an upper bound is closed only at the domain max (docs/design.md#core).

Zone bounds are exact: every value is mapped once, with exact rational arithmetic, to its cell
on a grid of 2^K cells per axis (K = ceil(max_depth / 2)); all zone bounds are grid lines, so
"is x below the zone's upper bound" is an integer comparison and a point lies in exactly one
leaf. This replaces the thesis' float midpoints (Program 3.1 / 3.2, erratum E1 in
docs/thesis.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from pubsub_spec.reference.common.model import Attribute, Number


def axis_bits(max_depth: int) -> int:
    """Grid resolution K per axis: depth d has ceil(d/2) x-splits and floor(d/2) y-splits."""
    return (max_depth + 1) // 2


# bit j of a byte moved to bit 2j (Square.point_path interleaves two cells with it)
_SPREAD = tuple(sum((b >> j & 1) << 2 * j for j in range(8)) for b in range(256))


@dataclass(frozen=True)
class Square:
    """The logic space of one attribute: its domain on both axes, with a grid of 2^K cells."""

    lo: Fraction
    hi: Fraction
    k: int

    @staticmethod
    def of(attr: Attribute, max_depth: int) -> Square:
        return Square(Fraction(attr.min), Fraction(attr.max), axis_bits(max_depth))

    @functools.cached_property
    def _ratios(self) -> tuple[int, int, int, int]:
        """(a, b, c, d): min = a/b and max - min = c/d, in lowest terms (b, c, d > 0)."""
        w = self.hi - self.lo
        return self.lo.numerator, self.lo.denominator, w.numerator, w.denominator

    def cell(self, value: Number | Fraction) -> int:
        """floor((v - min) * 2^K / (max - min)), exact; max itself lies in the last cell.
        With v = p/q: floor((p b - a q) 2^K d / (q b c)), in integers (a Fraction per value
        cost a tenth of conform --ops' array variant; tests/test_thesis_space.py pins it)."""
        p, q = value.as_integer_ratio()  # exact for int, float and Fraction
        a, b, c, d = self._ratios
        cell = ((p * b - a * q) << self.k) * d // (q * b * c)
        return min(max(cell, 0), (1 << self.k) - 1)

    def clip(self, value: Fraction) -> Fraction:
        return min(max(value, self.lo), self.hi)

    def point_path(self, x: Number, y: Number) -> str:
        """The bit string of the deepest zone containing (x, y): x and y bits interleaved,
        x first (depth 0 splits on x, thesis §3.2.1). Interleaved a byte at a time (bit j of a
        byte to bit 2j, `_SPREAD`) and written as 2K binary digits: the same string as bit by
        bit, at a fifth of the cost (every stored point has one)."""
        cx, cy = self.cell(x), self.cell(y)
        if self.k == 0:
            return ""
        z = 0
        for i in range(0, self.k, 8):
            z |= (_SPREAD[cx >> i & 255] << 1 | _SPREAD[cy >> i & 255]) << 2 * i
        return format(z, f"0{2 * self.k}b")


@dataclass(frozen=True)
class CellRect:
    """A zone in grid cells: x in [x0, x1), y in [y0, y1) (the last cell includes max)."""

    x0: int
    x1: int
    y0: int
    y1: int


@functools.lru_cache(maxsize=1 << 16)  # a pure function, called per probe and record
def zone_cells(bits: str, k: int) -> CellRect:
    """The zone of tree node `bits` (thesis §3.2.1: alternate x/y halving, x first)."""
    xb, yb = bits[0::2], bits[1::2]
    xs, ys = 1 << (k - len(xb)), 1 << (k - len(yb))
    x = int(xb, 2) if xb else 0
    y = int(yb, 2) if yb else 0
    return CellRect(x * xs, (x + 1) * xs, y * ys, (y + 1) * ys)


def zone_bounds(bits: str, square: Square) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """Exact zone bounds (xmin, xmax, ymin, ymax) as rationals, for documentation and tests."""
    r = zone_cells(bits, square.k)
    w = (square.hi - square.lo) / (1 << square.k)
    return (square.lo + r.x0 * w, square.lo + r.x1 * w, square.lo + r.y0 * w, square.lo + r.y1 * w)


@dataclass(frozen=True)
class TargetArea:
    """A closed query rectangle [x_lo, x_hi] x [y_lo, y_hi], kept as grid cells of its bounds.

    Overlap with a zone [x0, x1) x [y0, y1) is exact: "some x of the zone is <= x_hi" is
    x0 <= cell(x_hi), and "some x of the zone is >= x_lo" is x1 > cell(x_lo) (see module doc).
    """

    cx_lo: int
    cx_hi: int
    cy_lo: int
    cy_hi: int

    def overlaps(self, bits: str, k: int) -> bool:
        return self.overlaps_zone(zone_cells(bits, k))

    def overlaps_zone(self, r: CellRect) -> bool:
        return r.x0 <= self.cx_hi and r.x1 > self.cx_lo and r.y0 <= self.cy_hi and r.y1 > self.cy_lo


def target_area(square: Square, v: Number | None, cutoff: Number | None) -> TargetArea:
    """The event's target area on one attribute (thesis §3.2, Fig. 3.1): [min, v] x [v, max].

    With a cut-off line y = x + c (thesis §3.5) only the band below it is searched: every stored
    point has y - x <= c, so x in [v - c, v] and y in [v, v + c]. An absent attribute
    (lenient matching, thesis §3.4.1) searches the whole square (or the band).
    """
    top = (1 << square.k) - 1
    if v is None:
        return TargetArea(0, top, 0, top)
    fv = Fraction(v)
    cv = square.cell(fv)
    if cutoff is None:
        return TargetArea(0, cv, cv, top)
    fc = Fraction(cutoff)
    return TargetArea(square.cell(square.clip(fv - fc)), cv, cv, square.cell(square.clip(fv + fc)))


def parent(bits: str) -> str:
    return bits[:-1]
