"""The inter-broker messages (IMs) of OctopiA and of the TID baseline, with a byte-size model
(the shared byte model of reference/sim/sizes.py, D-MSG: a 48-byte header plus the payload; a
CIV costs ceil(m/8) bytes, a TID 20 bytes). Counted per type in `Metrics` (§VIII
"Inter-broker Messages")."""

from __future__ import annotations

from dataclasses import dataclass

from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.octopia.advertisements import Advertisement
from pubsub_spec.reference.octopia.scot import Broker
from pubsub_spec.reference.sim.metrics import MessageType
from pubsub_spec.reference.sim.sizes import HEADER, ID

OCTOPIA_MESSAGE_TYPES: tuple[MessageType, ...] = (
    MessageType("Advertisement", "scotAFP: host to its m-1 secondary neighbours (§V)"),
    MessageType("Unadvertisement", "the same region only (§V)"),
    MessageType("Subscription", "broadcast over the aLinks of the subscriber's cluster (§VI)"),
    MessageType("Unsubscription", "the same broadcast (§VI)"),
    MessageType("CIB_SET", "secondary to host: set CIB j, by SBP (§VI) or the AFP reply (§V)"),
    MessageType("Notification", "SNR/IDR copies, plain or CIV-N (§VII)"),
)
TID_MESSAGE_TYPES: tuple[MessageType, ...] = (
    MessageType("Advertisement", "flooded with a TID; duplicates discarded ([20], §II)"),
    MessageType("Unadvertisement", "flooded like the advertisement"),
    MessageType("Subscription", "along the reverse paths of bound TIDs ([20], §II)"),
    MessageType("Unsubscription", "along the same paths"),
    MessageType("Notification", "carries its advertisement's TID ([20], §II)"),
)


def _preds_size(n: int) -> int:
    return n * 24


@dataclass(frozen=True)
class Adv:
    adv: Advertisement
    host: Broker
    tid: str | None = None


@dataclass(frozen=True)
class Unadv:
    adv_id: str
    tid: str | None = None


@dataclass(frozen=True)
class Sub:
    sub: Subscription
    tid: str | None = None


@dataclass(frozen=True)
class Unsub:
    sub_id: str
    tid: str | None = None


@dataclass(frozen=True)
class CibSet:
    """CIB_SET(adv id, s) from cluster `from_ci` (§VI, A5); sub is None for the AFP reply."""

    adv_id: str
    from_ci: int
    sub: Subscription | None = None


@dataclass(frozen=True)
class Notification:
    """A notification copy; civ != 0 makes it a CIV-N (§VII-B); tid for the TID baseline."""

    event: Event
    civ: int = 0
    tid: str | None = None


Message = Adv | Unadv | Sub | Unsub | CibSet | Notification

TYPE_OF: dict[type, str] = {
    Adv: "Advertisement",
    Unadv: "Unadvertisement",
    Sub: "Subscription",
    Unsub: "Unsubscription",
    CibSet: "CIB_SET",
    Notification: "Notification",
}


def size_of(msg: Message, m: int) -> int:
    civ = (m + 7) // 8
    tid = ID if getattr(msg, "tid", None) is not None else 0
    if isinstance(msg, Adv):
        return HEADER + ID + _preds_size(len(msg.adv.predicates)) + civ + tid
    if isinstance(msg, Unadv | Unsub):
        return HEADER + ID + tid
    if isinstance(msg, Sub):
        return HEADER + ID + _preds_size(len(msg.sub.predicates)) + tid
    if isinstance(msg, CibSet):
        payload = _preds_size(len(msg.sub.predicates)) + ID if msg.sub is not None else 0
        return HEADER + ID + 1 + payload
    header_civ = civ if msg.civ else 0
    return HEADER + ID + 12 * len(msg.event.values) + header_civ + tid
