"""The brute-force oracle: the deliveries a correct system makes on a sequential trace.

docs/design.md#active: a subscription is active for a publish if its subscribe came before and no
unsubscribe came between; a subscription ends with its subscriber's leave or failure (decision
D-CHURN in docs/thesis.md). Delivery = (event id, subscription id).
"""

from __future__ import annotations

from dataclasses import dataclass

from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Subscription
from pubsub_spec.reference.common.ops import Fail, Leave, Publish, Subscribe, Trace, Unsubscribe


@dataclass(frozen=True, order=True)
class Delivery:
    event_id: str
    sub_id: str


def expected_deliveries(trace: Trace) -> list[Delivery]:
    """Every (event, subscription) pair that must be delivered, each exactly once, sorted."""
    active: dict[str, Subscription] = {}
    out: list[Delivery] = []
    for op in trace.ops:
        if isinstance(op, Subscribe):
            active[op.sub.id] = op.sub
        elif isinstance(op, Unsubscribe):
            active.pop(op.sub_id, None)
        elif isinstance(op, Leave | Fail):
            gone = {op.node} if isinstance(op, Leave) else set(op.nodes)
            for sid in [s for s, sub in active.items() if sub.subscriber in gone]:
                del active[sid]
        elif isinstance(op, Publish):
            for sub in active.values():
                if matches(sub, op.event, trace.matching):
                    out.append(Delivery(op.event.id, sub.id))
    out.sort()
    return out
