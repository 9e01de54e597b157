"""Equivalent mutants of reference/overlay/ (docs/mutation.md): the argument for each."""

EQUIVALENT: dict[tuple[str, str, int, int], str] = {
    ("reference/overlay/pastry.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 45, 29): (
        "the mutated `|` is inside a type annotation; with `from __future__ import annotations` "
        "(PEP 563) annotations are strings, never evaluated, and nothing calls "
        "typing.get_type_hints on PastryRing.__init__"
    ),
    ("reference/overlay/pastry.py", "core/NumberReplacer", 132, 23): (
        "leaf_set's loop from s = 0 instead of 1 adds the offset 0 first: both candidates are "
        "ids[i] = pid itself (leaf_set raises KeyError unless pid is a member, so ids[i] == pid), "
        "which the `ids[j] != pid` test skips; the list, its order included, is unchanged"
    ),
    ("reference/overlay/pastry.py", "core/ReplaceComparisonOperator_LtE_Lt", 184, 23): (
        "`n <= k` -> `n < k` sends n == k to the sampling branch, which draws all k of "
        "range(n) and sorts them: the candidates are self._ids[a:b] in id order either way, so "
        "the entry (the min by (proximity, id)) is the same; only an unused Random is created"
    ),
    ("reference/overlay/pastry.py", "core/NumberReplacer", 208, 37): (
        "route's guard range(digits + 2) -> range(digits + 1): a route has at most `digits` "
        "hops, since every hop but the last goes to a routing-table entry sharing row + 1 > row "
        "digits with the key (row = the sender's shared prefix), a peer sharing all `digits` "
        "digits holds the key itself and is its home, and a hop to the home is the last; so "
        "the loop ends by its arrival check within digits + 1 iterations in both versions, "
        "and the RuntimeError (a routing loop) is unreachable in both"
    ),
}
