"""The schema layer of Tam, Azimi and Jacobsen (Tam et al. §3.1, §3.2, §3.5, §3.6): tables and
their indices, interval indicators, index digests, hash keys, and the index-selection policy.

A project `Schema` is one table of the paper (§3.1; its domain is the schema name's prefix).
An index is an ordered tuple of attributes (§3.1, "ordered collection of strategically selected
attributes"). A request (subscription or publication) that specifies every attribute of an
index yields digests for it: the concatenation of type, name and value of each index attribute
(§3.2), the value being the interval indicator of §3.5. The key is the SHA-1 of the digest (§3.2;
decision T4).
"""

from __future__ import annotations

import bisect
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    Number,
    Schema,
    Subscription,
    qualified,
)
from pubsub_spec.reference.overlay.pastry import sha1_id
from pubsub_spec.reference.tam.config import IndexPolicy, TamConfig

Index = tuple[str, ...]


@dataclass(frozen=True)
class Intervals:
    """The intervals of one attribute (§3.5; decision T5): cut points c_1 < ... < c_{m-1}
    inside (min, max); interval j is [c_j, c_{j+1}) with c_0 = min, and the last one closed at
    max. The indicator of v is the number of cut points <= v."""

    cuts: tuple[Number, ...]

    @property
    def count(self) -> int:
        return len(self.cuts) + 1

    def label(self, v: Number) -> int:
        return bisect.bisect_right(self.cuts, v)

    def labels(self, lo: Number, hi: Number) -> range:
        """The indicators of every interval that meets [lo, hi] (§3.5: "a predicate belongs to
        the keys of every interval it intersects")."""
        return range(self.label(lo), self.label(hi) + 1)


def default_intervals(a: Attribute, config: TamConfig) -> Intervals:
    """T5: one interval per value for a small int domain (§3.5, "separate hash key for each
    value"), else `default_intervals` equal-width intervals."""
    if a.type == "int" and int(a.max) - int(a.min) + 1 <= config.exact_values:
        return Intervals(tuple(range(int(a.min) + 1, int(a.max) + 1)))
    m = config.default_intervals
    width = (a.max - a.min) / m
    return Intervals(tuple(a.min + j * width for j in range(1, m)))


def equiprobable_cuts(
    samples: Sequence[Number], m: int, domain: tuple[Number, Number] | None = None
) -> tuple[float, ...]:
    """§3.5: boundaries with equal probability mass per interval, from a sample of the
    attribute's values (the quantiles j/m, j = 1..m-1), duplicates dropped.

    Safe on every input (decision T5, `Intervals`' invariant): an empty sample or m <= 1 gives
    no cut (one interval); a cut is kept only strictly above the sample's minimum and, given the
    attribute's `domain` (min, max), strictly inside it, so that no interval is empty at either
    end (a cut equal to the domain's maximum would leave an interval holding max alone)."""
    xs = sorted(samples)
    out: list[float] = []
    if not xs or m <= 1:
        return ()
    lo, hi = (xs[0], float("inf")) if domain is None else (max(xs[0], domain[0]), domain[1])
    for j in range(1, m):
        c = float(xs[min(len(xs) - 1, (j * len(xs)) // m)])
        if (not out or c > out[-1]) and lo < c < hi:
            out.append(c)
    return tuple(out)


def digest(schema: Schema, index: Index, labels: Sequence[int]) -> str:
    """The index digest (§3.2): type, name and value of every index attribute in index order,
    qualified by the table name (T2), encoded as compact JSON so that it is injective (T1)."""
    parts = [[schema.by_name[a].type, a, j] for a, j in zip(index, labels, strict=True)]
    return json.dumps([schema.name, parts], separators=(",", ":"))


def key_of(digest_text: str) -> int:
    """Hash key of a digest (§3.2: "translated into a DHT hash key"; T4: SHA-1, 160 bits)."""
    return sha1_id(digest_text)


class Table:
    """One schema with its indices and intervals, as every peer holds it (§3.1: "the schema is
    broadcast to all nodes prior to operation")."""

    def __init__(self, schema: Schema, config: TamConfig) -> None:
        self.schema = schema
        declared = config.indices_of(schema.name)
        ixs: list[Index] = list(declared) if declared is not None else []
        if declared is None or config.fallback:  # T9: singleton indices cover everything
            ixs += [(a.name,) for a in schema.attributes if (a.name,) not in ixs]
        self.indices: tuple[Index, ...] = tuple(ixs)
        self.intervals: dict[str, Intervals] = {}
        for a in schema.attributes:
            cuts = config.cuts_of(qualified(schema.name, a.name))
            self.intervals[a.name] = (
                Intervals(cuts) if cuts is not None else default_intervals(a, config)
            )

    def applicable_to_subscription(self, sub: Subscription) -> list[Index]:
        """Indices whose attributes the subscription all constrains (§3.2)."""
        have = {p.attribute for p in sub.predicates}
        return [ix for ix in self.indices if set(ix) <= have]

    def applicable_to_event(self, event: Event) -> list[Index]:
        have = {a for a, _ in event.values}
        return [ix for ix in self.indices if set(ix) <= have]

    def subscription_keys(self, sub: Subscription, index: Index) -> list[int]:
        """One key per combination of intersecting intervals (§3.5): their number is the
        product over the index attributes of the intervals each predicate meets."""
        ranges = []
        for a in index:
            p = sub.predicate(a)
            assert p is not None
            ranges.append(self.intervals[a].labels(p.lo, p.hi))
        return [key_of(digest(self.schema, index, c)) for c in itertools.product(*ranges)]

    def key_count(self, sub: Subscription, index: Index) -> int:
        n = 1
        for a in index:
            p = sub.predicate(a)
            assert p is not None
            n *= len(self.intervals[a].labels(p.lo, p.hi))
        return n

    def event_key(self, event: Event, index: Index) -> int:
        """A publication has one interval per attribute, hence one key per index (§3.5)."""
        labels = []
        for a in index:
            v = event.value(a)
            assert v is not None
            labels.append(self.intervals[a].label(v))
        return key_of(digest(self.schema, index, labels))

    def select(self, sub: Subscription, policy: IndexPolicy, where: str = "") -> list[Index]:
        """The indices a subscription registers on (§3.6; T6): `first` applicable in declared
        order ("the most important"), `fewest-keys` (ties: declared order), or `all`."""
        app = self.applicable_to_subscription(sub)
        if not app:
            raise InputError(where or f"subscription {sub.id}", "predicates", "covers no index")
        if policy == "all":
            return app
        if policy == "fewest-keys":
            return [min(app, key=lambda ix: self.key_count(sub, ix))]
        return [app[0]]
