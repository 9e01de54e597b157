"""Schema, subscriptions and events (thesis §2.2.2, §3.1; docs/design.md#contract).

A schema has named numeric attributes, each with a closed domain [min, max]. A subscription is a
conjunction of closed ranges lo <= A <= hi; an event gives values for some or all attributes.
Validation lives here so that every producer of these objects rejects bad input the same way.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pubsub_spec.reference.common.errors import InputError

Number = int | float
AttrType = Literal["int", "float"]
MatchMode = Literal["strict", "lenient"]
MATCH_MODES: tuple[MatchMode, ...] = ("strict", "lenient")


def check_number(value: object, where: str, fld: str, attr_type: AttrType = "float") -> Number:
    """A finite number of the attribute's type (bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(where, fld, f"expected a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(where, fld, f"value must be finite, got {value!r}")
    if attr_type == "int":
        if isinstance(value, float):
            if not value.is_integer():
                raise InputError(where, fld, f"attribute is int, got non-integer {value!r}")
            return int(value)
        return value
    return value


@dataclass(frozen=True)
class Attribute:
    """A numeric attribute with a closed domain [min, max] (thesis Table 4.2)."""

    name: str
    type: AttrType
    min: Number
    max: Number

    def validate(self, where: str) -> None:
        if not self.name or "/" in self.name:
            raise InputError(where, "name", f"bad attribute name {self.name!r}")
        if self.type not in ("int", "float"):
            raise InputError(where, "type", f"type must be int or float, got {self.type!r}")
        lo = check_number(self.min, where, "min", self.type)
        hi = check_number(self.max, where, "max", self.type)
        if not lo < hi:
            raise InputError(where, "min", f"domain must satisfy min < max, got [{lo}, {hi}]")


@dataclass(frozen=True)
class Schema:
    """A pub/sub schema S = {A1, ..., An}; several may be hosted at once (thesis §3.1)."""

    name: str
    attributes: tuple[Attribute, ...]
    by_name: Mapping[str, Attribute] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_name", {a.name: a for a in self.attributes})

    def validate(self, where: str) -> None:
        if not self.name or "/" in self.name:
            raise InputError(where, "schemas.name", f"bad schema name {self.name!r}")
        if not self.attributes:
            raise InputError(where, f"schemas[{self.name}].attributes", "schema has no attribute")
        seen: set[str] = set()
        for i, a in enumerate(self.attributes):
            a.validate(f"{where}: schema {self.name!r} attribute #{i}")
            if a.name in seen:
                raise InputError(where, f"schemas[{self.name}].attributes", f"duplicate {a.name!r}")
            seen.add(a.name)

    def attribute(self, name: str) -> Attribute:
        return self.by_name[name]


def qualified(schema: str, attribute: str) -> str:
    """The root identifier of an attribute's 2d-tree: attribute name qualified by schema."""
    return f"{schema}/{attribute}"


@dataclass(frozen=True)
class Predicate:
    """lo <= attribute <= hi, closed (docs/design.md#subscription); equality is [v, v]."""

    attribute: str
    lo: Number
    hi: Number


@dataclass(frozen=True)
class Subscription:
    """(subscriber, sid, s) of thesis §3.1; s is a conjunction of predicates."""

    id: str
    subscriber: str
    schema: str
    predicates: tuple[Predicate, ...]

    def predicate(self, attribute: str) -> Predicate | None:
        for p in self.predicates:
            if p.attribute == attribute:
                return p
        return None


@dataclass(frozen=True)
class Event:
    """An event: values for some or all attributes of its schema (thesis §3.4.1)."""

    id: str
    publisher: str
    schema: str
    values: tuple[tuple[str, Number], ...]

    def value(self, attribute: str) -> Number | None:
        for name, v in self.values:
            if name == attribute:
                return v
        return None


def _schema_of(schemas: Mapping[str, Schema], name: str, where: str) -> Schema:
    if name not in schemas:
        raise InputError(where, "schema", f"unknown schema {name!r}")
    return schemas[name]


def validate_subscription(sub: Subscription, schemas: Mapping[str, Schema], where: str) -> None:
    """Reject unknown attributes, out-of-domain values, NaN/inf and lo > hi, naming the field."""
    schema = _schema_of(schemas, sub.schema, where)
    if not sub.id:
        raise InputError(where, "id", "empty subscription id")
    if not sub.predicates:
        raise InputError(where, "predicates", "a subscription needs at least one predicate")
    seen: set[str] = set()
    for p in sub.predicates:
        fld = f"predicates.{p.attribute}"
        if p.attribute not in schema.by_name:
            raise InputError(where, fld, f"unknown attribute {p.attribute!r} of {schema.name!r}")
        if p.attribute in seen:
            raise InputError(where, fld, "attribute constrained twice")
        seen.add(p.attribute)
        a = schema.by_name[p.attribute]
        lo = check_number(p.lo, where, fld + ".lo", a.type)
        hi = check_number(p.hi, where, fld + ".hi", a.type)
        if lo > hi:
            raise InputError(where, fld, f"inverted range: lo {lo} > hi {hi}")
        if lo < a.min or hi > a.max:
            raise InputError(where, fld, f"[{lo}, {hi}] outside domain [{a.min}, {a.max}]")


def validate_event(event: Event, schemas: Mapping[str, Schema], where: str) -> None:
    schema = _schema_of(schemas, event.schema, where)
    if not event.id:
        raise InputError(where, "id", "empty event id")
    if not event.values:
        raise InputError(where, "values", "an event needs at least one value")
    seen: set[str] = set()
    for name, v in event.values:
        fld = f"values.{name}"
        if name not in schema.by_name:
            raise InputError(where, fld, f"unknown attribute {name!r} of {schema.name!r}")
        if name in seen:
            raise InputError(where, fld, "attribute given twice")
        seen.add(name)
        a = schema.by_name[name]
        x = check_number(v, where, fld, a.type)
        if x < a.min or x > a.max:
            raise InputError(where, fld, f"{x} outside domain [{a.min}, {a.max}]")
