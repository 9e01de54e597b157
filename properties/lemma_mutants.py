"""Deliberately wrong formulations that the z3 checker must reject (a counterexample, or
`vacuous` for contradictory premises): each shows that the matching lemma has teeth."""

from __future__ import annotations

from properties.lemmas import (
    SINGLE,
    LemmaResult,
    _result,
    _slices,
    _split_lemma,
    _unique,
    exact_children,
    path_depth_bound,
    slice_lo,
    zone,
)
from properties.z3typed import T, real


def closed_segments() -> LemmaResult:
    """Erratum E3: every remap segment closed — a boundary value is delivered twice."""
    return _unique(True)


def both_children_closed() -> LemmaResult:
    def children(x: T, lo: T, hi: T, mid: T, closed_top: T) -> tuple[T, T]:
        return zone(lo, mid, T(True), x), zone(mid, hi, closed_top, x)

    return _split_lemma("children [lo,mid] and [mid,hi] both closed", lambda a, b: (a + b) / 2,
                        children)  # fmt: skip


def thesis_midpoint() -> LemmaResult:
    """Erratum E1: Program 3.2's `minx+maxx/2.0`."""
    return _split_lemma("Program 3.2 midpoint minx + maxx/2", lambda a, b: a + b / 2,
                        exact_children)  # fmt: skip


def thesis_x_branch() -> LemmaResult:
    """Erratum E1: `if (x < mid) ... else if (x > mid)` — x == mid goes nowhere."""

    def children(x: T, lo: T, hi: T, mid: T, closed_top: T) -> tuple[T, T]:
        return zone(lo, mid, T(False), x), (x > mid) & zone(lo, hi, closed_top, x)

    return _split_lemma("Program 3.2 x branch (x < mid / x > mid)", lambda a, b: (a + b) / 2,
                        children)  # fmt: skip


def ceil_upper_slices() -> LemmaResult:
    def ceil_hi(j: T, m: T, k: T) -> T:
        return ((j + 1) * m + k - 1) // k

    return _slices(slice_lo, ceil_hi, "slices with a ceil upper bound (overlap)")


def within_bucket_forwarding() -> LemmaResult:
    r = path_depth_bound(strict=False)
    return LemmaResult("forwarding within a bucket (non-strict path)", r.invariant, r.verdict,
                       r.counterexample, r.seconds)  # fmt: skip


def vacuous_premise() -> LemmaResult:
    h, c = real("h"), real("c")
    return _result("h > c and h < c (contradictory premises)", SINGLE, [h > c, h < c], h.eq(h))


MUTANTS = [
    closed_segments,
    both_children_closed,
    thesis_midpoint,
    thesis_x_branch,
    ceil_upper_slices,
    within_bucket_forwarding,
    vacuous_premise,
]
EXPECTED = {m.__name__: ("vacuous" if m is vacuous_premise else "counterexample") for m in MUTANTS}


def run_all() -> list[LemmaResult]:
    return [m() for m in MUTANTS]
