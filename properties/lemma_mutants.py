"""Deliberately broken formulations that the z3 checker of `properties.lemmas` must reject.

Each mutant goes through the same builder and prover as the lemma it breaks, and must come back
as a `counterexample` violating the named conclusion listed in `EXPECTED` (or `vacuous` for
contradictory premises): each shows that the matching lemma has teeth, and several pin errata
of the papers (E1, E3, LBDD-E1, LBDD-E3).
"""

from __future__ import annotations

from collections.abc import Callable

from pubsub_spec.properties.lemmas import (
    LemmaResult,
    Remap,
    W,
    bit_length,
    bucket_defined_check,
    bucket_order_check,
    cutoff_exists_check,
    cutoff_no_spurious_check,
    cutoff_unique_check,
    depth_bound_check,
    exact_mid,
    floor_hi,
    floor_lo,
    half_open_children,
    mapping_check,
    points_below_line_check,
    program_mid_check,
    slices_cover_check,
    slices_shape_check,
    split_check,
    unremapped_in_band_check,
)
from pubsub_spec.properties.verdict import CheckResult, judged
from pubsub_spec.properties.z3typed import T, all_of, bv_const, ite, ult


# -- 1. range/point mapping (thesis §3.2) ---------------------------------------------------
def open_target_area() -> LemmaResult:
    """Target area [min, v) x (v, max]: misses ranges with an end point at v (equality [v, v])."""

    def area(mn: T, mx: T, v: T, x: T, y: T, _: T) -> T:
        return all_of(mn <= x, x < v, v < y, y <= mx)

    return mapping_check("target area with open bounds [min,v) x (v,max]", "real", area)


# -- 2. split (thesis §3.2.1, Program 3.2; erratum E1) ------------------------------------
def both_children_closed() -> LemmaResult:
    def children(p: T, lo: T, mid: T, hi: T, top: T, is_x: T) -> tuple[T, T]:
        _, c1 = half_open_children(p, lo, mid, hi, top, is_x)
        return all_of(lo <= p, p <= mid), c1

    return split_check("children [lo,mid] and [mid,hi] both closed", exact_mid, children)


def thesis_midpoint() -> LemmaResult:
    """Program 3.2 line 25 on x levels: `float mid = minx+maxx/2.0;` (erratum E1)."""

    def mid(lo: T, hi: T, is_x: T) -> T:
        return ite(is_x, lo + hi / 2, (lo + hi) / 2)

    return split_check("Program 3.2 x-level midpoint minx + maxx/2.0", mid, half_open_children)


def thesis_x_branch() -> LemmaResult:
    """Program 3.2 lines 26-32: `if (x < mid) ... else if (x > mid)` — x == mid goes nowhere
    (the y branch uses `y >= mid` and is right)."""

    def children(p: T, lo: T, mid: T, hi: T, top: T, is_x: T) -> tuple[T, T]:
        c0, c1 = half_open_children(p, lo, mid, hi, top, is_x)
        return c0, ite(is_x, all_of(c1, p > mid), c1)

    return split_check("Program 3.2 x branch (x < mid / x > mid)", exact_mid, children)


def program_mid_always() -> LemmaResult:
    """Program 3.2's line read with the intended precedence, (minx+maxx)/2.0: then it is always
    the midpoint, and the erratum E1 lemma's "only when minx = 0" must fail."""
    return program_mid_check(
        "Program 3.2's line read as (minx+maxx)/2.0", lambda lo, hi: (lo + hi) / 2
    )


# -- 3. cut-off remapping (thesis §3.5; erratum E3, D-SEG) --------------------------------
def closed_segments() -> LemmaResult:
    """Every segment closed, as the thesis' points read literally (erratum E3)."""
    return cutoff_unique_check(
        "closed remap segments [a_i, a_(i+1)] (duplicate at a boundary)",
        Remap("real", closed_segments=True),
    )


def open_last_segment() -> LemmaResult:
    """Every segment half-open, the last one too: v = u is lost."""
    return cutoff_exists_check(
        "every remap segment half-open, the last too (v = u lost)", Remap("real", open_last=True)
    )


