"""Equivalent mutants of reference/tam/ (docs/mutation.md): the argument for each."""

EQUIVALENT: dict[tuple[str, str, int, int], str] = {
    ("reference/tam/system.py", "core/NumberReplacer", 476, 78): (
        "the default of `dst` (0 -> 1 or -1) is never read: `dst` is read only when key is "
        "None, and the only call with key None (_match_at_home, TamNotify) passes dst; "
        "_dispatch passes item.at, every other call passes a key"
    ),
    ("reference/tam/tables.py", "core/ReplaceBinaryOperator_Sub_Add", 82, 33): (
        "min(len(xs) - 1, j*len(xs)//m) -> min(len(xs) + 1, ...): for 1 <= j <= m-1, "
        "j*len(xs)//m <= floor(len(xs) - len(xs)/m) <= len(xs) - 1, so the second argument is "
        "the minimum in both versions; with xs empty both index an empty list (IndexError)"
    ),
    ("reference/tam/tables.py", "core/NumberReplacer", 78, 22): (
        "`m <= 1` -> `m <= 0` differs only at m = 1, where the original returns () at once and "
        "the mutant runs `for j in range(1, 1)`, no iteration, and returns tuple([]) == (): one "
        "interval, no cut, both ways"
    ),
}
