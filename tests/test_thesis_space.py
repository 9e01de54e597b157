"""Logic space mapping and zones (thesis §3.2, Program 3.1) and erratum E1."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from pubsub_spec.reference.common.model import Attribute
from pubsub_spec.reference.thesis.space import Square, target_area, zone_bounds, zone_cells

ATTR2 = Attribute("Attr2", "float", -10000.0, 10000.0)  # thesis Table 4.2
SQ = Square.of(ATTR2, 10)


def in_zone(bits: str, x: Fraction, y: Fraction) -> bool:
    x0, x1, y0, y1 = zone_bounds(bits, SQ)
    top = SQ.hi
    return x0 <= x and (x < x1 or x1 == top == x) and y0 <= y and (y < y1 or y1 == top == y)


def test_root_children_split_x_at_exact_midpoint_erratum_e1() -> None:
    """Program 3.2 computes `minx+maxx/2.0`: -10000 + 10000/2 = -5000 for Attr2, not the
    midpoint 0. The reference halves exactly, and x == mid belongs to the upper child (the
    thesis' `if (x<mid) ... else if (x>mid)` leaves it unassigned)."""
    assert zone_bounds("0", SQ)[:2] == (Fraction(-10000), Fraction(0))
    assert zone_bounds("1", SQ)[:2] == (Fraction(0), Fraction(10000))
    assert SQ.point_path(0.0, 0.0)[0] == "1"
    assert SQ.point_path(-1e-9, 0.0)[0] == "0"


def test_depth_alternates_x_then_y() -> None:
    r = zone_cells("01", SQ.k)
    assert (r.x0, r.x1, r.y0, r.y1) == (0, 16, 16, 32)


coords = st.one_of(
    st.floats(-10000, 10000, allow_nan=False),
    st.integers(0, 1024).map(lambda i: -10000 + i * 20000 / 1024),
)


@given(coords, coords, st.integers(0, 10))
def test_point_lies_in_exactly_one_zone_per_level(x: float, y: float, depth: int) -> None:
    fx, fy = Fraction(x), Fraction(y)
    level = [format(i, f"0{depth}b") if depth else "" for i in range(1 << depth)]
    hits = [b for b in level if in_zone(b, fx, fy)]
    assert hits == [SQ.point_path(x, y)[:depth]]


@given(coords, st.text("01", max_size=10), st.one_of(st.none(), st.floats(1, 5000)))
def test_target_area_overlap_is_exact(v: float, bits: str, cutoff: float | None) -> None:
    """Overlap computed on grid cells equals overlap of the exact rational rectangles."""
    area = target_area(SQ, v, cutoff)
    x0, x1, y0, y1 = zone_bounds(bits, SQ)
    fv = Fraction(v)
    lo = SQ.lo if cutoff is None else max(SQ.lo, fv - Fraction(cutoff))
    hi = SQ.hi if cutoff is None else min(SQ.hi, fv + Fraction(cutoff))
    x_ok = x0 <= fv and (x1 > lo or x1 == SQ.hi)
    y_ok = y0 <= hi and (y1 > fv or y1 == SQ.hi)
    assert area.overlaps(bits, SQ.k) == (x_ok and y_ok)


@given(coords, coords, coords)
def test_range_matches_iff_point_in_target_area(lo: float, hi: float, v: float) -> None:
    """Thesis §3.2, Fig. 3.1: l <= v <= u iff (l, u) lies in [min, v] x [v, max]; the leaf
    holding the point is among the zones the target area overlaps."""
    lo, hi = min(lo, hi), max(lo, hi)
    path = SQ.point_path(lo, hi)
    if lo <= v <= hi:
        assert target_area(SQ, v, None).overlaps(path, SQ.k)


NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.floats(-1e6, 1e6, allow_nan=False),
    st.fractions(min_value=-(10**6), max_value=10**6, max_denominator=10**4),
)


@given(NUMBERS, NUMBERS, st.floats(1e-6, 1e5), st.integers(1, 8), st.booleans())
def test_a_cell_is_the_exact_rational_floor_clamped_to_the_grid(
    value: int | float | Fraction, lo: int | float | Fraction, width: float, k: int, near: bool
) -> None:
    """`Square.cell` computes in integers; it must equal the Fraction formula of its docstring
    for ints, floats and Fractions, inside the domain, on its edges and outside it."""
    sq = Square(Fraction(lo), Fraction(lo) + Fraction(width), k)
    v = sq.lo + (Fraction(value) % Fraction(width)) if near else value
    exact = (Fraction(v) - sq.lo) * (1 << k) // (sq.hi - sq.lo)
    assert sq.cell(v) == min(max(int(exact), 0), (1 << k) - 1)
    assert sq.cell(sq.hi) == (1 << k) - 1 and sq.cell(sq.lo) == 0
