"""z3 lemmas for Tam et al.'s keys (§3.2, §3.5; docs/tam.md "Invariants checked", I-2, I-3):
interval partition and cover, and digest/key completeness (a matching publication's key of the
subscription's index is one of the subscription's keys).

The indicator of a value is the number of cut points <= v (reference/tam/tables.py,
`Intervals.label`; decision T5), here with symbolic cut points c1 < c2 < c3 strictly inside
(min, max) over unbounded reals or integers. A key is a function of the index's label tuple
(`tables.digest` is injective: tests/test_tam_tables.py), so completeness is stated on labels.
Each builder takes the label rules as parameters so that `MUTANTS` can feed broken ones;
`BREAKS` names the lemma each mutant breaks and `EXPECTED` the conclusion its counterexample
must violate, and `weakened` (tests/test_properties_strength.py) shows every premise needed or
declared in `REDUNDANT` with the reason it is kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

from pubsub_spec.properties.lemmas import LemmaResult, Sort, between, check, weakened
from pubsub_spec.properties.z3typed import T, all_of, any_of, integer, ite, var

PARTITION = "tam interval partition and cover"
COMPLETE = "tam digest/key completeness"
M = 4  # intervals (3 symbolic cut points)
__all__ = ["weakened"]  # the premise-necessity check of the strength meta-test
Label = Callable[[T, Sequence[T]], T]


def label(v: T, cuts: Sequence[T]) -> T:
    """T5: the number of cut points <= v (reference/tam/tables.py, Intervals.label)."""
    out: T = ite(cuts[0] <= v, 1, 0)
    for c in cuts[1:]:
        out = out + ite(c <= v, 1, 0)
    return out


def _domain(prefix: str, sort: Sort) -> tuple[T, T, list[T], dict[str, T]]:
    mn, mx = var(f"{prefix}min", sort), var(f"{prefix}max", sort)
    cuts = [var(f"{prefix}c{i}", sort) for i in range(1, M)]
    prem = {
        f"{prefix}min < c1 < c2 < c3 < max": all_of(
            mn < cuts[0], *(a < b for a, b in itertools.pairwise(cuts)), cuts[-1] < mx
        )
    }
    return mn, mx, cuts, prem


def _lower(j: T, mn: T, cuts: Sequence[T]) -> T:
    return ite(j.eq(0), mn, ite(j.eq(1), cuts[0], ite(j.eq(2), cuts[1], cuts[2])))


def _upper(j: T, mx: T, cuts: Sequence[T]) -> T:
    return ite(j.eq(0), cuts[0], ite(j.eq(1), cuts[1], ite(j.eq(2), cuts[2], mx)))


def _in_interval(j: T, v: T, mn: T, mx: T, cuts: Sequence[T]) -> T:
    """Interval j = [lower, upper), the last one closed at max (T5)."""
    return all_of(
        between(0, j, M - 1),
        _lower(j, mn, cuts) <= v,
        any_of(v < _upper(j, mx, cuts), all_of(j.eq(M - 1), v <= mx)),
    )


def partition_check(name: str, sort: Sort, lab: Label = label) -> LemmaResult:
    """Every value of the domain lies in exactly the interval its indicator names."""
    mn, mx, cuts, prem = _domain("", sort)
    v, j = var("v", sort), integer("j")
    prem["min <= v <= max"] = between(mn, v, mx)
    return check(
        name,
        PARTITION,
        "Tam et al. §3.5; decision T5",
        prem,
        {
            "v in interval j iff j = label(v)": _in_interval(j, v, mn, mx, cuts).eq(
                lab(v, cuts).eq(j)
            )
        },
    )


def cover_check(
    name: str, sort: Sort, sub_labels: Callable[[T, T, Sequence[T]], tuple[T, T]] | None = None
) -> LemmaResult:
    """A predicate [lo, hi] registers labels label(lo)..label(hi): exactly the intervals that
    meet it, and the label of every value in it is among them."""
    mn, mx, cuts, prem = _domain("", sort)
    lo, hi, v, j = var("lo", sort), var("hi", sort), var("v", sort), integer("j")
    prem["min <= lo <= hi <= max"] = all_of(mn <= lo, lo <= hi, hi <= mx)
    first, last = (sub_labels or (lambda a, b, c: (label(a, c), label(b, c))))(lo, hi, cuts)
    meets = all_of(
        between(0, j, M - 1),
        _lower(j, mn, cuts) <= hi,
        any_of(lo < _upper(j, mx, cuts), j.eq(M - 1)),
    )
    return check(
        name,
        PARTITION,
        "Tam et al. §3.5 (a predicate belongs to the keys of every interval it meets)",
        prem,
        {
            "lo <= v <= hi => label(v) registered": between(lo, v, hi)
            >> between(first, label(v, cuts), last),
            "registered labels are exactly the intervals met": between(first, j, last).eq(meets),
        },
    )


def completeness_check(
    name: str, sort: Sort, event_labels: Callable[..., tuple[T, T]] | None = None
) -> LemmaResult:
    """Index (a, b): a publication that strictly matches the subscription's predicates on a and
    b sends the key of labels (label_a(va), label_b(vb)), which lies in the subscription's key
    box [label_a(lo_a), label_a(hi_a)] x [label_b(lo_b), label_b(hi_b)]."""
    amn, amx, ac, prem = _domain("a_", sort)
    bmn, bmx, bc, prem_b = _domain("b_", sort)
    prem.update(prem_b)
    alo, ahi, va = var("a_lo", sort), var("a_hi", sort), var("a_v", sort)
    blo, bhi, vb = var("b_lo", sort), var("b_hi", sort), var("b_v", sort)
    prem["subscription in domain"] = all_of(
        amn <= alo, alo <= ahi, ahi <= amx, bmn <= blo, blo <= bhi, bhi <= bmx
    )
    prem["event in domain"] = all_of(between(amn, va, amx), between(bmn, vb, bmx))
    prem["strict match"] = all_of(between(alo, va, ahi), between(blo, vb, bhi))
    ea, eb = (event_labels or (lambda x, y, cx, cy: (label(x, cx), label(y, cy))))(va, vb, ac, bc)
    return check(
        name,
        COMPLETE,
        "Tam et al. §3.2, §3.5; I-3 in docs/tam.md",
        prem,
        {
            "event key of the index is a subscription key": all_of(
                between(label(alo, ac), ea, label(ahi, ac)),
                between(label(blo, bc), eb, label(bhi, bc)),
            )
        },
    )


def intervals_partition_reals() -> LemmaResult:
    return partition_check("every value lies in the interval its label names (reals)", "real")


def intervals_partition_ints() -> LemmaResult:
    return partition_check("every value lies in the interval its label names (ints)", "int")


def predicate_cover_reals() -> LemmaResult:
    return cover_check("a predicate's labels are the intervals it meets (reals)", "real")


def key_completeness_reals() -> LemmaResult:
    return completeness_check("a matching publication's key is a subscription key", "real")


def key_completeness_ints() -> LemmaResult:
    return completeness_check("a matching publication's key is a subscription key (ints)", "int")


LEMMAS = [
    intervals_partition_reals,
    intervals_partition_ints,
    predicate_cover_reals,
    key_completeness_reals,
    key_completeness_ints,
]


# -- mutants: each must come back as a counterexample ---------------------------------------
def _strict_label(v: T, cuts: Sequence[T]) -> T:
    out: T = ite(cuts[0] < v, 1, 0)
    for c in cuts[1:]:
        out = out + ite(c < v, 1, 0)
    return out


def closed_upper_bounds() -> LemmaResult:
    """Intervals (c_j, c_{j+1}] in the label but [c_j, c_{j+1}) in the intervals."""
    return partition_check("mutant: label counts cut points < v", "real", _strict_label)


def event_closed_bounds() -> LemmaResult:
    """The publisher labels with `<`, the subscriber with `<=`: a value on a cut is missed."""
    return completeness_check(
        "mutant: publisher and subscriber disagree on closure",
        "real",
        lambda x, y, cx, cy: (_strict_label(x, cx), _strict_label(y, cy)),
    )


def digest_drops_attribute() -> LemmaResult:
    """The publication's digest leaves attribute b out (label 0 in its place)."""
    return completeness_check(
        "mutant: event digest drops b",
        "real",
        lambda x, y, cx, cy: (label(x, cx), 0 * label(y, cy)),
    )


