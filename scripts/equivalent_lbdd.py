"""Equivalent mutants of reference/lbdd/ (docs/mutation.md): the argument for each."""

EQUIVALENT: dict[tuple[str, str, int, int], str] = {}
