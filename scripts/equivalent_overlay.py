"""Equivalent mutants of reference/overlay/ (docs/mutation.md): the argument for each."""

EQUIVALENT: dict[tuple[str, str, int, int], str] = {}
