"""z3 lemmas for Kyra (docs/kyra.md, "Invariants and mutants"): the zone partition, the membership
of the covering server in the covering tree, and filter restriction soundness (K-D4, K-D6). Each
lemma takes the rule as a parameter so that its mutant (`MUTANTS`) is the same check with a broken
rule."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pubsub_spec.properties.z3typed import (
    T,
    Verdict,
    all_of,
    any_of,
    boolean,
    ite,
    prove,
    real,
    var,
)

Contains = Callable[[T, T, T, T], T]  # (lo, hi, closed, x) -> x in zone
Overlap = Callable[[T, T, T, T], T]  # (z_lo, z_hi, y_lo, y_hi) -> server joins tree


@dataclass(frozen=True)
class KyraLemma:
    name: str
    verdict: Verdict
    counterexample: str


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
    o = prove(
        {"a < b < c": all_of(a < b, b < c), "a <= x <= c": all_of(a <= x, x <= c)},
        {"in some zone": first | last, "in one zone only": ~(first & last)},
    )
    return KyraLemma("zones of a clique partition the domain", o.verdict, o.model)


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
    o = prove(
        {
            "zones non-empty": all_of(zl < zh, yl < yh),
            "key in Z": half_open(zl, zh, boolean(False), k),
            "key in Y": half_open(yl, yh, boolean(False), k),
        },
        {"z* joins t*": joins(zl, zh, yl, yh)},
    )
    return KyraLemma("the covering server joins the covering tree", o.verdict, o.model)


Extent = Callable[[T, T, T, T, T], tuple[T, T]]  # (has_pred, lo, hi, mn, mx) -> extent


def extent_rule(lenient: bool) -> Extent:
    """filters.extent (K-D6)."""

    def ext(has_pred: T, lo: T, hi: T, mn: T, mx: T) -> tuple[T, T]:
        return ite(has_pred, mn if lenient else lo, mn), ite(has_pred, hi, mx)

    return ext


def unwidened_extent(has_pred: T, lo: T, hi: T, mn: T, mx: T) -> tuple[T, T]:
    """Mutant: the lenient extent left at [lo, hi]."""
    return ite(has_pred, lo, mn), ite(has_pred, hi, mx)


def filter_soundness(lenient: bool, rule: Extent | None = None) -> KyraLemma:
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
        match = any_of(~has_pred, present & in_range)
    e_lo, e_hi = rule(has_pred, lo, hi, mn, mx)
    o = prove(
        {
            "domain": all_of(mn < mx, mn <= lo, lo <= hi, hi <= mx, mn <= v, v <= mx),
            "s matches e": match,
        },
        {"key(e) in extent(s)": all_of(e_lo <= key, key <= e_hi)},
    )
    mode = "lenient" if lenient else "strict"
    return KyraLemma(f"filter restriction soundness ({mode})", o.verdict, o.model)


def _bool(name: str) -> T:
    """A free Boolean as an integer flag (z3typed has Boolean constants only)."""
    return var(name, "int").eq(1)


LEMMAS: tuple[Callable[[], KyraLemma], ...] = (
    zone_partition,
    covering_server_in_covering_tree,
    lambda: filter_soundness(False),
    lambda: filter_soundness(True),
)
MUTANTS: tuple[Callable[[], KyraLemma], ...] = (
    lambda: zone_partition(closed_both),
    lambda: covering_server_in_covering_tree(zone_inside),
    lambda: filter_soundness(True, unwidened_extent),
)
