"""Unbounded z3 proofs of the facts the four invariants rest on (docs/z3-lemmas.md).

Each lemma states premises and (named) conclusions over unbounded reals, unbounded integers or
32-bit vectors. The prover first checks that the premises are satisfiable (a vacuous proof is
reported as such), then that the premises with the negated conclusion are unsatisfiable, and
otherwise prints a counterexample. The builders (`split_check`, `Remap`, `slices_check`, ...)
are shared with `properties.lemma_mutants`, which feeds them broken formulations.
`python -m pubsub_spec.properties.lemmas` prints the table; `pubsub-spec check` includes it.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

from pubsub_spec.properties.z3typed import (
    DEFAULT_RLIMIT,
    T,
    Verdict,
    all_of,
    any_of,
    bit,
    bitvec,
    boolean,
    bv_const,
    bv_xor,
    distinct,
    iff,
    integer,
    ite,
    lshr,
    maximum,
    minimum,
    prove,
    real,
    to_int,
    to_real,
    ult,
    var,
)

NO_MISS = "no missed matches under growth-only trees"
SINGLE = "single delivery with cut-off remapping"
DEPTH = "bounded tree depth"
ONE_WAY = "one-way dissemination"
INVARIANTS = (ONE_WAY, NO_MISS, SINGLE, DEPTH)

Sort = Literal["real", "int"]


@dataclass(frozen=True)
class LemmaResult:
    name: str
    invariant: str
    verdict: Verdict
    counterexample: str  # empty when proved; the model, or why vacuous / unknown
    seconds: float
    source: str = ""
    violated: tuple[str, ...] = ()  # the named conclusions a counterexample violates
    resources: int = 0  # z3 resources spent (deterministic; the budget is `RLIMIT`)
    premises: tuple[str, ...] = ()  # the names of the premises used
    conclusions: tuple[str, ...] = ()  # the names of the conclusions


Lemma = Callable[[], LemmaResult]

# The resource budget of every lemma: z3's deterministic rlimit, per check (not a wall-clock
# timeout). Each lemma spends far less (`resources`; tests/test_properties_strength.py keeps a
# margin of 10x), so a lemma that comes back `unknown` is a regression on any machine.
RLIMIT = DEFAULT_RLIMIT

# Premises left out of the next `check` (for `weakened`): a lemma is not allowed to follow
# from fewer premises than it states unless the premise is declared redundant.
_DROPPED: ContextVar[frozenset[str]] = ContextVar("dropped_premises", default=frozenset())


def check(
    name: str,
    invariant: str,
    source: str,
    premises: Mapping[str, T],
    conclusions: Mapping[str, T],
    show: Mapping[str, T] | None = None,
) -> LemmaResult:
    dropped = _DROPPED.get()
    kept = {k: p for k, p in premises.items() if k not in dropped}
    o = prove(kept, conclusions, show, RLIMIT)
    return LemmaResult(
        name,
        invariant,
        o.verdict,
        o.model,
        o.seconds,
        source,
        o.violated,
        o.resources,
        tuple(kept),
        tuple(conclusions),
    )


def weakened(lemma: Callable[[], LemmaResult], drop: str) -> LemmaResult:
    """The lemma checked without its premise named `drop`."""
    token = _DROPPED.set(frozenset({drop}))
    try:
        return lemma()
    finally:
        _DROPPED.reset(token)


def between(lo: T | int, x: T, hi: T | int) -> T:
    return all_of(x >= lo, x <= hi)


# == 1. range/point mapping ===============================================================
# thesis §3.2, Fig. 3.1: the range [l, u] is the point (l, u); the event value v has the target
# area [min, v] x [v, max].
def mapping_check(
    name: str,
    sort: Sort,
    area: Callable[[T, T, T, T, T, T], T] | None = None,
) -> LemmaResult:
    mn, mx, lo, hi, v = (var(n, sort) for n in ("min", "max", "l", "u", "v"))

    def closed_area(mn: T, mx: T, v: T, x: T, y: T, _: T) -> T:
        return all_of(between(mn, x, v), between(v, y, mx))

    in_area = (area or closed_area)(mn, mx, v, lo, hi, v)
    return check(
        name,
        NO_MISS,
        "thesis §3.2, Fig. 3.1",
        {
            "min < max": mn < mx,
            "min <= l <= u <= max": all_of(mn <= lo, lo <= hi, hi <= mx),
            "min <= v <= max": between(mn, v, mx),
        },
        {"l <= v <= u iff (l, u) in [min, v] x [v, max]": iff(between(lo, v, hi), in_area)},
    )


def range_point_mapping() -> LemmaResult:
    return mapping_check("range [l,u] matches v iff (l,u) lies in v's target area", "real")


# == 2. a split partitions its zone =======================================================
# thesis §3.2.1 and Program 3.1; docs/design.md#core: depth d splits on x when d is even, on y
# when odd; child 0 is [lo, mid), child 1 is [mid, hi]; a zone's upper bound is closed only at the
# domain max; mid = (lo + hi) / 2 exactly.
MidRule = Callable[[T, T, T], T]  # (lo, hi, is_x_level) -> mid
ChildRule = Callable[[T, T, T, T, T, T], tuple[T, T]]  # (p, lo, mid, hi, top_closed, is_x)


def exact_mid(lo: T, hi: T, _is_x: T) -> T:
    return (lo + hi) / 2


def half_open_children(p: T, lo: T, mid: T, hi: T, top: T, _is_x: T) -> tuple[T, T]:
    return all_of(lo <= p, p < mid), all_of(mid <= p, any_of(p < hi, all_of(top, p.eq(hi))))


def split_check(name: str, mid_rule: MidRule, children: ChildRule) -> LemmaResult:
    d = integer("depth")
    dmin, dmax = real("domain_min"), real("domain_max")
    x0, x1, y0, y1 = real("x_lo"), real("x_hi"), real("y_lo"), real("y_hi")
    px, py, mid = real("px"), real("py"), real("mid")
    is_x = (d % 2).eq(0)

    def axis(lo: T, hi: T, p: T) -> T:
        """p in [lo, hi), or [lo, hi] when hi is the domain max."""
        return all_of(lo <= p, any_of(p < hi, all_of(hi.eq(dmax), p.eq(hi))))

    lo, hi, p = ite(is_x, x0, y0), ite(is_x, x1, y1), ite(is_x, px, py)
    other = ite(is_x, axis(y0, y1, py), axis(x0, x1, px))
    parent = all_of(axis(x0, x1, px), axis(y0, y1, py))
    a0, a1 = children(p, lo, mid, hi, hi.eq(dmax), is_x)
    c0, c1 = all_of(a0, other), all_of(a1, other)
    return check(
        name,
        NO_MISS,
        "thesis §3.2.1, Program 3.1/3.2; docs/design.md#core",
        {
            "depth >= 0": d >= 0,
            "zone inside the domain, non-empty": all_of(
                dmin <= x0, x0 < x1, x1 <= dmax, dmin <= y0, y0 < y1, y1 <= dmax
            ),
            "mid as computed": mid.eq(mid_rule(lo, hi, is_x)),
        },
        {
            "a point of the parent lies in a child": parent >> any_of(c0, c1),
            "no point lies in both children": ~all_of(c0, c1),
            "a point of a child lies in the parent": any_of(c0, c1) >> parent,
            "lo < mid < hi (children non-empty, child 0 open at its top)": all_of(
                lo < mid, mid < hi
            ),
        },
        {"split axis is x": is_x, "in child 0": c0, "in child 1": c1, "in parent": parent},
    )


def split_partitions_zone() -> LemmaResult:
    return split_check(
        "children [lo,mid) and [mid,hi] partition the parent zone", exact_mid, half_open_children
    )


def program_mid_check(name: str, program_mid: Callable[[T, T], T]) -> LemmaResult:
    """thesis Program 3.2 line 25 (erratum E1): `minx+maxx/2.0` is minx + (maxx/2), which is the
    midpoint only when minx = 0 — right at the root of a [0, max] domain, wrong below it.
    `program_mid` is how the line is read."""
    lo, hi = real("minx"), real("maxx")
    same = program_mid(lo, hi).eq((lo + hi) / 2)
    return check(
        name,
        NO_MISS,
        "thesis Program 3.2 line 25",
        {"minx < maxx": lo < hi},
        {"minx + maxx/2 = (minx + maxx)/2 iff minx = 0": iff(same, lo.eq(0))},
    )


def thesis_midpoint_only_at_zero() -> LemmaResult:
    return program_mid_check(
        "Program 3.2's minx+maxx/2.0 is the midpoint iff minx = 0 (erratum E1)",
        lambda lo, hi: lo + hi / 2,  # C precedence: minx + (maxx / 2.0)
    )


# == 3. cut-off remapping =================================================================
# thesis §3.5, Fig. 3.4, erratum E3 and decision D-SEG (docs/thesis.md): a range with u - l > c
# becomes the segments [a_i, a_{i+1}) for i < n-1 and [a_{n-1}, u] (closed), a_i = l + i h,
# n = ceil((u - l)/h), 0 < h < c; segment i is stored as the point (a_i, min(a_{i+1}, u)) with
# its closure. The event's target area below the cut-off line y = x + c is
# [max(min, v - c), v] x [v, min(max, v + c)]; a point found there is delivered iff v lies in
# its segment (respecting closure).
class Remap:
    """The symbolic remapping of one range, with every quantity unbounded (n is symbolic)."""

    def __init__(
        self,
        sort: Sort,
        *,
        closed_segments: bool = False,
        open_last: bool = False,
        unclipped_last: bool = False,
        floor_n: bool = False,
        h_premise: Callable[[T, T], T] | None = None,
    ) -> None:
        """Mutant switches: every segment closed (erratum E3), the last one half-open, the last
        point's y not clipped to u (a_n instead of min(a_n, u)), n = floor((u - l)/h)."""
        self.sort = sort
        self.lo, self.hi, self.v = var("l", sort), var("u", sort), var("v", sort)
        self.c, self.h = var("c", sort), var("h", sort)
        self.mn, self.mx = var("min", sort), var("max", sort)
        self.n = integer("n")
        self.closed_segments, self.open_last = closed_segments, open_last
        self.unclipped_last, self.floor_n = unclipped_last, floor_n
        h, c, lo, hi, n = self.h, self.c, self.lo, self.hi, self.n
        count = (
            all_of(n >= 1, self.real_of(n) * h <= hi - lo, hi - lo < self.real_of(n + 1) * h)
            if floor_n
            else all_of(n >= 1, self.real_of(n - 1) * h < hi - lo, hi - lo <= self.real_of(n) * h)
        )
        self.premises: dict[str, T] = {
            "0 < h < c": (h_premise or (lambda h, c: all_of(h > 0, h < c)))(h, c),
            "remapped: u - l > c": hi - lo > c,
            "min <= l <= u <= max": all_of(self.mn <= lo, lo <= hi, hi <= self.mx),
            "min <= v <= max": between(self.mn, self.v, self.mx),
            "n = ceil((u - l)/h): (n-1) h < u - l <= n h": count,
        }

    def real_of(self, i: T) -> T:
        return to_real(i) if self.sort == "real" else i

    def a(self, i: T) -> T:
        return self.lo + self.real_of(i) * self.h

    def valid(self, i: T) -> T:
        return all_of(i >= 0, i < self.n)

    def point(self, i: T) -> tuple[T, T, T]:
        """Stored point (x, y) of segment i and whether the segment is closed at y."""
        last = i.eq(self.n - 1)
        y = self.a(i + 1) if self.unclipped_last else minimum(self.a(i + 1), self.hi)
        if self.floor_n:  # the last segment runs to u, however long (the mutant's point)
            y = ite(last, self.hi, y)
        closed = (
            boolean(True) if self.closed_segments else (boolean(False) if self.open_last else last)
        )
        return self.a(i), y, closed

    def in_area(self, x: T, y: T) -> T:
        """(x, y) in the target area restricted below the cut-off line."""
        v, c = self.v, self.c
        return all_of(maximum(self.mn, v - c) <= x, x <= v, v <= y, y <= minimum(self.mx, v + c))

    def delivers(self, i: T) -> T:
        x, y, closed = self.point(i)
        return all_of(self.in_area(x, y), any_of(self.v < y, closed))

    def witness(self) -> T:
        """i* = min(floor((v - l)/h), n - 1): the segment that holds v."""
        q = (self.v - self.lo) / self.h
        fl = to_int(q) if self.sort == "real" else (self.v - self.lo) // self.h
        return ite(fl < self.n - 1, fl, self.n - 1)