def h_not_below_cutoff() -> LemmaResult:
    """A segment length h > c: the remapped points lie above the cut-off line and the
    restricted target area misses them."""
    return cutoff_exists_check(
        "segment length h > c (points above the cut-off line)",
        Remap("real", h_premise=lambda h, c: all_of(h > c, c > 0)),
    )


def unremapped_long_range() -> LemmaResult:
    """Restricting the target area to the band without remapping the long ranges."""
    return unremapped_in_band_check(
        "restricted target area without remapping u - l > c", "real", remapped_premise=True
    )


def closed_segments_int() -> LemmaResult:
    """Erratum E3 on an int attribute."""
    return cutoff_unique_check(
        "closed remap segments, integers (duplicate at a boundary)",
        Remap("int", closed_segments=True),
    )


def open_last_segment_int() -> LemmaResult:
    return cutoff_exists_check(
        "every remap segment half-open, integers (v = u lost)", Remap("int", open_last=True)
    )


def unremapped_long_range_int() -> LemmaResult:
    return unremapped_in_band_check(
        "restricted target area without remapping u - l > c (integers)", "int", True
    )


def unclipped_last_segment() -> LemmaResult:
    """The last point's y is a_n = l + n h, not min(a_n, u): values in (u, a_n] are delivered."""
    return cutoff_no_spurious_check(
        "last remap point (a_(n-1), l + n h), not clipped to u (spurious)",
        Remap("real", unclipped_last=True),
    )


def unclipped_last_segment_int() -> LemmaResult:
    return cutoff_no_spurious_check(
        "last remap point not clipped to u, integers (spurious)", Remap("int", unclipped_last=True)
    )


def floor_segment_count() -> LemmaResult:
    """n = floor((u - l)/h): the last segment is up to 2h - 1 long, above the cut-off line."""
    return points_below_line_check(
        "n = floor((u-l)/h) segments (last point above the line)", Remap("real", floor_n=True)
    )


def floor_segment_count_int() -> LemmaResult:
    return points_below_line_check(
        "n = floor((u-l)/h) segments, integers (last point above the line)",
        Remap("int", floor_n=True),
    )


def vacuous_premise() -> LemmaResult:
    """h > c and h < c: a proof from these premises would prove anything."""
    return cutoff_unique_check(
        "remap with h > c and h < c (contradictory premises)",
        Remap("real", h_premise=lambda h, c: all_of(h > c, h < c)),
    )


# -- 4. LBDD slices (LBDD Algorithm 2; LBDD-E1, D-L2) -------------------------------------
def _ceil_hi(j: T, m: T, k: T) -> T:
    return ((j + 1) * m + k - 1) // k


