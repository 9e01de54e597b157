"""A bucket matcher in the manner of REIN (Qian et al., "REIN: a fast event matching approach
for content-based publish/subscribe systems", INFOCOM 2014): the engine of `oracle-indexed`.

REIN's idea: per attribute, the predicates are bucketed by their low and by their high value. For
an event value v in bucket b, a predicate whose low value lies in a bucket above b, or whose high
value lies in a bucket below b, certainly fails; only the predicates with a bound in bucket b
itself are compared with v. A subscription matches when none of its predicates is marked failed.

Here the marks of the buckets beyond b are precomputed: per attribute and bucket, a bitset over
the subscriptions of "a predicate on this attribute certainly fails for every value of the
bucket" (`fail`). An event ORs one such bitset per attribute (a sequential pass over n/64 words)
and then compares only the predicates with a bound in its own bucket, a 1/B share (B buckets), so
a match costs about n/64 word operations per attribute and (2/B) of the predicates per
attribute, where REIN marks about half of every attribute's predicates one by one.

Storage is columnar from the start (numpy arrays, no object per subscription or predicate): the
predicates grouped by (attribute, bucket of the low value) with their subscription number, low and
high value; a second copy of (subscription, high value) grouped by (attribute, bucket of the
high value); the `fail` bitsets; per attribute a bitset of who has a predicate on it (strict
matching of a partial event: such a predicate fails). The kernels are compiled with numba.

B = 640 / attributes, 32 to 256 (32 at 20 attributes, 160 at 4), so that the fail bitsets take
80 bytes per subscription.
Bucket of x: floor((x - min) * B / (max - min)) clamped to [0, B - 1], one function
for bounds and values. It is monotone (each float operation rounds monotonically), so
bucket(lo) > bucket(v) implies lo > v and bucket(hi) < bucket(v) implies hi < v: the
precomputed marks are exact, whatever the rounding, and the boundary bucket is compared exactly.

Subscriptions added after the last build are a tail scanned predicate by predicate; the index is
rebuilt (in O(predicates), a counting sort) when the tail outgrows a quarter of it. Removal clears
a subscription's bit in `dead`. Matching is strict or lenient (thesis §3.4.1) as the trace says.
It must deliver exactly what the brute-force oracle delivers (tests/test_indexed_matcher.py,
tests/test_conformance_variants.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from numba import njit

from pubsub_spec.reference.common.model import Event, MatchMode, Schema, Subscription

EXACT = float(2**53)  # integers beyond this are not exact in float64
BUCKETS = 32  # per attribute at least; the fail bitsets: 1 bit per subscription and bucket
BITS = 640  # bits of fail bitsets per subscription (20 attributes: 32 buckets; 4: 160)
MIN_INDEX = 256  # below this many subscriptions a scan of the tail is as fast
_U1 = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_I32, _F64 = np.empty(0, np.int32), np.empty(0, np.float64)
_NO_MASK = np.empty(0, np.bool_)
# Loaded from the zip shipped to Spark's workers (spark_session.ship_code), whose path differs
# from run to run, numba's disk cache would only add a folder per run to the user's cache
# (its zip locator keys the folder on the zip's path): there the kernels are compiled per process.
CACHED = ".zip" not in __file__


@njit(cache=CACHED, inline="always")
def _bucket(x: float, lo: float, scale: float, nb: int) -> int:
    t = (x - lo) * scale
    if not t >= 0.0:  # below the domain, or NaN (scale 0 on an infinite span)
        return 0
    if t >= nb:
        return nb - 1
    return int(t)


@njit(cache=CACHED)
def _build(
    sub: Any, attr: Any, lo: Any, hi: Any, amin: Any, scale: Any, nb: int,
    off_lo: Any, g_sub: Any, g_lo: Any, g_hi: Any, off_hi: Any, h_sub: Any, h_hi: Any,
    fail: Any, has: Any, tmp: Any,
) -> None:  # fmt: skip
    """Counting sort of the predicates into the bucket groups; the fail and has bitsets."""
    na = amin.size
    p = sub.size
    off_lo[:] = 0
    off_hi[:] = 0
    for j in range(p):
        k = attr[j]
        off_lo[k * nb + _bucket(lo[j], amin[k], scale[k], nb) + 1] += 1
        off_hi[k * nb + _bucket(hi[j], amin[k], scale[k], nb) + 1] += 1
    for i in range(na * nb):
        off_lo[i + 1] += off_lo[i]
        off_hi[i + 1] += off_hi[i]
    at_lo = off_lo[:-1].copy()
    at_hi = off_hi[:-1].copy()
    for j in range(p):  # stable: within a group, in the order given (buckets computed again,
        k = attr[j]  # cheaper than a temporary array of them)
        bl = k * nb + _bucket(lo[j], amin[k], scale[k], nb)
        q = at_lo[bl]
        at_lo[bl] = q + 1
        g_sub[q], g_lo[q], g_hi[q] = sub[j], lo[j], hi[j]
        bh = k * nb + _bucket(hi[j], amin[k], scale[k], nb)
        q = at_hi[bh]
        at_hi[bh] = q + 1
        h_sub[q], h_hi[q] = sub[j], hi[j]
    fail[:] = 0
    has[:] = 0
    nw = fail.shape[2]
    for k in range(na):
        # low value in bucket c: fails for every value of the buckets below c
        for c in range(1, nb):
            for q in range(off_lo[k * nb + c], off_lo[k * nb + c + 1]):
                s = g_sub[q]
                fail[k, c - 1, s >> 6] |= _U1 << np.uint64(s & 63)
        for c in range(nb - 2, -1, -1):
            for w in range(nw):
                fail[k, c, w] |= fail[k, c + 1, w]
        # high value in bucket c: fails for every value of the buckets above c
        tmp[:] = 0
        for c in range(nb - 1):
            for q in range(off_hi[k * nb + c], off_hi[k * nb + c + 1]):
                s = h_sub[q]
                tmp[c + 1, s >> 6] |= _U1 << np.uint64(s & 63)
        for c in range(1, nb):
            for w in range(nw):
                tmp[c, w] |= tmp[c - 1, w]
        for c in range(nb):
            for w in range(nw):
                fail[k, c, w] |= tmp[c, w]
        for q in range(off_lo[k * nb], off_lo[(k + 1) * nb]):
            s = g_sub[q]
            has[k, s >> 6] |= _U1 << np.uint64(s & 63)


@njit(cache=CACHED)
def _match(
    vals: Any, strict: bool, amin: Any, scale: Any, nb: int,
    off_lo: Any, g_sub: Any, g_lo: Any, off_hi: Any, h_sub: Any, h_hi: Any,
    fail: Any, has: Any, t_sub: Any, t_attr: Any, t_lo: Any, t_hi: Any, t_n: int,
    dead: Any, unm: Any, n: int, out: Any, rows: bool, mask: Any,
) -> int:  # fmt: skip
    """Sets the bits of `unm` of the subscriptions not matched (or not live). With `rows`, writes
    the numbers of the matched ones, ascending, to `out` and returns how many; else sets mask[i]
    to whether subscription i matched. `vals`: the event's value per attribute, NaN if none."""
    nwi = fail.shape[2]  # words of the indexed subscriptions
    nw = (n + 63) >> 6
    for w in range(nw):
        unm[w] = dead[w]
    for k in range(amin.size):
        v = vals[k]
        if v == v:  # present (not NaN)
            b = _bucket(v, amin[k], scale[k], nb)
            if nwi > 0:
                row = fail[k, b]
                for w in range(nwi):
                    unm[w] |= row[w]
            g = k * nb + b
            for q in range(off_lo[g], off_lo[g + 1]):
                if g_lo[q] > v:
                    s = g_sub[q]
                    unm[s >> 6] |= _U1 << np.uint64(s & 63)
            for q in range(off_hi[g], off_hi[g + 1]):
                if h_hi[q] < v:
                    s = h_sub[q]
                    unm[s >> 6] |= _U1 << np.uint64(s & 63)
        elif strict and nwi > 0:  # thesis §3.4.1: a predicate on a missing attribute fails
            row = has[k]
            for w in range(nwi):
                unm[w] |= row[w]
    for q in range(t_n):  # the tail, not yet indexed
        v = vals[t_attr[q]]
        if v == v:
            if t_lo[q] <= v and v <= t_hi[q]:
                continue
        elif not strict:
            continue
        s = t_sub[q]
        unm[s >> 6] |= _U1 << np.uint64(s & 63)
    c = 0
    if not rows:
        for i in range(n):
            mask[i] = not (unm[i >> 6] >> np.uint64(i & 63)) & _U1
        return c
    for w in range(nw):
        x = unm[w] ^ _ALL
        if x != 0:
            base = w << 6
            for i in range(64):
                if (x >> np.uint64(i)) & _U1:
                    out[c] = base + i
                    c += 1
    return c


