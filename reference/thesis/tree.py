"""The distributed 2d-tree's nodes (thesis §3.2.1–3.2.2, Program 3.1).

A tree node lives on the peer numerically closest to hash(identifier). A leaf stores
subscription points; when its load exceeds its capacity it splits into two children and hands
its points to them (TransferSubMessage). The tree only grows (no merge, thesis §3.2.2) and
never grows past `max_depth`: a leaf at that depth keeps its points and the overflow is
counted (docs/design.md#core).

Race fix (erratum E4, decision D-SPLIT in docs/thesis.md): between sending its
TransferSubs and receiving both children's creation confirmations a node is `splitting`: it
holds arriving probes and inserts and replays them once the children exist, and only then sends
its LeafNodeUpdateMessage upward. TransferSub carries the node's set of processed events, which
the children inherit for probe dedup (thesis §3.4.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pubsub_spec.reference.common.model import Subscription
from pubsub_spec.reference.thesis.cutoff import Segment
from pubsub_spec.reference.thesis.lnrt import LeafNodeRoutingTable


def identifier(qattr: str, bits: str) -> str:
    """The tree node's identifier: attribute name followed by its bit string (thesis §3.2.1).
    A ':' separates the two so that attribute names ending in digits stay unambiguous."""
    return f"{qattr}:{bits}"


@dataclass(frozen=True)
class StoredPoint:
    """One stored point of a subscription: its (widened, possibly remapped) segment on the base
    attribute (thesis §3.3, §3.5) and the subscription as stored (SubObject, §3.3.1)."""

    sub: Subscription
    base: str
    segment: Segment
    path: str
    seq: int

    @property
    def key(self) -> tuple[str, int]:
        return (self.sub.id, self.segment.index)


@dataclass(slots=True)  # no instance dict: read per probe
class TreeNode:
    qattr: str
    bits: str
    points: dict[tuple[str, int], StoredPoint] = field(default_factory=dict)
    lnrt: LeafNodeRoutingTable | None = None
    seen: set[str] = field(default_factory=set)
    splitting: int = 0
    held: list[object] = field(default_factory=list)

    @property
    def is_leaf(self) -> bool:
        return self.lnrt is None

    @property
    def depth(self) -> int:
        return len(self.bits)

    @property
    def ident(self) -> str:
        return identifier(self.qattr, self.bits)

    def split_points(self) -> tuple[dict[tuple[str, int], StoredPoint], ...]:
        """Divide the points between the two halves (Program 3.1, lines 42-44)."""
        halves: tuple[dict[tuple[str, int], StoredPoint], ...] = ({}, {})
        d = self.depth
        for k, p in self.points.items():
            halves[int(p.path[d])][k] = p
        return halves