def cutoff_exists_check(name: str, r: Remap) -> LemmaResult:
    i = r.witness()
    x, y, _ = r.point(i)
    return check(
        name,
        SINGLE,
        "thesis §3.5; D-SEG",
        {**r.premises, "v matches: l <= v <= u": between(r.lo, r.v, r.hi)},
        {
            "0 <= i* < n": r.valid(i),
            "point i* lies in the restricted target area": r.in_area(x, y),
            "segment i* delivers v": r.delivers(i),
        },
        {"i*": i, "x_i*": x, "y_i*": y},
    )


def cutoff_unique_check(name: str, r: Remap) -> LemmaResult:
    i, j = integer("i"), integer("j")
    xi, yi, _ = r.point(i)
    xj, yj, _ = r.point(j)
    return check(
        name,
        SINGLE,
        "thesis §3.5 ('not notified of a same event multiple times'); erratum E3; D-SEG",
        {**r.premises, "0 <= i, j < n, i != j": all_of(r.valid(i), r.valid(j), i.ne(j))},
        {"not both segments i and j deliver v": ~all_of(r.delivers(i), r.delivers(j))},
        {"x_i": xi, "y_i": yi, "x_j": xj, "y_j": yj},
    )


def cutoff_no_spurious_check(name: str, r: Remap) -> LemmaResult:
    i = integer("i")
    return check(
        name,
        SINGLE,
        "thesis §3.5",
        {**r.premises, "0 <= i < n": r.valid(i), "v < l or v > u": any_of(r.v < r.lo, r.v > r.hi)},
        {"segment i does not deliver v": ~r.delivers(i)},
    )