def append_predicates(
    sub: Subscription, row: int, attr_no: Mapping[str, int],
    p_sub: list[int], p_attr: list[int], p_lo: list[float], p_hi: list[float],
) -> None:  # fmt: skip
    """Append `sub`'s predicates, as subscription number `row`, to predicate columns in the form
    `BucketMatcher.add_columns` takes (attribute numbers from `attr_no`, the schema's order);
    a bound beyond 2^53 or an unknown attribute is refused by the subscription's id."""
    for p in sub.predicates:
        lo, hi = float(p.lo), float(p.hi)
        if abs(lo) >= EXACT or abs(hi) >= EXACT:
            raise ValueError(f"{sub.id}: bound beyond 2^53 is not exact in float64")
        k = attr_no.get(p.attribute)
        if k is None:
            raise ValueError(f"{sub.id}: unknown attribute {p.attribute!r}")
        p_sub.append(row)
        p_attr.append(k)
        p_lo.append(lo)
        p_hi.append(hi)


def event_row(event: Event, attr_no: Mapping[str, int], width: int) -> list[float]:
    """The event's values in schema order (attribute numbers from `attr_no`), NaN where it has
    none; of two values of one name the first counts (`Event.value`)."""
    values = [math.nan] * width
    for name, v in event.values:
        k = attr_no.get(name)
        if k is not None and values[k] != values[k]:
            values[k] = float(v)
    return values


