"""Advertisements and their relation to subscriptions and events (OctopiA §I-II, §V; A7, A13).

An advertisement is a PADRES conjunction of closed-interval predicates, issued by a publisher
(a client). It *overlaps* a subscription iff both are of one schema and their intervals
intersect on every attribute both constrain (A7). An event *conforms* to it iff every
attribute it constrains is present in the event and in range (A7): with conformance, an event
matching a subscription (strict or lenient) implies overlap, so routing by overlap is sound
(I8, tested).

A trace with advertisement ops (trace format v2) declares its own (decision O-EXPLICIT,
`BrokerNetwork.apply_other`; `reference.common.ops.Advertise.admits` is the same conformance
rule as `conforms`). For a trace without any, decision O-IMPLICIT derives one advertisement per
(publisher, schema) from the trace: the bounding box of the publisher's events of that schema
on the attributes present in all of them; it is issued before the first op.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pubsub_spec.reference.common.model import Event, Number, Predicate, Subscription
from pubsub_spec.reference.common.ops import Publish, Trace


@dataclass(frozen=True)
class Advertisement:
    id: str
    publisher: str
    schema: str
    predicates: tuple[Predicate, ...]

    def predicate(self, attribute: str) -> Predicate | None:
        for p in self.predicates:
            if p.attribute == attribute:
                return p
        return None


def overlaps(adv: Advertisement, sub: Subscription) -> bool:
    """Non-empty overlap (§I: "an advertisement matches a subscription if both have a non-empty
    overlap"), over the attributes both constrain (A7)."""
    if adv.schema != sub.schema:
        return False
    for p in sub.predicates:
        q = adv.predicate(p.attribute)
        if q is not None and (p.hi < q.lo or q.hi < p.lo):
            return False
    return True


def conforms(event: Event, adv: Advertisement) -> bool:
    """The event is one the advertisement declared (§I; A7)."""
    if event.schema != adv.schema or event.publisher != adv.publisher:
        return False
    for p in adv.predicates:
        v = event.value(p.attribute)
        if v is None or not p.lo <= v <= p.hi:
            return False
    return True


def implicit_id(publisher: str, schema: str) -> str:
    return f"implicit:{publisher}:{schema}"


def implicit_advertisements(trace: Trace) -> tuple[Advertisement, ...]:
    """Decision O-IMPLICIT (module doc): one advertisement per (publisher, schema) of the
    trace's publishes, the bounding box on the attributes every such event carries."""
    boxes: dict[tuple[str, str], dict[str, tuple[Number, Number]]] = {}
    present: dict[tuple[str, str], set[str]] = defaultdict(set)
    for op in trace.ops:
        if not isinstance(op, Publish):
            continue
        e = op.event
        key = (e.publisher, e.schema)
        names = {a for a, _ in e.values}
        if key not in boxes:
            boxes[key] = {}
            present[key] = set(names)
        present[key] &= names
        box = boxes[key]
        for a, v in e.values:
            lo, hi = box.get(a, (v, v))
            box[a] = (min(lo, v), max(hi, v))
    out = []
    for (pub, schema), box in sorted(boxes.items()):
        preds = tuple(
            Predicate(a, box[a][0], box[a][1]) for a in sorted(box) if a in present[(pub, schema)]
        )
        out.append(Advertisement(implicit_id(pub, schema), pub, schema, preds))
    return tuple(out)