def points_below_line_check(name: str, r: Remap) -> LemmaResult:
    i = integer("i")
    x, y, _ = r.point(i)
    return check(
        name,
        SINGLE,
        "thesis §3.5, Fig. 3.4",
        {**r.premises, "0 <= i < n": r.valid(i)},
        {
            "y_i - x_i <= c (on or below the cut-off line)": y - x <= r.c,
            "l <= x_i < y_i <= u (a point of [l, u], above the diagonal)": all_of(
                r.lo <= x, x < y, y <= r.hi
            ),
        },
        {"x_i": x, "y_i": y},
    )


def unremapped_in_band_check(name: str, sort: Sort, remapped_premise: bool = False) -> LemmaResult:
    lo, hi, v, c = var("l", sort), var("u", sort), var("v", sort), var("c", sort)
    mn, mx = var("min", sort), var("max", sort)
    short = hi - lo > c if remapped_premise else hi - lo <= c
    return check(
        name,
        SINGLE,
        "thesis §3.5; D-SEG",
        {
            "c > 0": c > 0,
            (
                "kept as one point although u - l > c"
                if remapped_premise
                else "not remapped: u - l <= c"
            ): short,
            "min <= l <= u <= max": all_of(mn <= lo, lo <= hi, hi <= mx),
            "v matches: l <= v <= u": between(lo, v, hi),
        },
        {
            "u - l <= c": hi - lo <= c,
            "(l, u) lies in the restricted target area": all_of(
                maximum(mn, v - c) <= lo, lo <= v, v <= hi, hi <= minimum(mx, v + c)
            ),
        },
    )