def last_interval_dropped() -> LemmaResult:
    """The subscription registers label(lo)..label(hi) - 1."""
    return cover_check(
        "mutant: predicate registers one interval too few",
        "real",
        lambda a, b, c: (label(a, c), label(b, c) - 1),
    )


def last_cut_skipped_ints() -> LemmaResult:
    """On integers, the label's loop stops one cut short (`cuts[:-1]`, an off-by-one bound):
    every value from c3 on is labelled 2, not 3."""
    return partition_check(
        "mutant: label skips the last cut point (ints)", "int", lambda v, c: label(v, c[:-1])
    )


def digest_swaps_attributes_ints() -> LemmaResult:
    """On integers, the publication's digest lists the index's attributes as (b, a)."""
    return completeness_check(
        "mutant: event digest orders the index (b, a) (ints)",
        "int",
        lambda x, y, cx, cy: (label(y, cy), label(x, cx)),
    )


MUTANTS = [
    closed_upper_bounds,
    last_cut_skipped_ints,
    event_closed_bounds,
    digest_drops_attribute,
    last_interval_dropped,
    digest_swaps_attributes_ints,
]
_IN_J = "v in interval j iff j = label(v)"
_KEY = "event key of the index is a subscription key"
BREAKS: dict[str, str] = {
    "closed_upper_bounds": "intervals_partition_reals",
    "last_cut_skipped_ints": "intervals_partition_ints",
    "event_closed_bounds": "key_completeness_reals",
    "digest_drops_attribute": "key_completeness_reals",
    "last_interval_dropped": "predicate_cover_reals",
    "digest_swaps_attributes_ints": "key_completeness_ints",
}
EXPECTED: dict[str, tuple[str, str]] = {
    "closed_upper_bounds": ("counterexample", _IN_J),
    "last_cut_skipped_ints": ("counterexample", _IN_J),
    "event_closed_bounds": ("counterexample", _KEY),
    "digest_drops_attribute": ("counterexample", _KEY),
    "last_interval_dropped": ("counterexample", "lo <= v <= hi => label(v) registered"),
    "digest_swaps_attributes_ints": ("counterexample", _KEY),
}
_MONOTONE = (
    "label(v) counts the cut points <= v, monotone in v for any cut points and any domain, so "
    "lo <= v <= hi alone bounds it; kept as the setting of the index's domains"
)
REDUNDANT: dict[tuple[str, str], str] = {
    (f"key_completeness_{tag}", premise): _MONOTONE
    for tag in ("reals", "ints")
    for premise in (
        "a_min < c1 < c2 < c3 < max",
        "b_min < c1 < c2 < c3 < max",
        "subscription in domain",
        "event in domain",
    )
}


def main() -> int:
    bad = 0
    for f in LEMMAS:
        r = f()
        bad += r.verdict != "proved"
        print(f"{r.verdict:15} {r.name} [{r.source}] {r.counterexample}")
    for f in MUTANTS:
        r = f()
        bad += r.verdict != "counterexample"
        print(f"mutant {r.verdict:15} {r.name} {r.violated}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
