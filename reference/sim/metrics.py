"""Counters of a run that every system keeps: per message type and per peer (messages, bytes,
hops) and the latencies of installation and delivery (thesis §4.2.1, §4.3). Message types are
the names a system declares (`reference.sim.system.MessageType`); a system's own figures (the
2d-tree's splits, Kyra's matching operations, ...) live in a subclass of its own."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class MessageType:
    """A message type a system declares, with the source of its definition and of its size."""

    name: str
    doc: str


@dataclass
class Metrics:
    messages: Counter[str] = field(default_factory=Counter)
    bytes: Counter[str] = field(default_factory=Counter)
    sends: Counter[str] = field(default_factory=Counter)
    peer_bytes: Counter[tuple[str, str]] = field(default_factory=Counter)
    peer_messages: Counter[tuple[str, str]] = field(default_factory=Counter)
    delivery_latency_ms: list[float] = field(default_factory=list)
    install_latency_ms: list[float] = field(default_factory=list)

    def hop(self, peer: str, kind: str, size: int) -> None:
        """One network hop sent by `peer` (bytes are counted at each hop's sender)."""
        self.messages[kind] += 1
        self.bytes[kind] += size
        key = (peer, kind)
        self.peer_bytes[key] += size
        self.peer_messages[key] += 1

    def hops(self, senders: Sequence[str], kind: str, size: int) -> None:
        """`hop(peer, kind, size)` for each sender of a path, in one call."""
        n = len(senders)
        if not n:
            return
        self.messages[kind] += n
        self.bytes[kind] += size * n
        peer_bytes, peer_messages = self.peer_bytes, self.peer_messages
        for peer in senders:
            key = (peer, kind)
            peer_bytes[key] += size
            peer_messages[key] += 1

    def hops_per_send(self, kind: str) -> float:
        return self.messages[kind] / self.sends[kind] if self.sends[kind] else 0.0
