"""Message types of Kyra and its baselines with a byte-size model (Kyra's own messages are lost
with §III.B-§IV; decision K-D11 names them). Sizes: the shared byte model of
reference/sim/sizes.py (D-MSG: a 48-byte header plus the payload)."""

from __future__ import annotations

from dataclasses import dataclass

from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.kyra.filters import Filter
from pubsub_spec.reference.sim.metrics import MessageType
from pubsub_spec.reference.sim.observe import Observation, send
from pubsub_spec.reference.sim.sizes import HEADER, ID, event_size, sub_size

KYRA_TYPES: tuple[MessageType, ...] = (
    MessageType("SubMove", "original server -> proxy in its clique (§III, subscription movement)"),
    MessageType("SubPropagate", "a proxy's entry broadcast on a routing tree (§III, §II.A)"),
    MessageType("UnsubMove", "original server -> proxies: remove (K-D11)"),
    MessageType("UnsubPropagate", "removal of a tree entry, broadcast on the tree (K-D11)"),
    MessageType("EventToZone", "publisher -> clique server whose zone covers the event (§III)"),
    MessageType("EventRoute", "an event forwarded on its covering tree (§III, §II.A)"),
    MessageType("Notify", "proxy -> original server: matched subscription ids (K-D5)"),
)
SIENA_TYPES: tuple[MessageType, ...] = (
    MessageType("SubPropagate", "a subscription broadcast over the server tree (§II.A)"),
    MessageType("UnsubPropagate", "its removal, broadcast likewise (K-D11)"),
    MessageType("EventRoute", "an event forwarded toward matching neighbours (§II.A)"),
)
MCGROUPS_TYPES: tuple[MessageType, ...] = (
    MessageType("GroupJoin", "a server grafted onto a group's tree by a new subscription (K-D10)"),
    MessageType("EventToGroup", "a non-member publisher -> closest group member (K-D10)"),
    MessageType("EventMulticast", "an event multicast on its group's tree (§II.B)"),
)


def filter_size(f: Filter) -> int:
    return sub_size(f.sub) + ID + 16 * (len(f.extent) + sum(len(z.dims) for z in f.zones))


@dataclass(frozen=True)
class SubMove:
    sub: Subscription
    remove: bool = False


@dataclass(frozen=True)
class SubPropagate:
    """An entry added (or with remove=True removed) on tree `tree` (Siena: tree "")."""

    tree: str
    filter: Filter
    remove: bool = False


@dataclass(frozen=True)
class EventToZone:
    event: Event


@dataclass(frozen=True)
class EventRoute:
    tree: str
    event: Event


@dataclass(frozen=True)
class Notify:
    event: Event
    sub_ids: tuple[str, ...]


@dataclass(frozen=True)
class GroupJoin:
    schema: str
    group: int
    server: str
    sub_id: str


@dataclass(frozen=True)
class EventToGroup:
    event: Event
    group: int


@dataclass(frozen=True)
class EventMulticast:
    event: Event
    group: int


Message = (
    SubMove
    | SubPropagate
    | EventToZone
    | EventRoute
    | Notify
    | GroupJoin
    | EventToGroup
    | EventMulticast
)


def type_of(m: Message) -> str:
    if isinstance(m, SubMove):
        return "UnsubMove" if m.remove else "SubMove"
    if isinstance(m, SubPropagate):
        return "UnsubPropagate" if m.remove else "SubPropagate"
    return type(m).__name__


def size_of(m: Message) -> int:
    if isinstance(m, SubMove):
        return HEADER + (ID + len(m.sub.id) if m.remove else sub_size(m.sub))
    if isinstance(m, SubPropagate):
        f = m.filter
        body = ID + len(f.sub.id) + len(f.origin) if m.remove else filter_size(f)
        return HEADER + len(m.tree) + body
    if isinstance(m, EventToZone):
        return HEADER + event_size(m.event)
    if isinstance(m, EventRoute):
        return HEADER + len(m.tree) + event_size(m.event)
    if isinstance(m, Notify):
        return HEADER + event_size(m.event) + sum(ID + len(s) for s in m.sub_ids)
    if isinstance(m, GroupJoin):
        return HEADER + len(m.schema) + 4 + ID + len(m.sub_id)
    return HEADER + 4 + event_size(m.event)


def observation_of(kind: str, src: str, dst: str, m: Message) -> Observation:
    """The `send` observation of one message (conformance/OBSERVATIONS.md, section "kyra,
    siena, mcgroups"): its declared type `kind`, sender, receiver, the event or subscription
    it carries and the fields the rules read (tree, proxy, group, ...)."""
    if isinstance(m, SubMove):
        return send(kind, src, dst, sub=m.sub.id, schema=m.sub.schema)
    if isinstance(m, SubPropagate):
        f = m.filter
        if m.tree:  # Kyra: the entry s ∩ Z_proxy ∩ Y_tree (K-D4)
            return send(kind, src, dst, sub=f.sub.id, tree=m.tree, proxy=f.origin)
        return send(kind, src, dst, sub=f.sub.id, origin=f.origin)  # Siena
    if isinstance(m, EventToZone):
        return send(kind, src, dst, event=m.event.id)
    if isinstance(m, EventRoute):
        if m.tree:
            return send(kind, src, dst, event=m.event.id, tree=m.tree)
        return send(kind, src, dst, event=m.event.id)
    if isinstance(m, Notify):
        return send(kind, src, dst, event=m.event.id, subs=list(m.sub_ids))
    if isinstance(m, GroupJoin):
        return send(kind, src, dst, sub=m.sub_id, schema=m.schema, group=m.group, server=m.server)
    return send(kind, src, dst, event=m.event.id, group=m.group)
