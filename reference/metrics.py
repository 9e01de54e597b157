"""Counters of a run: per message type and per peer (messages, bytes, hops), latencies, and
the tree's own figures (splits, overflow, false positives) (thesis §4.3)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from reference.messages import MessageType


@dataclass
class Metrics:
    messages: Counter[MessageType] = field(default_factory=Counter)
    bytes: Counter[MessageType] = field(default_factory=Counter)
    sends: Counter[MessageType] = field(default_factory=Counter)
    peer_bytes: Counter[tuple[str, MessageType]] = field(default_factory=Counter)
    peer_messages: Counter[tuple[str, MessageType]] = field(default_factory=Counter)
    delivery_latency_ms: list[float] = field(default_factory=list)
    install_latency_ms: list[float] = field(default_factory=list)
    splits: int = 0
    overflow: int = 0
    max_depth: int = 0
    false_positives: int = 0
    dedup_discards: int = 0
    jump_backs: int = 0
    leaf_updates_lost: int = 0
    points_lost: int = 0
    held: int = 0

    def hop(self, peer: str, kind: MessageType, size: int) -> None:
        """One network hop sent by `peer` (bytes are counted at each hop's sender)."""
        self.messages[kind] += 1
        self.bytes[kind] += size
        self.peer_bytes[(peer, kind)] += size
        self.peer_messages[(peer, kind)] += 1

    def hops_per_send(self, kind: MessageType) -> float:
        return self.messages[kind] / self.sends[kind] if self.sends[kind] else 0.0
