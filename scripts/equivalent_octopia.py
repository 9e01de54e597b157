"""Equivalent mutants of reference/octopia/ (docs/mutation.md): the argument for each."""

_ANNOTATION = (
    "the mutated `|` is inside a type annotation; with `from __future__ import annotations` "
    "(PEP 563) annotations are strings, never evaluated, and nothing calls "
    "typing.get_type_hints on this function"
)

EQUIVALENT: dict[tuple[str, str, int, int], str] = {
    ("reference/octopia/civ.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 32, 36): _ANNOTATION,
    ("reference/octopia/scot.py", "core/ReplaceOrWithAnd", 63, 49): (
        "`a == b or a not in adj or b not in adj` -> `a == b or a not in adj and b not in adj` "
        "differs only when exactly one endpoint of an edge is not a vertex; that cannot happen: "
        "AcyclicFactor.__post_init__ (run by every construction, dataclasses.replace included) "
        "does adj[a].add(b), adj[b].add(a) on a dict keyed by the vertices and raises KeyError "
        "for such an edge, so problem() never sees one; both versions then test a == b alone"
    ),
    ("reference/octopia/system.py", "core/NumberReplacer", 376, 16): (
        "`n = max(1, len(srt))` -> `max(0, ...)` differs only with no broker at all; a SCOT "
        "always has one: Scot(factor, m) (G_A x K_m) raises unless the acyclic factor has a "
        "vertex (AcyclicFactor.problem: 'no vertex') and m >= 1, so there are at least one "
        "broker and one SRT, and both versions give n = len(srt)"
    ),
}