def _cutoff_lemmas(sort: Sort) -> list[Lemma]:
    tag = "reals" if sort == "real" else "integers"

    def exists() -> LemmaResult:
        return cutoff_exists_check(
            f"a matching v is delivered by segment min(floor((v-l)/h), n-1), in the band ({tag})",
            Remap(sort),
        )

    def unique() -> LemmaResult:
        return cutoff_unique_check(f"no two segments deliver the same v ({tag})", Remap(sort))

    def no_spurious() -> LemmaResult:
        return cutoff_no_spurious_check(
            f"a v outside [l,u] is delivered by no segment ({tag})", Remap(sort)
        )

    def below() -> LemmaResult:
        return points_below_line_check(
            f"every remapped point lies on or below the cut-off line ({tag})", Remap(sort)
        )

    def unremapped() -> LemmaResult:
        return unremapped_in_band_check(
            f"an unremapped range (u-l <= c) is in the band of every v it matches ({tag})", sort
        )

    out: list[Lemma] = [exists, unique, no_spurious, below, unremapped]
    for f in out:
        f.__name__ = f"cutoff_{f.__name__}_{tag}"
    return out


# == 4. LBDD slices =======================================================================
# LBDD §3.3, Algorithm 2; LBDD-E1 and decision D-L2 (docs/lbdd.md): with k nodes in the own
# bucket and m in the target bucket, rank j takes target ranks [floor(j m/k), floor((j+1) m/k)).
SliceBound = Callable[[T, T, T], T]  # (j, m, k) -> bound


def floor_lo(j: T, m: T, k: T) -> T:
    return (j * m) // k


