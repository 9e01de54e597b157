"""Matching of an event against a subscription (thesis §2.2.2 and §3.4.1, partial events).

`strict`: a predicate on an attribute the event lacks fails (the default).
`lenient`: such a predicate is ignored (thesis §3.4.1, "the constraint of A2 is ignored").
"""

from __future__ import annotations

from pubsub_spec.reference.common.model import Event, MatchMode, Number, Subscription


def matches(sub: Subscription, event: Event, mode: MatchMode = "strict") -> bool:
    if sub.schema != event.schema:
        return False
    for p in sub.predicates:
        v = event.value(p.attribute)
        if v is None:
            if mode == "strict":
                return False
            continue
        if not p.lo <= v <= p.hi:
            return False
    return True


def event_values(event: Event) -> dict[str, Number]:
    """The event's values by attribute name, the first of a name winning (as `Event.value`)."""
    out: dict[str, Number] = {}
    for name, v in event.values:
        out.setdefault(name, v)
    return out


def matches_values(
    sub: Subscription, schema: str, values: dict[str, Number], strict: bool
) -> bool:
    """`matches` on an event given as its schema and `event_values`: the same rule, for callers
    that match one event against many subscriptions (no scan of the event per predicate)."""
    if sub.schema != schema:
        return False
    for p in sub.predicates:
        v = values.get(p.attribute)
        if v is None:
            if strict:
                return False
            continue
        if not p.lo <= v <= p.hi:
            return False
    return True
