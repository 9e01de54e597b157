"""Compiled kernels of the array simulator (`thesis_array_sim.py`), numba.

`deliveries` calls the bucket matcher's kernel, which numba compiles into it. It is not cached
on disk (cache=False, about 0.5 CPU-s to compile once per process): numba's cache is invalidated
only by a change to the cached function's own file, so a cached `deliveries` would go on running
an old `bucket_matcher._match` after that file changed (numba's documentation, "Cache
invalidation fails to recognize changes in functions defined in a different file")."""

from __future__ import annotations

from typing import Any

from numba import njit

from pubsub_spec.conformance.variants.bucket_matcher import _match


@njit(cache=False)  # not cached: see the module's docstring
def deliveries(
    vals: Any, ev_seq: Any, ev_t: Any, e0: int, strict: bool, index: Any, unm: Any,
    n: int, cand: Any, mask: Any, end: Any, start: Any, count: Any, death: Any, pseq: Any,
    base: Any, seg_lo: Any, seg_hi: Any, closed: Any, first: Any, out: Any, off: Any,
) -> int:  # fmt: skip
    """The deliveries of events e0, e0 + 1, ... of one schema, as many as `out` holds; returns
    the first event not done. Event e (values `vals[e]`, NaN where absent; sequence number
    `ev_seq[e]`; op ordinal `ev_t[e]`) is matched by the bucket matcher's kernel over `index`
    (`BucketMatcher.kernel_index`: every subscription of the trace, none removed) to the
    subscriptions whose original predicates match (thesis §3.3, kept by the subscriber); of
    those, the ones the subscriber side still held at ordinal ev_t[e] (`end`: the ordinal of the
    op that ended it, D-CHURN), and of their stored points [start, start + count), in order,
    the ones stored before the publish (D-OPS: pseq < ev_seq[e]), not yet removed or lost
    (`death`: the ordinal of the op that removed them) and whose segment holds the event's
    value of the point's base attribute (D-SEG: a segment is [lo, hi) unless closed), or, when
    the event lacks that attribute, segment 0 (D-LENIENT; thesis §3.4.1, §3.5). Each such point
    puts its subscription's number in `out`; off[e + 1] - off[e0] is the count up to event e."""
    amin, scale, nb, off_lo, g_sub, g_lo, off_hi, h_sub, h_hi, fail, has = index[:11]
    t_sub, t_attr, t_lo, t_hi, t_n, dead = index[11:]
    k = 0
    off[e0] = 0
    for e in range(e0, len(ev_seq)):
        ev = vals[e]
        t, s = ev_t[e], ev_seq[e]
        c = _match(
            ev, strict, amin, scale, nb, off_lo, g_sub, g_lo, off_hi, h_sub, h_hi, fail, has,
            t_sub, t_attr, t_lo, t_hi, t_n, dead, unm, n, cand, True, mask,
        )  # fmt: skip
        for j in range(c):
            r = cand[j]
            if end[r] <= t:
                continue
            for p in range(start[r], start[r] + count[r]):
                if death[p] <= t or pseq[p] >= s:
                    continue
                v = ev[base[p]]
                if v != v:
                    take = first[p]
                elif closed[p]:
                    take = seg_lo[p] <= v and v <= seg_hi[p]
                else:
                    take = seg_lo[p] <= v and v < seg_hi[p]
                if take:
                    if k == out.size:
                        return e  # out is full: event e again, from its start
                    out[k] = r
                    k += 1
        off[e + 1] = k
    return len(ev_seq)
