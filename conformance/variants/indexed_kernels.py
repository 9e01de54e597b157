"""Compiled kernel of `oracle-indexed`'s fingerprint path (`indexed_matcher.indexed_fingerprint`),
numba.

`matches` calls the bucket matcher's kernel, which numba compiles into it. Not cached on disk
(cache=False, as `array_kernels.deliveries` and for its reason): numba's cache is invalidated only
by a change to the cached function's own file, so a cached `matches` would go on running an old
`bucket_matcher._match` after that file changed (numba's documentation, "Cache invalidation fails
to recognize changes in functions defined in a different file")."""

from __future__ import annotations

from typing import Any

from numba import njit

from pubsub_spec.conformance.variants.bucket_matcher import _match


@njit(cache=False)  # not cached: see the module's docstring
def matches(
    vals: Any, ev_t: Any, ev_n: Any, e0: int, strict: bool, index: Any, unm: Any, n: int,
    cand: Any, mask: Any, end: Any, out: Any, off: Any,
) -> int:  # fmt: skip
    """The deliveries of events e0, e0 + 1, ... of one schema, as many as `out` holds; returns
    the first event not done. Event e (values `vals[e]`, NaN where absent; op ordinal `ev_t[e]`)
    is matched by the bucket matcher's kernel over `index` (`BucketMatcher.kernel_index`: every
    subscription of the trace, none removed) to the subscriptions whose predicates match
    (thesis §3.4.1, strict or lenient); of those, the ones subscribed before the publish (rows
    below `ev_n[e]`: rows are numbered in op order) and not ended before it (`end`: the ordinal
    of the unsubscribe or of the subscriber's leave or failure, D-CHURN). Each puts its number
    in `out`; off[e + 1] - off[e0] is the count up to event e."""
    amin, scale, nb, off_lo, g_sub, g_lo, off_hi, h_sub, h_hi, fail, has = index[:11]
    t_sub, t_attr, t_lo, t_hi, t_n, dead = index[11:]
    k = 0
    off[e0] = 0
    for e in range(e0, len(ev_t)):
        t, m = ev_t[e], ev_n[e]
        c = _match(
            vals[e], strict, amin, scale, nb, off_lo, g_sub, g_lo, off_hi, h_sub, h_hi, fail,
            has, t_sub, t_attr, t_lo, t_hi, t_n, dead, unm, n, cand, True, mask,
        )  # fmt: skip
        for j in range(c):
            r = cand[j]
            if r >= m:  # ascending: the rest were subscribed after the publish
                break
            if end[r] <= t:
                continue
            if k == out.size:
                return e  # out is full: event e again, from its start
            out[k] = r
            k += 1
        off[e + 1] = k
    return len(ev_t)
