"""Unbounded z3 proofs of the facts the four invariants rest on (docs/z3-lemmas.md).

Each lemma states premises and a conclusion over unbounded reals, integers or bit-vectors; the
prover first checks that the premises are satisfiable (a vacuous proof is reported as such),
then that premises and the negated conclusion are unsatisfiable, and shows a counterexample
otherwise. `python -m properties.lemmas` prints the table.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass

from properties.z3typed import (
    T,
    all_of,
    any_of,
    bitvec,
    bv_const,
    bv_xor,
    integer,
    ite,
    prove,
    real,
    to_int,
    to_real,
    ult,
    xor,
)

NO_MISS = "no missed matches under growth-only trees"
SINGLE = "single delivery with cut-off remapping"
DEPTH = "bounded tree depth"
ONE_WAY = "one-way dissemination"


@dataclass(frozen=True)
class LemmaResult:
    name: str
    invariant: str
    verdict: str
    counterexample: str
    seconds: float


Lemma = Callable[[], LemmaResult]


def _result(name: str, invariant: str, premises: list[T], conclusion: T) -> LemmaResult:
    o = prove(premises, conclusion)
    return LemmaResult(name, invariant, o.verdict, o.model, o.seconds)


def between(lo: T | int, x: T, hi: T | int) -> T:
    return all_of(x >= lo, x <= hi)


# -- 1. range/point mapping (thesis §3.2, Fig. 3.1) -----------------------------------------
def range_point_mapping() -> LemmaResult:
    mn, mx, lo, hi, v = (real(n) for n in ("min", "max", "l", "u", "v"))
    premises = [mn < mx, mn <= lo, lo <= hi, hi <= mx, between(mn, v, mx)]
    in_range = all_of(lo <= v, v <= hi)
    in_area = all_of(between(mn, lo, v), between(v, hi, mx))  # (l,u) in [min,v] x [v,max]
    return _result("range [l,u] matches v iff (l,u) in the target area", NO_MISS, premises,
                   in_range.eq(in_area))  # fmt: skip


# -- 2. a split partitions its zone (thesis §3.2.1, Program 3.1; DESIGN.md) ------------------
def zone(lo: T, hi: T, closed_top: T, x: T) -> T:
    """[lo, hi), or [lo, hi] at the domain max."""
    return all_of(lo <= x, any_of(x < hi, all_of(closed_top, x.eq(hi))))


def _split_lemma(
    name: str, mid_of: Callable[[T, T], T], children: Callable[..., tuple[T, T]]
) -> LemmaResult:
    lo, hi, dmax, x = real("lo"), real("hi"), real("domain_max"), real("x")
    closed_top = hi.eq(dmax)
    mid = mid_of(lo, hi)
    parent = zone(lo, hi, closed_top, x)
    c0, c1 = children(x, lo, hi, mid, closed_top)
    premises = [lo < hi, hi <= dmax]
    exactly_one = all_of(parent.eq(xor(c0, c1)), (c0 | c1) >> parent)
    return _result(name, NO_MISS, premises, exactly_one)


def exact_children(x: T, lo: T, hi: T, mid: T, closed_top: T) -> tuple[T, T]:
    return zone(lo, mid, T(False), x), zone(mid, hi, closed_top, x)


def split_partitions_zone() -> LemmaResult:
    return _split_lemma(
        "children [lo,mid) and [mid,hi] partition the parent", lambda a, b: (a + b) / 2,
        exact_children,
    )  # fmt: skip


# -- 3. cut-off remapping (thesis §3.5; DESIGN.md decision D-SEG) -----------------------------
# Every condition is invariant under translation and positive scaling of (l, u, v, c, h), so
# h = 1 loses no generality and keeps the segment bounds l + i*h linear.
def _segments() -> dict[str, T]:
    lo, hi, v, c, mn, mx = (real(n) for n in ("l", "u", "v", "c", "min", "max"))
    n = integer("n")
    premises = all_of(
        c > 1,  # h = 1 < c
        hi - lo > c,
        mn <= lo,
        hi <= mx,
        between(mn, v, mx),
        n >= 1,
        to_real(n) - 1 < hi - lo,
        hi - lo <= to_real(n),
    )
    return {"l": lo, "u": hi, "v": v, "c": c, "min": mn, "max": mx, "n": n, "premises": premises}


def segment(s: dict[str, T], i: T, closed_all: bool = False) -> tuple[T, T, T, T]:
    """(in range, lo_i, hi_i, delivers v) for segment i."""
    lo_i = s["l"] + to_real(i)
    last = i.eq(s["n"] - 1)
    hi_i = ite(last, s["u"], s["l"] + to_real(i) + 1)
    closed = T(True) if closed_all else last
    v = s["v"]
    delivers = all_of(lo_i <= v, any_of(v < hi_i, all_of(closed, v <= hi_i)))
    return all_of(i >= 0, i < s["n"]), lo_i, hi_i, delivers


def cutoff_exists() -> LemmaResult:
    s = _segments()
    v, lo = s["v"], s["l"]
    witness = ite(to_int(v - lo) < s["n"] - 1, to_int(v - lo), s["n"] - 1)
    ok, lo_i, hi_i, delivers = segment(s, witness)
    c, mn, mx = s["c"], s["min"], s["max"]
    in_area = all_of(
        lo_i >= ite(mn > v - c, mn, v - c), lo_i <= v, hi_i >= v, hi_i <= ite(mx < v + c, mx, v + c)
    )
    matching = between(lo, v, s["u"])
    return _result("a matching value lies in a segment whose point is in the target area",
                   SINGLE, [s["premises"], matching], all_of(ok, delivers, in_area))  # fmt: skip


def _unique(closed_all: bool) -> LemmaResult:
    s = _segments()
    i, j = integer("i"), integer("j")
    ok_i, _, _, d_i = segment(s, i, closed_all)
    ok_j, _, _, d_j = segment(s, j, closed_all)
    name = "no value is delivered by two segments" + (" (closed segments)" if closed_all else "")
    return _result(name, SINGLE, [s["premises"], ok_i, ok_j, i.ne(j)], ~(d_i & d_j))


def cutoff_unique() -> LemmaResult:
    return _unique(False)


def cutoff_no_spurious() -> LemmaResult:
    s = _segments()
    i = integer("i")
    ok, _, _, d = segment(s, i)
    outside = any_of(s["v"] < s["l"], s["v"] > s["u"])
    return _result("a non-matching value is delivered by no segment", SINGLE,
                   [s["premises"], ok, outside], ~d)  # fmt: skip


def points_below_cutoff() -> LemmaResult:
    s = _segments()
    i = integer("i")
    ok, lo_i, hi_i, _ = segment(s, i)
    return _result("every remapped point lies on or below the cut-off line", SINGLE,
                   [s["premises"], ok], hi_i - lo_i <= s["c"])  # fmt: skip


# -- 4. LBDD slices partition the target bucket (seed 003, Algorithm 2; decision D-L2) -------
def slice_lo(j: T, m: T, k: T) -> T:
    return (j * m) // k


def _slices(lower: Callable[[T, T, T], T], upper: Callable[[T, T, T], T], name: str) -> LemmaResult:
    """Slice j is [lower(j), upper(j)); they must start at 0, end at m, be contiguous
    (upper(j) = lower(j+1)), ordered, and differ in size by at most one."""
    k, m, j = integer("k"), integer("m"), integer("j")
    premises = [k >= 1, m >= 0, j >= 0, j < k]
    a, b = lower(j, m, k), upper(j, m, k)
    q = m // k
    conclusion = all_of(
        lower(k * 0, m, k).eq(0),
        upper(k - 1, m, k).eq(m),
        b.eq(lower(j + 1, m, k)),
        a <= b,
        any_of((b - a).eq(q), (b - a).eq(q + 1)),
    )
    return _result(name, ONE_WAY, premises, conclusion)


def lbdd_slices_partition() -> LemmaResult:
    return _slices(
        slice_lo, lambda j, m, k: slice_lo(j + 1, m, k),
        "slices [floor(j m / k), floor((j+1) m / k)) partition the target bucket",
    )  # fmt: skip


# -- 5. LBDD buckets strictly increase along an edge; depth bound (seed 003, §3.2, §3.5.2) ----
W = 32


def bit_length(d: T) -> T:
    out: T = ite(d.eq(bv_const(0, W)), 0, 1)
    for m in range(2, W + 1):
        out = ite(~ult(d, bv_const(1 << (m - 1), W)), m, out)
    return out


def bucket_order_is_distance_order() -> LemmaResult:
    src, x, y = bitvec("digest_src", W), bitvec("digest_x", W), bitvec("digest_y", W)
    dx, dy = bv_xor(src, x), bv_xor(src, y)
    return _result("a higher bucket means a larger XOR distance to the source", ONE_WAY,
                   [bit_length(dx) < bit_length(dy)], ult(dx, dy))  # fmt: skip


def path_depth_bound(strict: bool = True) -> LemmaResult:
    """A path whose bucket numbers (0..W) strictly increase has at most W + 1 nodes."""
    nodes = [integer(f"bucket_{i}") for i in range(W + 2)]
    premises = [between(0, b, W) for b in nodes]
    for a, b in itertools.pairwise(nodes):
        premises.append(a < b if strict else a <= b)
    name = "a one-way path has at most 33 nodes" + ("" if strict else " (within-bucket edges)")
    # stated as "no path of W + 2 nodes satisfies the ordering" (its premise is trivially
    # satisfiable, so the proof is not vacuous)
    o = prove([nodes[0] >= 0], ~all_of(*premises))
    return LemmaResult(name, DEPTH, o.verdict, o.model, o.seconds)


LEMMAS: list[Lemma] = [
    range_point_mapping,
    split_partitions_zone,
    cutoff_exists,
    cutoff_unique,
    cutoff_no_spurious,
    points_below_cutoff,
    lbdd_slices_partition,
    bucket_order_is_distance_order,
    path_depth_bound,
]


def run_all() -> list[LemmaResult]:
    return [lemma() for lemma in LEMMAS]


def table(results: list[LemmaResult]) -> list[str]:
    out = []
    for r in results:
        out.append(f"{r.verdict:<15} {r.seconds:6.2f}s  {r.invariant[:40]:<40}  {r.name}")
        if r.verdict != "proved" and r.counterexample:
            out.extend("      " + line for line in r.counterexample.splitlines())
    return out


if __name__ == "__main__":
    results = run_all()
    print("\n".join(table(results)))
    sys.exit(0 if all(r.verdict == "proved" for r in results) else 1)