def _int_ratio_lo(j: T, m: T, k: T) -> T:
    return j * (m // k)


def _int_ratio_hi(j: T, m: T, k: T) -> T:
    return (j + 1) * (m // k)


def _round_lo(j: T, m: T, k: T) -> T:
    """round(j m / k), half up: floor((2 j m + k) / (2 k))."""
    return (2 * j * m + k) // (2 * k)


def ceil_upper_slices() -> LemmaResult:
    return slices_cover_check("slices [floor(jm/k), ceil((j+1)m/k)) (overlap)", floor_lo, _ceil_hi)


def round_lower_slices() -> LemmaResult:
    """Lower bound rounded, upper bound floored: a rank just below a rounded-up bound is lost."""
    return slices_shape_check("slices [round(jm/k), floor((j+1)m/k)) (gap)", _round_lo, floor_hi)


def integer_ratio_slices() -> LemmaResult:
    """Algorithm 2 with ratio = m // k (LBDD-E1): the last m mod k ranks are nobody's."""
    return slices_shape_check(
        "slices [j (m//k), (j+1)(m//k)) with an integer ratio (gap)", _int_ratio_lo, _int_ratio_hi
    )


# -- 5. LBDD buckets (LBDD §3.2, §3.5.2; LBDD-E3) -----------------------------------------
def ocr_bucket_interval() -> LemmaResult:
    """§3.2's bucket interval as printed, [2m-1, 2m) (LBDD-E3): even distances have no bucket."""

    def in_bucket(d: T, b: int) -> T:
        return all_of(~ult(d, bv_const(2 * b - 1, W)), ult(d, bv_const(2 * b, W)))

    return bucket_defined_check("bucket m iff 2m-1 <= distance < 2m (as printed)", in_bucket)


def bucket_of_digest() -> LemmaResult:
    """Buckets from the node's own digest, forgetting the XOR with the source's."""

    def bucket(src: T, x: T) -> T:
        return bit_length(x)

    return bucket_order_check("bucket = bit length of the digest, not of the distance", bucket)


def within_bucket_forwarding() -> LemmaResult:
    """Algorithm 1 with `BucketNo >= SelfNo`: edges within a bucket, no depth bound."""
    return depth_bound_check(
        "forwarding within a bucket (buckets non-decreasing)", lambda a, b: a <= b
    )


Mutant = Callable[[], LemmaResult]

# mutant -> (expected verdict, a named conclusion the counterexample must violate). Where a
# mutant breaks several conclusions at once, the names are joined by ALSO: any of them will do,
# since which one z3's model violates depends on the solver's history in the process (the
# tests run in any order), not on the mutant.
ALSO = " || "
EXPECTED: dict[str, tuple[str, str]] = {
    "open_target_area": ("counterexample", "l <= v <= u iff (l, u) in [min, v] x [v, max]"),
    "both_children_closed": ("counterexample", "no point lies in both children"),
    "thesis_midpoint": (
        "counterexample",
        "lo < mid < hi (children non-empty, child 0 open at its top)",
    ),
    "thesis_x_branch": ("counterexample", "a point of the parent lies in a child"),
    "closed_segments": ("counterexample", "not both segments i and j deliver v"),
    "open_last_segment": ("counterexample", "segment i* delivers v"),
    "h_not_below_cutoff": ("counterexample", "point i* lies in the restricted target area"),
    "unremapped_long_range": ("counterexample", "(l, u) lies in the restricted target area"),
    "vacuous_premise": ("vacuous", ""),
    "program_mid_always": ("counterexample", "minx + maxx/2 = (minx + maxx)/2 iff minx = 0"),
    "closed_segments_int": ("counterexample", "not both segments i and j deliver v"),
    "open_last_segment_int": ("counterexample", "segment i* delivers v"),
    "unremapped_long_range_int": ("counterexample", "(l, u) lies in the restricted target area"),
    "unclipped_last_segment": ("counterexample", "segment i does not deliver v"),
    "unclipped_last_segment_int": ("counterexample", "segment i does not deliver v"),
    "floor_segment_count": ("counterexample", "y_i - x_i <= c (on or below the cut-off line)"),
    "floor_segment_count_int": (
        "counterexample",
        "y_i - x_i <= c (on or below the cut-off line)",
    ),
    "ceil_upper_slices": ("counterexample", "rank t is not in two slices i != j"),
    "round_lower_slices": ("counterexample", "contiguous: hi(j) = lo(j+1)"),
    "integer_ratio_slices": ("counterexample", "slice k-1 ends at m"),
    "ocr_bucket_interval": ("counterexample", "some bucket m in 1..32 holds the distance"),
    "bucket_of_digest": (
        "counterexample",
        "bucket(x) < bucket(y) iff the highest set bit of distance(src,y) is above that of "
        "distance(src,x)" + ALSO + "bucket(x) = bucket(y) iff the highest set bits are equal",
    ),
    "within_bucket_forwarding": ("counterexample", f"no node {W + 2} follows"),
}

# mutant -> the lemma (a function of properties.lemmas.LEMMAS) whose formulation it breaks:
# every lemma has at least one (tests/test_properties_strength.py)
BREAKS: dict[str, str] = {
    "open_target_area": "range_point_mapping",
    "both_children_closed": "split_partitions_zone",
    "thesis_midpoint": "split_partitions_zone",
    "thesis_x_branch": "split_partitions_zone",
    "program_mid_always": "thesis_midpoint_only_at_zero",
    "closed_segments": "cutoff_unique_reals",
    "open_last_segment": "cutoff_exists_reals",
    "h_not_below_cutoff": "cutoff_exists_reals",
    "unremapped_long_range": "cutoff_unremapped_reals",
    "vacuous_premise": "cutoff_unique_reals",
    "unclipped_last_segment": "cutoff_no_spurious_reals",
    "floor_segment_count": "cutoff_below_reals",
    "closed_segments_int": "cutoff_unique_integers",
    "open_last_segment_int": "cutoff_exists_integers",
    "unremapped_long_range_int": "cutoff_unremapped_integers",
    "unclipped_last_segment_int": "cutoff_no_spurious_integers",
    "floor_segment_count_int": "cutoff_below_integers",
    "ceil_upper_slices": "lbdd_slices_cover",
    "round_lower_slices": "lbdd_slices_shape",
    "integer_ratio_slices": "lbdd_slices_shape",
    "ocr_bucket_interval": "bucket_is_well_defined",
    "bucket_of_digest": "bucket_order_is_distance_order",
    "within_bucket_forwarding": "path_depth_bound",
}

MUTANTS: list[Mutant] = [
    open_target_area,
    both_children_closed,
    thesis_midpoint,
    thesis_x_branch,
    program_mid_always,
    closed_segments,
    open_last_segment,
    h_not_below_cutoff,
    unremapped_long_range,
    vacuous_premise,
    unclipped_last_segment,
    floor_segment_count,
    closed_segments_int,
    open_last_segment_int,
    unremapped_long_range_int,
    unclipped_last_segment_int,
    floor_segment_count_int,
    ceil_upper_slices,
    round_lower_slices,
    integer_ratio_slices,
    ocr_bucket_interval,
    bucket_of_digest,
    within_bucket_forwarding,
]


def labels(mutant: str) -> tuple[str, ...]:
    """The conclusions, any of which the counterexample of `mutant` must violate ((): none,
    the mutant is vacuous)."""
    label = EXPECTED[mutant][1]
    return tuple(label.split(ALSO)) if label else ()


def caught(mutant: str, r: LemmaResult) -> bool:
    """Rejected for the right reason: the expected verdict and, for a counterexample, one of
    the expected conclusions among those the model violates."""
    verdict = EXPECTED[mutant][0]
    return r.verdict == verdict and (
        verdict != "counterexample" or any(c in r.violated for c in labels(mutant))
    )


def run_all() -> list[LemmaResult]:
    return [m() for m in MUTANTS]


def rows(examples: int = 0) -> list[CheckResult]:
    """The z3 rows of the thesis and LBDD lemmas (properties/lemmas.py) for `pubsub-spec check`:
    every lemma proved, and every mutant here rejected for the expected reason (`caught`).
    A proof explores no examples: `examples` is not used."""
    from pubsub_spec.properties.lemmas import run_all as run_lemmas

    out: list[CheckResult] = []
    for r in run_lemmas():
        found = None if r.verdict == "proved" else f"{r.verdict}: {r.counterexample}"
        ok, _ = judged(found, False)
        detail = r.verdict if ok else (found or r.verdict)
        out.append(CheckResult(r.invariant, "z3", r.name, 1, "proof", r.seconds, ok, detail))
    for fn in MUTANTS:
        r = fn()
        hit = next((c for c in labels(fn.__name__) if c in r.violated), "")
        ok, detail = judged(f"{r.verdict}: {hit}" if hit else r.verdict, True,
                            caught(fn.__name__, r))  # fmt: skip
        out.append(
            CheckResult(r.invariant, "z3", f"mutant {r.name}", 1, "proof", r.seconds, ok, detail)
        )
    return out


def main() -> int:
    ok = True
    for m, r in zip(MUTANTS, run_all(), strict=True):
        rejected = caught(m.__name__, r)
        ok = ok and rejected
        print(
            f"{'REJECTED' if rejected else 'NOT REJECTED'}  {r.verdict:<15} {r.seconds:5.2f}s  "
            f"{r.invariant[:40]:<40}  {r.name}"
        )
        print("\n".join("      " + line for line in r.counterexample.splitlines()))
    return 0 if ok else 1


if __name__ == "__main__":
    import sys

    sys.exit(main())