def floor_hi(j: T, m: T, k: T) -> T:
    return ((j + 1) * m) // k


def slices_cover_check(name: str, lower: SliceBound, upper: SliceBound) -> LemmaResult:
    k, m, t, i, j = (integer(n) for n in ("k", "m", "t", "i", "j"))
    w = ((t + 1) * k - 1) // m  # j* = ceil((t+1) k / m) - 1, the slice that holds rank t

    def holds(j: T) -> T:
        return all_of(j >= 0, j < k, lower(j, m, k) <= t, t < upper(j, m, k))

    return check(
        name,
        ONE_WAY,
        "LBDD §3.3 Algorithm 2, §3.5.1 Theorem 1 (one father); D-L2",
        # i and j appear in the second conclusion only: as a premise, i != j with 0 <= i, j < k
        # would exclude k = 1 (a single slice) from the first conclusion too (found
        # by mutation: `k >= 2` for `k >= 1` then changed nothing)
        {
            "k >= 1, m >= 0": all_of(k >= 1, m >= 0),
            "0 <= t < m": all_of(t >= 0, t < m),
        },
        {
            "rank t is in slice j* = ceil((t+1)k/m) - 1": holds(w),
            # holds(j) contains 0 <= j < k: slices i != j of the k never both hold rank t
            "rank t is not in two slices i != j": i.ne(j) >> ~all_of(holds(i), holds(j)),
        },
        {
            "j*": w,
            "slice i lo": lower(i, m, k),
            "slice i hi": upper(i, m, k),
            "slice j lo": lower(j, m, k),
            "slice j hi": upper(j, m, k),
        },
    )


def slices_shape_check(name: str, lower: SliceBound, upper: SliceBound) -> LemmaResult:
    k, m, i, j = (integer(n) for n in ("k", "m", "i", "j"))
    zero = k * 0
    size_i, size_j = upper(i, m, k) - lower(i, m, k), upper(j, m, k) - lower(j, m, k)
    return check(
        name,
        ONE_WAY,
        "LBDD §3.3 Algorithm 2, §3.5 load balancing; D-L2",
        {
            "k >= 1, m >= 0": all_of(k >= 1, m >= 0),
            "0 <= i, j < k": all_of(i >= 0, i < k, j >= 0, j < k),
        },
        {
            "slice 0 starts at 0": lower(zero, m, k).eq(0),
            "slice k-1 ends at m": upper(k - 1, m, k).eq(m),
            "contiguous: hi(j) = lo(j+1)": upper(j, m, k).eq(lower(j + 1, m, k)),
            "within [0, m]: 0 <= lo(j) <= hi(j) <= m": all_of(
                lower(j, m, k) >= 0, lower(j, m, k) <= upper(j, m, k), upper(j, m, k) <= m
            ),
            "balanced: sizes differ by at most 1": all_of(
                size_i - size_j <= 1, size_j - size_i <= 1
            ),
        },
        {
            "lo(i)": lower(i, m, k),
            "hi(i)": upper(i, m, k),
            "lo(j)": lower(j, m, k),
            "hi(j)": upper(j, m, k),
            "lo(j+1)": lower(j + 1, m, k),
        },
    )


def lbdd_slices_cover() -> LemmaResult:
    return slices_cover_check(
        "every target rank t is in exactly one slice [floor(jm/k), floor((j+1)m/k))",
        floor_lo,
        floor_hi,
    )


def lbdd_slices_shape() -> LemmaResult:
    return slices_shape_check(
        "slices run from 0 to m, contiguous, sizes differ by at most 1", floor_lo, floor_hi
    )


# == 5. LBDD buckets ======================================================================
# LBDD §3.2 (digest, distance = XOR, bucket m iff 2^(m-1) <= distance < 2^m), Algorithm 1
# (a node inserts only peers of a larger bucket), §3.5.2 (bucket n iff the highest non-zero
# bit of the distance is a_(n-1); 0 <= n <= 32). W = 32: the paper's digest width.
W = 32
BucketFn = Callable[[T, T], T]  # (digest_src, digest_x) -> bucket number (an integer term)


def bit_length(d: T, width: int = W) -> T:
    """The bucket of a distance: the m with 2^(m-1) <= d < 2^m, and 0 for d = 0."""
    out: T = ite(d.eq(bv_const(0, width)), 0, 1)
    for b in range(2, width + 1):
        out = ite(~ult(d, bv_const(1 << (b - 1), width)), b, out)
    return out


