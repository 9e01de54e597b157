"""z3 lemmas for Kyra (docs/kyra.md, "Invariants and mutants"): the zone partition, the membership
of the covering server in the covering tree, and filter restriction soundness (K-D4, K-D6). Each
lemma takes the rule as a parameter so that its mutant (`MUTANTS`) is the same check with a broken
rule; `BREAKS` names the lemma each mutant breaks and `EXPECTED` the conclusion its counterexample
must violate, and `weakened` (tests/test_properties_strength.py) shows every premise needed or
declared in `REDUNDANT` with the reason it is kept."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from pubsub_spec.properties.lemmas import LemmaResult, check, weakened
from pubsub_spec.properties.z3typed import T, all_of, any_of, boolean, ite, real, var

__all__ = ["weakened"]  # the premise-necessity check of the strength meta-test

Contains = Callable[[T, T, T, T], T]  # (lo, hi, closed, x) -> x in zone
Overlap = Callable[[T, T, T, T], T]  # (z_lo, z_hi, y_lo, y_hi) -> server joins tree


KyraLemma = LemmaResult
PARTITION = "kyra zone partition"
MEMBERSHIP = "kyra covering server in covering tree"
SOUNDNESS = "kyra filter restriction soundness"
KEY_IN_EXTENT = "key(e) in extent(s)"


def half_open(lo: T, hi: T, closed: T, x: T) -> T:
    """zones.Zone.contains: [lo, hi), or [lo, hi] when closed (K-D1)."""
    return all_of(lo <= x, any_of(x < hi, closed & x.eq(hi)))


def closed_both(lo: T, hi: T, closed: T, x: T) -> T:
    """Mutant: every zone closed at both ends."""
    return all_of(lo <= x, x <= hi)


def zone_partition(contains: Contains = half_open) -> KyraLemma:
    """Two adjacent zones [a, b) and [b, c] of a partition: every x in [a, c] lies in exactly
    one (K-D1; generalises zone by zone to any equal-width partition)."""
    a, b, c, x = real("a"), real("b"), real("c"), real("x")
    first = contains(a, b, boolean(False), x)
    last = contains(b, c, boolean(True), x)
    return check(
        "zones of a clique partition the domain",
        PARTITION,
        "Kyra §III; K-D1 in docs/kyra.md",
        {"a < b < c": all_of(a < b, b < c), "a <= x <= c": all_of(a <= x, x <= c)},
        {"in some zone": first | last, "in one zone only": ~(first & last)},
    )


def zones_overlap(z_lo: T, z_hi: T, y_lo: T, y_hi: T) -> T:
    """system._zones_overlap for half-open zones: a server joins a tree iff they share a value."""
    return all_of(z_lo < y_hi, y_lo < z_hi)


def zone_inside(z_lo: T, z_hi: T, y_lo: T, y_hi: T) -> T:
    """Mutant: a server joins only the trees whose zone contains its own."""
    return all_of(y_lo <= z_lo, z_hi <= y_hi)


def covering_server_in_covering_tree(joins: Overlap = zones_overlap) -> KyraLemma:
    """§III: key(e) ∈ Z_z* ∩ Y_t* ⇒ z* is a member of t* (docs/kyra.md, "Invariants and
    mutants")."""
    zl, zh, yl, yh, k = real("z_lo"), real("z_hi"), real("y_lo"), real("y_hi"), real("key")
    return check(
        "the covering server joins the covering tree",
        MEMBERSHIP,
        "Kyra §III",
        {
            "zones non-empty": all_of(zl < zh, yl < yh),
            "key in Z": half_open(zl, zh, boolean(False), k),
            "key in Y": half_open(yl, yh, boolean(False), k),
        },
        {"z* joins t*": joins(zl, zh, yl, yh)},
    )


Extent = Callable[[T, T, T, T, T], tuple[T, T]]  # (has_pred, lo, hi, mn, mx) -> extent


def extent_rule(lenient: bool) -> Extent:
    """filters.extent (K-D6)."""

    def ext(has_pred: T, lo: T, hi: T, mn: T, mx: T) -> tuple[T, T]:
        return ite(has_pred, mn if lenient else lo, mn), ite(has_pred, hi, mx)

    return ext


def unwidened_extent(has_pred: T, lo: T, hi: T, mn: T, mx: T) -> tuple[T, T]:
    """Mutant: the lenient extent left at [lo, hi]."""
    return ite(has_pred, lo, mn), ite(has_pred, hi, mx)


def filter_soundness(
    lenient: bool, rule: Extent | None = None, strict_needs_present: bool = True
) -> KyraLemma:
    """matches(s, e, mode) ⇒ key(e) ∈ extent(s) (K-D4, K-D6): every entry s ∩ Z ∩ Y on the path
    to the covering proxy admits e, in both modes, partial events included (K-D6)."""
    rule = rule or extent_rule(lenient)
    mn, mx, lo, hi, v = real("min"), real("max"), real("lo"), real("hi"), real("v")
    has_pred, present = _bool("has_pred"), _bool("present")
    key = ite(present, v, mn)
    in_range = all_of(lo <= v, v <= hi)
    if lenient:
        match = any_of(~has_pred, ~present, in_range)
    else:
        match = any_of(~has_pred, present & in_range if strict_needs_present else in_range)
    e_lo, e_hi = rule(has_pred, lo, hi, mn, mx)
    mode = "lenient" if lenient else "strict"
    return check(
        f"filter restriction soundness ({mode})",
        SOUNDNESS,
        "Kyra §III; K-D4, K-D6 in docs/kyra.md",
        {
            "min < max": mn < mx,
            "min <= lo <= hi <= max": all_of(mn <= lo, lo <= hi, hi <= mx),
            "min <= v <= max": all_of(mn <= v, v <= mx),
            "s matches e": match,
        },
        {KEY_IN_EXTENT: all_of(e_lo <= key, key <= e_hi)},
    )


def filter_soundness_strict() -> KyraLemma:
    return filter_soundness(False)


def filter_soundness_lenient() -> KyraLemma:
    return filter_soundness(True)


def _bool(name: str) -> T:
    """A free Boolean as an integer flag (z3typed has Boolean constants only)."""
    return var(name, "int").eq(1)


LEMMAS: tuple[Callable[[], KyraLemma], ...] = (
    zone_partition,
    covering_server_in_covering_tree,
    filter_soundness_strict,
    filter_soundness_lenient,
)


# -- mutants: each a plausible bug, rejected by a counterexample to `EXPECTED` ---------------
def zones_closed_both_ends() -> KyraLemma:
    """Every zone [lo, hi] closed at both ends: the shared boundary b lies in two zones."""
    return _mutant(zone_partition(closed_both))


def tree_needs_zone_inside() -> KyraLemma:
    """A server joins only the trees whose zone contains its own: the covering server of a key
    whose zone straddles the tree's boundary is left out."""
    return _mutant(covering_server_in_covering_tree(zone_inside))


def strict_match_without_present() -> KyraLemma:
    """Strict matching with the `present` conjunct dropped: an event without the attribute
    matches, its key is min, below the strict extent [lo, hi] (K-D6)."""
    return _mutant(filter_soundness(False, strict_needs_present=False))


def lenient_extent_unwidened() -> KyraLemma:
    """The lenient extent left at [lo, hi]: a partial event's key min is outside (K-D6)."""
    return _mutant(filter_soundness(True, unwidened_extent))


def _mutant(r: KyraLemma) -> KyraLemma:
    return dataclasses.replace(r, name=f"mutant: {r.name}")


MUTANTS: tuple[Callable[[], KyraLemma], ...] = (
    zones_closed_both_ends,
    tree_needs_zone_inside,
    strict_match_without_present,
    lenient_extent_unwidened,
)
BREAKS: dict[str, str] = {
    "zones_closed_both_ends": "zone_partition",
    "tree_needs_zone_inside": "covering_server_in_covering_tree",
    "strict_match_without_present": "filter_soundness_strict",
    "lenient_extent_unwidened": "filter_soundness_lenient",
}
EXPECTED: dict[str, tuple[str, str]] = {
    "zones_closed_both_ends": ("counterexample", "in one zone only"),
    "tree_needs_zone_inside": ("counterexample", "z* joins t*"),
    "strict_match_without_present": ("counterexample", KEY_IN_EXTENT),
    "lenient_extent_unwidened": ("counterexample", KEY_IN_EXTENT),
}
REDUNDANT: dict[tuple[str, str], str] = {
    ("zone_partition", "a < b < c"): "given a <= x <= c, either x < b (x in [a, b) only) or "
    "x >= b (x in [b, c] only) whatever b is; kept as the partition's setting",
    ("covering_server_in_covering_tree", "zones non-empty"): "key in Z and key in Y each make "
    "its zone non-empty; kept as the zones' setting",
    **{
        (f"filter_soundness_{mode}", "min < max"): "min <= v <= max already gives min <= max, "
        "all the extent [min, max] needs; kept as the attribute's domain"
        for mode in ("strict", "lenient")
    },
    ("filter_soundness_strict", "min <= lo <= hi <= max"): "a strict match puts v in [lo, hi] "
    "itself and without a predicate the extent is [min, max]; kept as the predicate's setting "
    "(the lenient lemma needs it: a partial event's key min must lie below hi)",
}