# The callers that match a trace's events after its ops, in one compiled loop per schema
# (`array_kernels.deliveries`, `indexed_kernels.matches`), over `BucketMatcher.kernel_index`:
NEVER = 2**62  # the op ordinal of "not ended" / "not removed"
OUT = 4096  # room for deliveries of one kernel call, at first (doubled when one event needs more)


def kernel_chunks(
    kernel: Callable[..., int], head: tuple[Any, ...], tail: tuple[Any, ...], events: int
) -> Iterator[tuple[int, int, Any, Any]]:
    """Run such a loop over events 0 .. events - 1 as often as its output needs. `kernel(*head,
    e0, *tail, out, off)` writes the subscription numbers of events e0, e0 + 1, ... into `out`
    while they fit, sets off[e + 1] - off[e0] to the count up to event e and returns the first
    event not done (e0 itself: event e0 alone does not fit, and the room is doubled). Yields
    (e0, e1, rows, bounds): event e's numbers are rows[bounds[e - e0] : bounds[e - e0 + 1]]."""
    off = np.zeros(events + 1, np.int64)
    size, e0 = OUT, 0
    while e0 < events:
        out = np.empty(size, np.int64)  # a new one per call: the caller may keep views of it
        e1 = int(kernel(*head, e0, *tail, out, off))
        if e1 == e0:
            size *= 2
            continue
        bounds = off[e0 : e1 + 1].copy()  # off[e0] is 0: the call's own offsets
        yield e0, e1, out[: bounds[-1]], bounds
        e0 = e1