def xor_bucket(src: T, x: T) -> T:
    return bit_length(bv_xor(src, x))


def in_bucket_range(d: T, b: int, width: int = W) -> T:
    """2^(b-1) <= d < 2^b (LBDD §3.2), without overflow at b = width."""
    upper = boolean(True) if b == width else ult(d, bv_const(1 << b, width))
    return all_of(~ult(d, bv_const(1 << (b - 1), width)), upper)


def bucket_defined_check(name: str, in_bucket: Callable[[T, int], T]) -> LemmaResult:
    d = bitvec("distance", W)
    bl = bit_length(d)
    ranges = [(b, in_bucket(d, b)) for b in range(1, W + 1)]
    return check(
        name,
        ONE_WAY,
        "LBDD §3.2 (bucket interval; LBDD-E3), §3.5.2",
        {"distance >= 1": ~d.eq(bv_const(0, W))},
        {
            "some bucket m in 1..32 holds the distance": any_of(*(c for _, c in ranges)),
            "no two buckets hold it": all_of(
                *(~all_of(c1, c2) for (_, c1), (_, c2) in itertools.combinations(ranges, 2))
            ),
            "that bucket is the bit length": all_of(*(bl.eq(b) >> c for b, c in ranges)),
        },
        {"bit_length(distance)": bl},
    )


def top_bit_above(dy: T, dx: T, width: int = W) -> T:
    """The highest set bit of dy is above the highest set bit of dx (dx = 0 has none): some
    bit b of dy is set while dx has no bit at b or above."""
    return any_of(*(all_of(bit(dy, b), lshr(dx, b).eq(bv_const(0, width))) for b in range(width)))


def bucket_order_check(name: str, bucket: BucketFn) -> LemmaResult:
    src, x, y = bitvec("digest_src", W), bitvec("digest_x", W), bitvec("digest_y", W)
    dx, dy = bv_xor(src, x), bv_xor(src, y)
    bx, by = bucket(src, x), bucket(src, y)
    return check(
        name,
        ONE_WAY,
        "LBDD §3.2, Algorithm 1, §3.5.1 Theorem 1 (no loop)",
        {"src, x, y: any 32-bit digests": boolean(True)},
        {
            "bucket(x) < bucket(y) iff the highest set bit of distance(src,y) is above that of "
            "distance(src,x)": iff(bx < by, top_bit_above(dy, dx)),
            "bucket(x) < bucket(y) => distance(src,x) < distance(src,y)": (bx < by) >> ult(dx, dy),
            "bucket(x) = bucket(y) iff the highest set bits are equal": iff(
                bx.eq(by), ~any_of(top_bit_above(dy, dx), top_bit_above(dx, dy))
            ),
        },
        {"distance(src,x)": dx, "distance(src,y)": dy, "bucket(x)": bx, "bucket(y)": by},
    )


def depth_bound_check(name: str, edge: Callable[[T, T], T]) -> LemmaResult:
    """A path src = n_0 -> n_1 -> ... -> n_W whose edges satisfy `edge` on the buckets exists
    (the premise: the bound W + 1 is reached, so the proof is not vacuous); no further node
    n_(W+1) can follow n_W."""
    src = bitvec("digest_src", W)
    nodes = [src] + [bitvec(f"digest_{i}", W) for i in range(1, W + 2)]
    buckets = [xor_bucket(src, d) for d in nodes]
    path = all_of(*(edge(a, b) for a, b in itertools.pairwise(buckets[: W + 1])))
    # distinct digests: distinct nodes, and no digest tie with the source (D-L4); the strict
    # lemma does not need it, it keeps the within-bucket mutant's path from repeating a node
    different = distinct(*nodes)
    return check(
        name,
        DEPTH,
        "LBDD §3.5.2 (0 <= bucket <= 32), Algorithm 1; docs/design.md#invariants (at most 33)",
        {
            f"a path of {W + 1} nodes from the publisher (bucket 0) along edges": path,
            "the nodes' digests are pairwise different": different,
        },
        {f"no node {W + 2} follows": ~edge(buckets[W], buckets[W + 1])},
        {"bucket of the last node": buckets[W], "bucket of the extra node": buckets[W + 1]},
    )


def bucket_is_well_defined() -> LemmaResult:
    return bucket_defined_check(
        "every distance >= 1 is in exactly one bucket [2^(m-1), 2^m), m = bit length (32 bits)",
        in_bucket_range,
    )


