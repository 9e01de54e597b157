"""Compiled kernels of the array simulator (`thesis_array_sim.py`), numba with cache=True."""

from __future__ import annotations

from typing import Any

from numba import njit


@njit(cache=True)
def leaf_matches(
    rows: Any, start: Any, count: Any, alive: Any, pseq: Any, base: Any, seg_lo: Any,
    seg_hi: Any, closed: Any, first: Any, ev: Any, seq: int, out: Any,
) -> int:  # fmt: skip
    """Matching at the leaves (thesis §3.4.1, §3.5): for each matched subscription row (in
    `rows`, ascending), its stored points [start, start + count), in order, that are alive, were
    stored before the publish (D-OPS) and whose segment holds the event's value of the point's
    base attribute (D-SEG: a segment is [lo, hi) unless closed), or, when the event lacks that
    attribute (ev NaN), segment 0 (D-LENIENT). Writes the row once per such point to `out`;
    returns how many."""
    c = 0
    for r in rows:
        for p in range(start[r], start[r] + count[r]):
            if not alive[p] or pseq[p] >= seq:
                continue
            v = ev[base[p]]
            if v != v:
                take = first[p]
            elif closed[p]:
                take = seg_lo[p] <= v and v <= seg_hi[p]
            else:
                take = seg_lo[p] <= v and v < seg_hi[p]
            if take:
                out[c] = r
                c += 1
    return c
