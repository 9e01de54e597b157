"""Protocol observations (conformance/OBSERVATIONS.md): what a system reports of how it
disseminates, beside what it delivers. A built-in system reports them from the code paths that
already write its event log (`System.observe`), an outside implementation over the process
protocol (version 2); the protocol rules (conformance/protocol_rules/) judge both the same way.

Two kinds:
- `send`: one message of a type the system declares (`SystemInfo.message_types`), from one node
  to another, with the event or subscription it carries and the fields a rule needs (target
  area, hop count, bucket, tree id, CIV, index key, ...), reported when it is sent;
- `state`: a change of one node's protocol state that the system's TLA+ model abstracts (a zone
  split, a point stored or removed, a LeafNodeRoutingTable update, a parent chosen, ...).

Reporting is off unless an observer is set: a run without one is unchanged, bit for bit (the
event-log hash), and pays one `is None` test per report site."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

SEND: Literal["send"] = "send"
STATE: Literal["state"] = "state"
Kind = Literal["send", "state"]

# A field's value: JSON scalars and lists of them (nested lists allowed: an area is
# [[lo, hi], ...]). Limits on sizes are the process protocol's (conformance/OBSERVATIONS.md).
Value = Any


@dataclass(frozen=True, slots=True)
class Observation:
    kind: Kind
    name: str  # the declared message type (send) or the state change (state)
    node: str  # the sender (send) or the node whose state changed (state)
    to: str | None = None  # the receiver (send only)
    event: str | None = None  # the event it carries or concerns
    sub: str | None = None  # the subscription it carries or concerns
    fields: Mapping[str, Value] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The observation's wire fields (conformance/OBSERVATIONS.md), absent ones left out."""
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "node": self.node}
        if self.to is not None:
            out["to"] = self.to
        if self.event is not None:
            out["event"] = self.event
        if self.sub is not None:
            out["sub"] = self.sub
        if self.fields:
            out["fields"] = dict(self.fields)
        return out


Observer = Callable[[Observation], None]


def send(
    name: str,
    node: str,
    to: str,
    *,
    event: str | None = None,
    sub: str | None = None,
    **fields: Value,
) -> Observation:
    """A `send` observation."""
    return Observation(SEND, name, node, to, event, sub, fields)


def state(
    name: str,
    node: str,
    *,
    event: str | None = None,
    sub: str | None = None,
    **fields: Value,
) -> Observation:
    """A `state` observation."""
    return Observation(STATE, name, node, None, event, sub, fields)