def bucket_order_is_distance_order() -> LemmaResult:
    return bucket_order_check(
        "bucket(x) < bucket(y) iff distance(src,y) has a higher top bit (32 bits)", xor_bucket
    )


def path_depth_bound() -> LemmaResult:
    return depth_bound_check(
        f"a path with strictly increasing buckets has at most {W + 1} nodes (32 bits)",
        lambda a, b: a < b,
    )


LEMMAS: list[Lemma] = [
    range_point_mapping,
    split_partitions_zone,
    thesis_midpoint_only_at_zero,
    *_cutoff_lemmas("real"),
    *_cutoff_lemmas("int"),
    lbdd_slices_cover,
    lbdd_slices_shape,
    bucket_is_well_defined,
    bucket_order_is_distance_order,
    path_depth_bound,
]

# Premises a lemma would still be proved without (tests/test_properties_strength.py drops each
# premise in turn: every premise not listed here must be needed, i.e. its removal must give a
# counterexample; every one listed here must be redundant indeed). Why each is kept:
_DOMAIN = "states the setting (a well-formed domain); the equivalence holds without it"
_CUTOFF_SETTING = (
    "the setting of remapping (only ranges with u - l > c are cut, with 0 < h < c and "
    "n = ceil((u - l)/h)); the conclusion holds for any segment form [a_i, a_(i+1)) with the "
    "last closed, so single delivery does not rest on the choice of h or n"
)
_V_IN_DOMAIN = "implied: l <= v <= u and min <= l, u <= max give min <= v <= max"
REDUNDANT: dict[tuple[str, str], str] = {
    ("range_point_mapping", "min < max"): _DOMAIN,
    ("range_point_mapping", "min <= v <= max"): _V_IN_DOMAIN,
    ("split_partitions_zone", "depth >= 0"): "d mod 2 alternates the axis for any integer d; "
    "kept as the tree's setting",
    ("thesis_midpoint_only_at_zero", "minx < maxx"): "minx + maxx/2 = (minx + maxx)/2 iff "
    "minx = 0 is algebra over all reals; kept as the zone's setting",
    **{
        (f"cutoff_exists_{tag}", "remapped: u - l > c"): "segments with 0 < h < c cover any "
        "range; the lemma is stated for the remapped case (3e covers the other)"
        for tag in ("reals", "integers")
    },
    **{(f"cutoff_exists_{tag}", "min <= v <= max"): _V_IN_DOMAIN for tag in ("reals", "integers")},
    **{
        (f"cutoff_{kind}_{tag}", premise): _CUTOFF_SETTING
        for kind in ("unique", "no_spurious")
        for tag in ("reals", "integers")
        for premise in (
            "0 < h < c",
            "remapped: u - l > c",
            "min <= l <= u <= max",
            "min <= v <= max",
            "n = ceil((u - l)/h): (n-1) h < u - l <= n h",
        )
    },
    **{
        (f"cutoff_below_{tag}", premise): _CUTOFF_SETTING
        for tag in ("reals", "integers")
        for premise in ("remapped: u - l > c", "min <= l <= u <= max", "min <= v <= max")
    },
    **{
        (f"cutoff_unremapped_{tag}", "c > 0"): "implied: 0 <= u - l <= c"
        for tag in (
            "reals",
            "integers",
        )
    },
    ("bucket_order_is_distance_order", "src, x, y: any 32-bit digests"): "the premise is `true` "
    "(the lemma holds for all triples of digests)",
    ("path_depth_bound", "the nodes' digests are pairwise different"): "strictly increasing "
    "buckets already force different digests; kept so that the within-bucket mutant's "
    "counterexample does not repeat a node",
}


def run_all() -> list[LemmaResult]:
    return [lemma() for lemma in LEMMAS]


def table(results: list[LemmaResult], show_proved: bool = False) -> list[str]:
    out = [f"{'verdict':<15} {'time':>7}  {'invariant':<40}  lemma", "-" * 120]
    for r in results:
        out.append(f"{r.verdict:<15} {r.seconds:6.2f}s  {r.invariant[:40]:<40}  {r.name}")
        if (show_proved or r.verdict != "proved") and r.counterexample:
            out.extend("      " + line for line in r.counterexample.splitlines())
    return out


def main() -> int:
    results = run_all()
    print("\n".join(table(results)))
    return 0 if all(r.verdict == "proved" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
