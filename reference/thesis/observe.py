"""The thesis system's protocol observations (conformance/OBSERVATIONS.md, "thesis and lbdd",
format version 1), built from its messages and tree nodes.

Only called where `system.observer is not None` (reference/thesis/system.py tests it first),
so a run without an observer never reaches this module. Nothing here changes the system, its
generator or its event log: it reads messages and tree nodes and returns `Observation`s.
"""

from __future__ import annotations

from pubsub_spec.reference.common.model import Event
from pubsub_spec.reference.sim.observe import Observation, Value, send, state
from pubsub_spec.reference.thesis.config import ThesisConfig
from pubsub_spec.reference.thesis.messages import (
    TYPE_OF,
    EventDelivery,
    InsertSub,
    LeafUpdate,
    Message,
    ProbePub,
    ProbePubMulticast,
    ProbeSub,
    TransferSub,
)
from pubsub_spec.reference.thesis.tree import StoredPoint, TreeNode


def point_fields(p: StoredPoint) -> dict[str, Value]:
    """A stored point: its segment as the logic-space point (lo, hi) (thesis §3.2, §3.5)."""
    seg = p.segment
    return {
        "point": [seg.lo, seg.hi],
        "segment": seg.index,
        # a single point is segment 0, closed; a remapped range's are not (thesis §3.5)
        "remapped": not (seg.index == 0 and seg.closed),
    }


# the delivery strategy as the observations name it (config "grouped" is prefix multicast)
STRATEGY = {"unicast": "unicast", "grouped": "multicast", "lbdd": "lbdd"}


def message(src: str, to: str, msg: Message, hops: int, strategy: str) -> Observation:
    """The `send` observation of one message from `src` to `to` over `hops` overlay hops;
    `strategy` the system's delivery strategy (`ThesisConfig.event_delivery`)."""
    kind = TYPE_OF[type(msg)]
    if isinstance(msg, ProbePub):
        return send(kind, src, to, event=msg.event.id, tree=msg.qattr, bits=msg.target, hops=hops)
    if isinstance(msg, ProbePubMulticast):
        dests = [[q, b] for q, b in msg.dests]
        return send(kind, src, to, event=msg.event.id, dests=dests, hops=hops)
    if isinstance(msg, ProbeSub | InsertSub):
        p = msg.point
        extra: dict[str, Value] = {}
        if isinstance(msg, ProbeSub):
            extra = {"remove": msg.remove, "found": msg.found}
        return send(
            kind,
            src,
            to,
            sub=p.sub.id,
            tree=f"{p.sub.schema}/{p.base}",
            bits=msg.target,
            hops=hops,
            **point_fields(p),
            **extra,
        )
    if isinstance(msg, LeafUpdate):
        return send(kind, src, to, tree=msg.qattr, bits=msg.target, split=msg.split, hops=hops)
    if isinstance(msg, TransferSub):
        return send(
            kind,
            src,
            to,
            tree=msg.qattr,
            bits=msg.target,
            created=msg.created,
            points=len(msg.points),
            hops=hops,
        )
    return delivery(src, to, msg, hops, STRATEGY[strategy])


# the last EventDelivery described: an LBDD relay sends one message to each of its children
# (one entry: the message is held, so `is` cannot match another object)
_last: list[tuple[EventDelivery, list[list[Value]], list[str]]] = []


def delivery(src: str, to: str, msg: EventDelivery, hops: int, strategy: str) -> Observation:
    """An EventDelivery copy: the subscribers it carries (`targets`, with their subscription
    ids), its tree's root (`origin`) and, for LBDD, the tree's members (D-OBS-LBDD)."""
    if _last and _last[0][0] is msg:
        targets, members = _last[0][1], _last[0][2]
    else:
        targets = [[s, list(ids)] for s, ids in msg.targets]
        members = sorted({s for s, _ in msg.targets if s != msg.origin})
        _last[:] = [(msg, targets, members)]
    extra: dict[str, Value] = {"members": members} if strategy == "lbdd" else {}
    return send(
        "EventDelivery",
        src,
        to,
        event=msg.event.id,
        strategy=strategy,
        origin=msg.origin,
        tree_id=msg.leaf,
        **extra,
        targets=targets,
        hops=hops,
    )


def matched(
    peer: str,
    node: TreeNode,
    event: Event,
    targets: tuple[tuple[str, tuple[str, ...]], ...],
    config: ThesisConfig,
) -> Observation:
    """The leaf `node` matched the event and delivers it to `targets` (thesis §3.4.1, §3.4.3):
    the root of its delivery tree (`tree_id` = the leaf's identifier)."""
    return state(
        "match",
        peer,
        event=event.id,
        tree=node.qattr,
        bits=node.bits,
        tree_id=node.ident,
        strategy=STRATEGY[config.event_delivery],
        targets=[[s, list(ids)] for s, ids in targets],
    )


def hosted(peer: str, node: TreeNode) -> Observation:
    """A tree node now hosted by `peer` (a new child, or handed over on churn, thesis §3.6)."""
    return state("host", peer, tree=node.qattr, bits=node.bits)


def split(peer: str, node: TreeNode) -> Observation:
    """The leaf `node` split into its two children (thesis §3.2.2, Program 3.1)."""
    b = node.bits
    return state("split", peer, tree=node.qattr, bits=b, children=[b + "0", b + "1"])


def stored(peer: str, node: TreeNode, p: StoredPoint, via: str) -> Observation:
    """A point stored at the leaf `node` (via an InsertSub, thesis §3.3, or a TransferSub
    handing it to a new child, §3.2.2)."""
    return state(
        "store", peer, sub=p.sub.id, tree=node.qattr, bits=node.bits, via=via, **point_fields(p)
    )


def removed(peer: str, node: TreeNode, p: StoredPoint, lost: bool) -> Observation:
    """A point removed from `node` (unsubscription, thesis §3.3.1) or lost with every replica
    (§3.6)."""
    return state(
        "remove",
        peer,
        sub=p.sub.id,
        tree=node.qattr,
        bits=node.bits,
        segment=p.segment.index,
        lost=lost,
    )


def lnrt(peer: str, node: TreeNode, split_bits: str) -> Observation:
    """The node's LeafNodeRoutingTable after an update (thesis §3.2.2, Program 3.1 line 63;
    `split` empty for a table rebuilt after a failure, §3.6)."""
    records = sorted(node.lnrt) if node.lnrt is not None else []
    return state("lnrt", peer, tree=node.qattr, bits=node.bits, split=split_bits, records=records)
