"""Equivalent mutants of reference/kyra/ (docs/mutation.md): the argument for each."""

_ANNOTATION = (
    "the mutated `|` is inside a type annotation; with `from __future__ import annotations` "
    "(PEP 563) annotations are strings, never evaluated, and nothing calls "
    "typing.get_type_hints on this method"
)

EQUIVALENT: dict[tuple[str, str, int, int], str] = {
    ("reference/kyra/base.py", "core/NumberReplacer", 234, 34): (
        "the default of max(recv, default=...) is read only when recv is empty; the expression "
        "is evaluated only when mean_recv = sum(recv) / n is non-zero, hence recv non-empty "
        "(and with recv empty mean_recv is 0 and the line prints 0.0 in both versions)"
    ),
    ("reference/kyra/hac.py", "core/AddNot", 76, 22): (
        "unreachable: line 76 runs only when linkage is not max and da or db is None; with "
        "linkage not max every pair of servers enters the proximity matrix (line 38: "
        "`d <= max_distance or linkage is not max`) and each merge rewrites (a, c) for every "
        "remaining clique c from old (a, c) and (b, c), so by induction every pair of current "
        "cliques is present and da, db are never None"
    ),
    ("reference/kyra/hac.py", "core/ReplaceComparisonOperator_Is_IsNot", 76, 25): (
        "unreachable, as for the AddNot mutant at 76:22: with linkage not max every pair of "
        "current cliques is in the proximity matrix, so da and db are never None"
    ),
    ("reference/kyra/mcgroups.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 129, 71): _ANNOTATION,
    ("reference/kyra/siena.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 102, 53): _ANNOTATION,
    ("reference/kyra/mcgroups.py", "core/NumberReplacer", 49, 15): (
        "the initial `assign` is only compared with the first round's assignment, whose groups "
        "are all >= 0, so [-1]*n and [-2]*n are both unequal to it unless n = 0, where both are "
        "[] (and k = 0); it is returned unchanged only with rounds = 0, which the codec rejects "
        "(mc_kmeans_rounds >= 1, config.py _POSITIVE_INT; K-D10 runs at least one round); even "
        "then it would only relabel the single group, and a group number is observable nowhere "
        "(4 bytes in every message size, absent from the event log and from describe())"
    ),
    ("reference/kyra/mcgroups.py", "core/ReplaceBinaryOperator_Add_Sub", 71, 79): (
        "|v| (an exact small integer) is the same for every centre g, so adding or subtracting "
        "it shifts every d_g by the same amount and leaves the argmin over g and the ties "
        "unchanged; in floating point both versions compute fl(X_g) first and add or subtract "
        "the same integer, and the rounding noise (far below 1e-12 for the project's networks "
        "of at most a few hundred servers) is what the 1e-12 tie tolerance absorbs, while "
        "distinct exact distances differ by at least 1/cells^4 (centres are means over at most "
        "mc_cells cells)"
    ),
    ("reference/kyra/zones.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 119, 42): _ANNOTATION,
    ("reference/kyra/zones.py", "core/NumberReplacer", 237, 40): (
        "`ranges[d][0]` -> `ranges[d][-1]` (a range is the pair (lo, hi)) is read only when "
        "b0 <= a0 for _range_span(attr, lo, hi): on an int attribute b0 = hi + 1 > lo = a0 "
        "never, on a float one float(hi) <= float(lo) with lo <= hi (the model's predicate "
        "check) means lo == hi, so z.contains(lo) and z.contains(hi) are the same test"
    ),
    ("reference/kyra/zones.py", "core/NumberReplacer", 254, 35): (
        "`points.get(x, 0.0)` -> `points.get(x, -1.0)` in the test `acc + points(x) >= target "
        "and x > lo` changes it only at an x > lo with no point load where acc >= target. The "
        "load always holds the pseudo-subscription over the whole domain (K-D17), whose "
        "density covers the box on (lo, hi) with weight > 0 (its share of every other "
        "dimension of a non-empty box), so rho > 0 at every x > lo; there the first test "
        "`rho > 0 and acc + rho (x - prev) >= target` has returned whenever acc reaches the "
        "target, so the second test sees acc < target, and without a point load at x it is "
        "false in both versions (4,000 random loads, float and int, gave equal partitions)"
    ),
    ("reference/kyra/zones.py", "core/NumberReplacer", 86, 12): (
        "i = bisect_right(los, x) - 1 >= -1; the clamp matters only at i = -1, i.e. x below the "
        "partition's first lo: the original checks zones[0], the mutant zones[-1], and neither "
        "contains x (x < zones[0].lo <= zones[-1].lo, or zones[-1] is an empty padding zone "
        "that contains nothing), so both raise the same ValueError "
        "(with no zones both raise IndexError)"
    ),
}
