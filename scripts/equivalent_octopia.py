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
        "`n = max(1, len(srt))` -> `max(0, ...)` or `max(2, ...)` differs only with fewer "
        "than two brokers; a SCOT always has two or more: the system builds Scot(factor, m) "
        "(G_A x K_m) from config.factor() = AcyclicFactor.from_edges(acyclic_edges), which "
        "has no vertex without an edge (AcyclicFactor.problem: 'no vertex', raised) and two "
        "with one, and m >= 1, so len(srt) >= 2 and both versions give n = len(srt)"
    ),
    ("reference/octopia/system.py", "core/NumberReplacer", 332, 15): (
        "BrokerNetwork.match_entries (0 -> -1) is never called: both subclasses, "
        "OctopiaSystem and TidSystem (the only ones), override it"
    ),
    ("reference/octopia/system.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 556, 49): (
        _ANNOTATION
    ),
    ("reference/octopia/system.py", "core/ReplaceBinaryOperator_BitOr_BitAnd", 590, 57): (
        _ANNOTATION
    ),
}
