"""Equivalent mutants of reference/thesis/ (docs/mutation.md): the argument for each."""

EQUIVALENT: dict[tuple[str, str, int, int], str] = {
    ("reference/thesis/space.py", "core/NumberReplacer", 72, 29): (
        "the lru_cache bound of zone_cells (1 << 16 -> 2 << 16) only sets how many results are "
        "kept: zone_cells is a pure function of (bits, k) returning a frozen CellRect, a cache "
        "miss recomputes an equal value, and nothing calls cache_info or cache_clear; memory and "
        "speed change, no result does"
    ),
    ("reference/thesis/figures.py", "core/NumberReplacer", 624, 65): (
        "the sort key `-plan[k][0] * plan[k][2]` multiplies a negative int (nodes > 0) by the "
        "run's configuration name, a str, which gives '' for every run; the stable sort then "
        "keeps the plan's order. Only the order in which the runs are submitted to the pool "
        "changes: each run is `_run_planned`, a pure function of its (scale, spec), and the "
        "results are collected by run name (`done = {k: f.result() ...}`), so runs and figures "
        "are equal"
    ),
}
