"""The seven message types of thesis §4.2.1 and a byte-size model.

Replies are counted under the type they answer (decision D-MSG): the leaf's answer to a
ProbeSubMessage is a ProbeSub, a child's creation confirmation is a TransferSub.
The sizes follow the shared byte model of reference/sim/sizes.py (D-MSG: a 48-byte header
plus the payload; the thesis measured Java serialization, §4.3.1), whose parts this module
re-exports for the thesis' fast engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pubsub_spec.reference.common.model import Event
from pubsub_spec.reference.sim.metrics import MessageType as Declared
from pubsub_spec.reference.sim.sizes import HEADER as HEADER
from pubsub_spec.reference.sim.sizes import ID as ID
from pubsub_spec.reference.sim.sizes import event_size as event_size
from pubsub_spec.reference.sim.sizes import sub_size as sub_size
from pubsub_spec.reference.thesis.tree import StoredPoint

MessageType = Literal[
    "ProbeSub",
    "InsertSub",
    "LeafUpdate",
    "TransferSub",
    "ProbePubMulticast",
    "ProbePub",
    "EventDelivery",
]
# The seven types of §4.2.1, in the thesis' order, as the system declares them to the metrics.
MESSAGE_TYPES: tuple[Declared, ...] = (
    Declared("ProbeSub", "RndLeafProbe and the leaf's answer (§3.3, Program 3.2)"),
    Declared("InsertSub", "a point stored at its leaf (§3.3)"),
    Declared("LeafUpdate", "LeafNodeUpdateMessage towards the root (§3.2.2)"),
    Declared("TransferSub", "points moved to a new child, and its confirmation (§3.2.2)"),
    Declared("ProbePubMulticast", "prefix-grouped multicast of probes (§3.4.2, Program 3.4)"),
    Declared("ProbePub", "RndRegionProbe (§3.4.1, Program 3.3)"),
    Declared("EventDelivery", "matched subscriptions delivered (§3.4.3; or by LBDD trees)"),
)


def point_size(p: StoredPoint) -> int:
    return sub_size(p.sub) + len(p.base) + 24


@dataclass(frozen=True, slots=True)
class ProbeSub:
    """Probe for the home leaf of a subscription point (Program 3.2); remove=True for
    unsubscription (§3.3.1); found=True is the leaf's answer to the subscriber."""

    point: StoredPoint
    target: str
    remove: bool = False
    found: bool = False


@dataclass(frozen=True, slots=True)
class InsertSub:
    point: StoredPoint
    target: str


@dataclass(frozen=True, slots=True)
class LeafUpdate:
    """LeafNodeUpdateMessage: `split` has split into split+"0", split+"1" (Program 3.1)."""

    qattr: str
    split: str
    target: str


@dataclass(frozen=True, slots=True)
class TransferSub:
    """Points (and processed events) handed to a new child; created=True is its confirmation."""

    qattr: str
    target: str
    points: tuple[StoredPoint, ...] = ()
    seen: frozenset[str] = frozenset()
    created: bool = False


@dataclass(frozen=True, slots=True)
class ProbePub:
    event: Event
    qattr: str
    target: str


@dataclass(frozen=True, slots=True)
class ProbePubMulticast:
    """One multicast hop carrying destination tree nodes (qattr, bits) (Program 3.4)."""

    event: Event
    dests: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class EventDelivery:
    """The event and, per subscriber peer, the subscription ids it is delivered for."""

    event: Event
    targets: tuple[tuple[str, tuple[str, ...]], ...]
    published_at: float
    origin: str = ""
    # the identifier of the leaf that matched (thesis §3.2.1), set only while observations
    # are reported (reference/thesis/observe.py); not part of the byte-size model
    leaf: str = ""


Message = (
    ProbeSub | InsertSub | LeafUpdate | TransferSub | ProbePub | ProbePubMulticast | EventDelivery
)

TYPE_OF: dict[type, MessageType] = {
    ProbeSub: "ProbeSub",
    InsertSub: "InsertSub",
    LeafUpdate: "LeafUpdate",
    TransferSub: "TransferSub",
    ProbePub: "ProbePub",
    ProbePubMulticast: "ProbePubMulticast",
    EventDelivery: "EventDelivery",
}


def size_of(m: Message) -> int:
    if isinstance(m, ProbeSub | InsertSub):
        return HEADER + point_size(m.point) + len(m.target)
    if isinstance(m, LeafUpdate):
        return HEADER + len(m.qattr) + 2 * len(m.split) + 32
    if isinstance(m, TransferSub):
        return (
            HEADER
            + len(m.qattr)
            + len(m.target)
            + sum(point_size(p) for p in m.points)
            + ID * len(m.seen)
        )
    if isinstance(m, ProbePub):
        return HEADER + event_size(m.event) + len(m.qattr) + len(m.target)
    if isinstance(m, ProbePubMulticast):
        return HEADER + event_size(m.event) + sum(len(q) + len(b) + ID for q, b in m.dests)
    return HEADER + event_size(m.event) + sum(ID + sum(len(s) for s in ss) for _, ss in m.targets)
