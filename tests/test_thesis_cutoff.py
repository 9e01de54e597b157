"""Cut-off remapping (thesis §3.5): segments partition the range, exactly one contains a value
(decision D-SEG, erratum E3)."""

from __future__ import annotations

import itertools
import random

from hypothesis import assume, given
from hypothesis import strategies as st

from pubsub_spec.reference.thesis.cutoff import Segment, choose_h, segments


@given(
    st.floats(0, 1000, allow_nan=False),
    st.floats(0, 1000, allow_nan=False),
    st.floats(1, 50),
    st.floats(0.5, 0.99),
    st.floats(0, 1000, allow_nan=False),
)
def test_exactly_one_segment_contains_each_value(
    a: float, b: float, c: float, frac: float, v: float
) -> None:
    lo, hi = min(a, b), max(a, b)
    h = c * frac
    assume((hi - lo) / h < 2000)
    segs = segments(lo, hi, c, h)
    assert segs[0].lo == lo and segs[-1].hi == hi and segs[-1].closed
    assert all(s.hi - s.lo <= c for s in segs)  # every point below the cut-off line
    assert all(x.hi == y.lo for x, y in itertools.pairwise(segs))
    inside = [s for s in segs if s.contains(v)]
    assert len(inside) == (1 if lo <= v <= hi else 0)


def test_boundary_value_with_closed_segments_hits_two_erratum_e3() -> None:
    """Read literally (closed segments), the thesis' remapping delivers twice at a boundary."""
    segs = segments(0, 100, 30, 25)
    assert [(s.lo, s.hi, s.closed) for s in segs] == [
        (0, 25, False),
        (25, 50, False),
        (50, 75, False),
        (75, 100, True),
    ]
    closed = [Segment(s.index, s.lo, s.hi, True) for s in segs]
    assert sum(s.contains(50) for s in closed) == 2
    assert sum(s.contains(50) for s in segs) == 1


def test_short_range_is_one_closed_point() -> None:
    assert segments(10, 20, 30, 25) == [Segment(0, 10, 20, True)]
    assert segments(10, 20, None, 0) == [Segment(0, 10, 20, True)]


def test_h_is_below_c() -> None:
    rng = random.Random(1)
    assert all(0.5 * 10 <= choose_h(10.0, "float", rng, 0.5) < 10 for _ in range(1000))
    assert all(5 <= choose_h(10, "int", rng, 0.5) <= 9 for _ in range(1000))
