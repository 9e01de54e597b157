"""Tam's message types and their sizes (Tam, Azimi, Jacobsen, DBISP2P 2003, §3.2-§3.3, §5:
"the metric is the number of messages exchanged"; decision T14: every overlay hop counts, a
delivery at the peer itself is free). Scribe's four types are defined in
reference/overlay/scribe.py; the basic home-node scheme (§3.2) has its own. Sizes: the shared
byte model of reference/sim/sizes.py (D-MSG: a 48-byte header plus the payload)."""

from __future__ import annotations

from dataclasses import dataclass

from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.sim.metrics import MessageType as Declared
from pubsub_spec.reference.sim.sizes import HEADER, ID, event_size, sub_size

SCRIBE_TYPES: tuple[Declared, ...] = (
    Declared("ScribeJoin", "JOIN toward a key, absorbed at the first tree peer (§3.3; Scribe)"),
    Declared("ScribeLeave", "pruning of a childless non-member forwarder (Scribe §2.2.2)"),
    Declared("ScribePublish", "a publication routed to its key's root (§3.3; T11)"),
    Declared("ScribeMulticast", "a publication sent down one tree edge (§3.3)"),
)
BASIC_TYPES: tuple[Declared, ...] = (
    Declared("TamSubscribe", "a subscription routed to its key's home node (§3.2)"),
    Declared("TamUnsubscribe", "its removal at the home node (§3.2)"),
    Declared("TamPublish", "a publication routed to the home of one index key (§3.2)"),
    Declared("TamNotify", "the home node notifies a fully matching subscriber (§3.2)"),
    Declared("TamTransfer", "stored subscriptions handed to a key's new home (Pastry; T12)"),
)


@dataclass(frozen=True)
class TamSubscribe:
    key: int
    sub: Subscription
    seq: int


@dataclass(frozen=True)
class TamUnsubscribe:
    key: int
    sub_id: str


@dataclass(frozen=True)
class TamPublish:
    key: int
    event: Event


@dataclass(frozen=True)
class TamNotify:
    event: Event
    sub_ids: tuple[str, ...]


@dataclass(frozen=True)
class TamTransfer:
    subs: tuple[Subscription, ...]


BasicMessage = TamSubscribe | TamUnsubscribe | TamPublish | TamNotify | TamTransfer

BASIC_NAMES: dict[type, str] = {
    TamSubscribe: "TamSubscribe",
    TamUnsubscribe: "TamUnsubscribe",
    TamPublish: "TamPublish",
    TamNotify: "TamNotify",
    TamTransfer: "TamTransfer",
}


def basic_size(m: BasicMessage) -> int:
    if isinstance(m, TamSubscribe):
        return HEADER + ID + sub_size(m.sub)
    if isinstance(m, TamUnsubscribe):
        return HEADER + ID + len(m.sub_id)
    if isinstance(m, TamPublish):
        return HEADER + ID + event_size(m.event)
    if isinstance(m, TamNotify):
        return HEADER + event_size(m.event) + sum(len(s) for s in m.sub_ids)
    return HEADER + sum(sub_size(s) for s in m.subs)
