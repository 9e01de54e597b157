"""Matching of an event against a subscription (thesis §2.2.2 and §3.4.1, partial events).

`strict`: a predicate on an attribute the event lacks fails (the default).
`lenient`: such a predicate is ignored (thesis §3.4.1, "the constraint of A2 is ignored").
"""

from __future__ import annotations

from pubsub_spec.reference.common.model import Event, MatchMode, Subscription


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