class BucketMatcher:
    """Subscriptions of one schema; `match` gives the live ones an event matches, in the order
    they were added. Same interface as the matcher it replaces (`IndexedMatcher`)."""

    def __init__(
        self,
        schema: Schema,
        mode: MatchMode,
        min_index: int = MIN_INDEX,
        buckets: int | None = None,
    ) -> None:
        self.schema = schema
        self.mode = mode
        self.min_index = min_index
        self.attrs = [a.name for a in schema.attributes]
        if buckets is None:  # BITS bits of fail bitsets per subscription, 32 to 256 buckets
            buckets = min(max(BITS // len(self.attrs), BUCKETS), 256)
        self.nb = buckets
        self._attr_no = {a: k for k, a in enumerate(self.attrs)}
        na = len(self.attrs)
        self._amin = np.array([float(a.min) for a in schema.attributes])
        span = np.array([float(a.max) - float(a.min) for a in schema.attributes])
        with np.errstate(over="ignore", divide="ignore"):
            scale = buckets / span
        self._scale = np.where(np.isfinite(scale) & (scale > 0), scale, 0.0)
        self.n = 0
        self.ids: list[str] = []
        self.subscriber: list[str] = []
        self._slot: dict[str, int] | None = None  # id -> number, made on the first removal
        self._id_array: Any = np.array([], dtype=object)
        self._dead = np.zeros(1, np.uint64)  # bit i: subscription i removed (or not yet added)
        self._dead[0] = _ALL
        self._removed = 0
        # the tail: predicates of subscriptions added since the last build
        self._t_sub = np.empty(64, np.int32)
        self._t_attr = np.empty(64, np.int32)
        self._t_lo = np.empty(64)
        self._t_hi = np.empty(64)
        self._t_n = 0
        # the index over subscriptions [0, _indexed)
        self._indexed = 0
        self._off_lo = np.zeros(na * buckets + 1, np.int64)
        self._off_hi = np.zeros(na * buckets + 1, np.int64)
        self._g_sub = np.empty(0, np.int32)
        self._g_lo = np.empty(0)
        self._g_hi = np.empty(0)
        self._h_sub = np.empty(0, np.int32)
        self._h_hi = np.empty(0)
        self._fail = np.zeros((na, buckets, 0), np.uint64)
        self._has = np.zeros((na, 0), np.uint64)
        self._unm = np.empty(1, np.uint64)
        self._out = np.empty(1, np.int64)

    # -- subscriptions ------------------------------------------------------------------------
    def _reserve(self, subs: int, preds: int) -> None:
        """Room for `subs` more subscriptions and `preds` more tail predicates."""
        words = (self.n + subs + 63) >> 6
        if words > self._dead.size:
            dead = np.full(max(words, 2 * self._dead.size), _ALL, np.uint64)
            dead[: self._dead.size] = self._dead
            self._dead = dead
        need = self._t_n + preds
        if need > self._t_sub.size:
            cap = max(need, 2 * self._t_sub.size)
            for name in ("_t_sub", "_t_attr", "_t_lo", "_t_hi"):
                old = getattr(self, name)
                new = np.empty(cap, old.dtype)
                new[: self._t_n] = old[: self._t_n]
                setattr(self, name, new)

    def _born(self, first: int, count: int) -> None:
        """Clear the dead bits of subscriptions [first, first + count)."""
        bits = np.zeros(self._dead.size * 64, bool)
        bits[first : first + count] = True
        self._dead &= ~np.packbits(bits, bitorder="little").view(np.uint64)

    def add(self, sub: Subscription) -> None:
        i = self.n
        self._reserve(1, len(sub.predicates))
        t = self._t_n
        for p in sub.predicates:
            lo, hi = float(p.lo), float(p.hi)
            if abs(lo) >= EXACT or abs(hi) >= EXACT:
                raise ValueError(f"{sub.id}: bound beyond 2^53 is not exact in float64")
            k = self._attr_no.get(p.attribute)
            if k is None:
                raise ValueError(f"{sub.id}: unknown attribute {p.attribute!r}")
            self._t_sub[t], self._t_attr[t], self._t_lo[t], self._t_hi[t] = i, k, lo, hi
            t += 1
        self._t_n = t
        self.n = i + 1
        self._dead[i >> 6] &= ~(_U1 << np.uint64(i & 63))
        # the matcher's own copy of the id, allocated next to the others (cheaper to gather)
        self.ids.append((sub.id + " ")[:-1])
        self.subscriber.append(sub.subscriber)
        if self._slot is not None:
            self._slot[sub.id] = i

    def add_columns(
        self,
        ids: Sequence[str],
        sub: Any,
        attr: Any,
        lo: Any,
        hi: Any,
        subscribers: Sequence[str] | None = None,
    ) -> None:
        """Add len(ids) subscriptions at once, given as predicate columns: predicate j belongs to
        subscription `sub[j]` (0-based among these), is on attribute number `attr[j]` (schema
        order) and is lo[j] <= A <= hi[j]. No object is made per subscription or predicate."""
        m = len(ids)
        sub = np.asarray(sub)
        attr = np.asarray(attr)
        lo = np.asarray(lo, np.float64)
        hi = np.asarray(hi, np.float64)
        if not sub.size == attr.size == lo.size == hi.size:
            raise ValueError("predicate columns of different lengths")
        if sub.size and (sub.min() < 0 or sub.max() >= m):
            raise ValueError("predicate of no subscription")
        if attr.size and (attr.min() < 0 or attr.max() >= len(self.attrs)):
            raise ValueError("unknown attribute number")
        if np.any(np.abs(lo) >= EXACT) or np.any(np.abs(hi) >= EXACT):
            raise ValueError("bound beyond 2^53 is not exact in float64")
        first = self.n
        self._reserve(m, 0 if first == 0 else sub.size)
        self.n = first + m
        self._born(first, m)
        if first == 0:  # a bulk load: indexed at once from the columns, which are not copied
            self._index(sub.astype(np.int32, copy=False), attr.astype(np.int32, copy=False), lo, hi)
        else:
            t, u = self._t_n, self._t_n + sub.size
            self._t_sub[t:u] = sub + first
            self._t_attr[t:u], self._t_lo[t:u], self._t_hi[t:u] = attr, lo, hi
            self._t_n = u
        self.ids.extend(ids)
        self.subscriber.extend(subscribers if subscribers is not None else [""] * m)
        if self._slot is not None:
            self._slot.update((s, first + i) for i, s in enumerate(ids))

    def _slots(self) -> dict[str, int]:
        if self._slot is None:
            dead = np.unpackbits(self._dead.view(np.uint8), bitorder="little")[: self.n]
            self._slot = {s: i for i, s in enumerate(self.ids) if not dead[i]}
        return self._slot

    def remove(self, sub_id: str) -> None:
        i = self._slots().pop(sub_id)
        self._dead[i >> 6] |= _U1 << np.uint64(i & 63)
        self._removed += 1

    def remove_subscriber(self, nodes: set[str]) -> None:
        for sid, i in list(self._slots().items()):
            if self.subscriber[i] in nodes:
                self.remove(sid)

    # -- the index ----------------------------------------------------------------------------
    def build(self) -> None:
        """(Re)build the index over every live subscription added so far (unless it is)."""
        if self._indexed == self.n and not self._removed:
            return
        na, nb, t = len(self.attrs), self.nb, self._t_n
        ga = np.repeat(np.arange(na, dtype=np.int32), np.diff(self._off_lo[::nb]))
        sub = np.concatenate([self._g_sub, self._t_sub[:t]])
        attr = np.concatenate([ga, self._t_attr[:t]])
        lo = np.concatenate([self._g_lo, self._t_lo[:t]])
        hi = np.concatenate([self._g_hi, self._t_hi[:t]])
        del ga
        if self._removed:  # drop the predicates of removed subscriptions
            dead = np.unpackbits(self._dead.view(np.uint8), bitorder="little")
            keep = dead[sub] == 0
            sub, attr, lo, hi = sub[keep], attr[keep], lo[keep], hi[keep]
            self._removed = 0
        # the old index and the tail are garbage from here: free them before the new one
        self._g_sub, self._g_lo, self._g_hi = _I32, _F64, _F64
        self._h_sub, self._h_hi = _I32, _F64
        self._fail = np.zeros((na, nb, 0), np.uint64)
        self._t_sub, self._t_attr = np.empty(64, np.int32), np.empty(64, np.int32)
        self._t_lo, self._t_hi = np.empty(64), np.empty(64)
        self._t_n = 0
        self._index(sub, attr, lo, hi)

    def _index(self, sub: Any, attr: Any, lo: Any, hi: Any) -> None:
        """Index these predicates (int32, int32, float64, float64) of subscriptions [0, n)."""
        na, nb, n = len(self.attrs), self.nb, self.n
        p, nw = sub.size, (n + 63) >> 6
        self._g_sub, self._g_lo, self._g_hi = np.empty(p, np.int32), np.empty(p), np.empty(p)
        self._h_sub, self._h_hi = np.empty(p, np.int32), np.empty(p)
        self._fail = np.empty((na, nb, nw), np.uint64)
        self._has = np.empty((na, nw), np.uint64)
        tmp = np.empty((nb, nw), np.uint64)
        _build(
            sub, attr, lo, hi, self._amin, self._scale, nb,
            self._off_lo, self._g_sub, self._g_lo, self._g_hi, self._off_hi, self._h_sub,
            self._h_hi, self._fail, self._has, tmp,
        )  # fmt: skip
        self._indexed = n
        self._unm = np.empty(max(self._dead.size, 1), np.uint64)
        self._out = np.empty(max(n, 1), np.int64)

    def kernel_index(self) -> tuple[Any, ...]:
        """The index and the removed subscriptions, as `_match` takes them after (vals, strict),
        built over every subscription added: for a caller that matches many events in one
        compiled loop (the array simulator's `array_kernels.deliveries`)."""
        self.build()
        return (
            self._amin, self._scale, self.nb, self._off_lo, self._g_sub, self._g_lo,
            self._off_hi, self._h_sub, self._h_hi, self._fail, self._has, self._t_sub,
            self._t_attr, self._t_lo, self._t_hi, self._t_n, self._dead,
        )  # fmt: skip

    def nbytes(self) -> int:
        """Bytes of the matcher's arrays (not of the id strings, which are the caller's)."""
        arrays: list[Any] = [
            self._dead, self._t_sub, self._t_attr, self._t_lo, self._t_hi, self._off_lo,
            self._off_hi, self._g_sub, self._g_lo, self._g_hi, self._h_sub, self._h_hi,
            self._fail, self._has, self._unm, self._out,
        ]  # fmt: skip
        return sum(a.nbytes for a in arrays)

    # -- matching -----------------------------------------------------------------------------
    def _mark(self, event: Event, rows: bool, mask: Any = _NO_MASK) -> int:
        n = self.n
        if n - self._indexed > max(self.min_index, self._indexed // 4):
            self.build()
        if self._unm.size < self._dead.size:
            self._unm = np.empty(self._dead.size, np.uint64)
        if self._out.size < n:
            self._out = np.empty(max(n, 2 * self._out.size), np.int64)
        values = event_row(event, self._attr_no, len(self.attrs))
        c = _match(
            np.array(values), self.mode == "strict", self._amin, self._scale, self.nb,
            self._off_lo, self._g_sub, self._g_lo, self._off_hi, self._h_sub, self._h_hi,
            self._fail, self._has, self._t_sub, self._t_attr, self._t_lo, self._t_hi, self._t_n,
            self._dead, self._unm, n, self._out, rows, mask,
        )  # fmt: skip
        return c

    def match_rows(self, event: Event) -> Any:
        """The numbers of the live subscriptions the event matches, ascending (int64)."""
        c = self._mark(event, True)  # (may build, and so replace self._out)
        return self._out[:c].copy()

    def match_mask(self, event: Event) -> Any:
        """A boolean mask over subscription numbers 0..n-1: live and matched by the event."""
        ok = np.empty(self.n, np.bool_)
        self._mark(event, False, ok)
        return ok

    def match(self, event: Event) -> list[str]:
        """The ids of the live subscriptions the event matches, in the order they were added."""
        return self.ids_of(self.match_rows(event))

    def ids_of(self, rows: Any) -> list[str]:
        """The ids of subscription numbers (an index array, or a boolean mask of length n)."""
        if len(self._id_array) != self.n:
            self._id_array = np.array(self.ids, dtype=object)
        result: list[str] = self._id_array[rows].tolist()
        return result
