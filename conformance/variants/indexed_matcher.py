"""An indexed matcher: subscriptions as columns of numpy arrays (one lo/hi/present column per
attribute), matched against an event with vectorised comparisons instead of one predicate at a
time. Used as a fast oracle (`oracle-indexed`) and, through `match`, where a leaf matches.
It must deliver exactly what the brute-force oracle delivers (tests/test_variants.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from reference.model import Event, MatchMode, Schema, Subscription
from reference.ops import Fail, Leave, Publish, Subscribe, Trace, Unsubscribe
from reference.oracle import Delivery

EXACT = float(2**53)  # integers beyond this are not exact in float64


class IndexedMatcher:
    def __init__(self, schema: Schema, mode: MatchMode) -> None:
        self.schema = schema
        self.mode = mode
        self.attrs = [a.name for a in schema.attributes]
        self.n = 0
        cap = 64
        # an attribute without a predicate is [-inf, +inf]: any present value passes it
        self.lo = np.full((len(self.attrs), cap), -np.inf)
        self.hi = np.full((len(self.attrs), cap), np.inf)
        self.has = np.zeros((len(self.attrs), cap), dtype=bool)
        self.alive = np.zeros(cap, dtype=bool)
        self.ids: list[str] = []
        self.slot: dict[str, int] = {}
        self.subscriber: list[str] = []
        self._id_array: Any = np.array([], dtype=object)

    def _grow(self) -> None:
        cap = self.alive.size * 2

        def widen(a: Any, fill: Any) -> Any:
            out = np.full((a.shape[0], cap), fill, dtype=a.dtype)
            out[:, : a.shape[1]] = a
            return out

        self.lo, self.hi = widen(self.lo, -np.inf), widen(self.hi, np.inf)
        self.has = widen(self.has, False)
        alive = np.zeros(cap, dtype=bool)
        alive[: self.alive.size] = self.alive
        self.alive = alive

    def add(self, sub: Subscription) -> None:
        if self.n == self.alive.size:
            self._grow()
        i = self.n
        self.n += 1
        for p in sub.predicates:
            if abs(float(p.lo)) >= EXACT or abs(float(p.hi)) >= EXACT:
                raise ValueError(f"{sub.id}: bound beyond 2^53 is not exact in float64")
            k = self.attrs.index(p.attribute)
            self.lo[k, i], self.hi[k, i], self.has[k, i] = float(p.lo), float(p.hi), True
        self.alive[i] = True
        self.ids.append(sub.id)
        self.subscriber.append(sub.subscriber)
        self.slot[sub.id] = i

    def remove(self, sub_id: str) -> None:
        self.alive[self.slot.pop(sub_id)] = False

    def remove_subscriber(self, nodes: set[str]) -> None:
        for sid, i in list(self.slot.items()):
            if self.subscriber[i] in nodes:
                self.remove(sid)

    def match(self, event: Event) -> list[str]:
        n = self.n
        ok = self.alive[:n].copy()
        tmp = np.empty(n, dtype=bool)
        values = dict(event.values)
        for k, name in enumerate(self.attrs):
            if name in values:
                v = float(values[name])
                np.less_equal(self.lo[k, :n], v, out=tmp)
                ok &= tmp
                np.greater_equal(self.hi[k, :n], v, out=tmp)
                ok &= tmp
            elif self.mode == "strict":
                np.logical_not(self.has[k, :n], out=tmp)
                ok &= tmp
        if len(self._id_array) != n:
            self._id_array = np.array(self.ids, dtype=object)
        result: list[str] = self._id_array[ok].tolist()
        return result


def indexed_expected(trace: Trace) -> list[Delivery]:
    """The oracle's deliveries, computed with one IndexedMatcher per schema."""
    matchers = {s.name: IndexedMatcher(s, trace.matching) for s in trace.schemas}
    where: dict[str, str] = {}
    out: list[Delivery] = []
    for op in trace.ops:
        if isinstance(op, Subscribe):
            matchers[op.sub.schema].add(op.sub)
            where[op.sub.id] = op.sub.schema
        elif isinstance(op, Unsubscribe):
            matchers[where[op.sub_id]].remove(op.sub_id)
        elif isinstance(op, Leave | Fail):
            gone = {op.node} if isinstance(op, Leave) else set(op.nodes)
            for m in matchers.values():
                m.remove_subscriber(gone)
        elif isinstance(op, Publish):
            out.extend(Delivery(op.event.id, s) for s in matchers[op.event.schema].match(op.event))
    out.sort()
    return out
