"""System configuration: the thesis' simulation parameters (Table 4.1, §4.1.1) and knobs.

Every field has the thesis value where the thesis gives one; the others are decisions recorded
in docs/core-protocol.md ("Parameters").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

DeliveryStrategy = Literal["unicast", "multicast", "lbdd"]
DELIVERY_STRATEGIES: tuple[DeliveryStrategy, ...] = ("unicast", "multicast", "lbdd")


@dataclass(frozen=True)
class SystemConfig:
    # Pastry (thesis §4.1.1): 160-bit ids, routing base 2^4, leaf set of 16.
    id_bits: int = 160
    digit_bits: int = 4
    leaf_set_size: int = 16
    # Network model: mean RTT of the King data set, 180 ms (thesis §4.1.1, Table 4.5).
    mean_rtt_ms: float = 180.0
    # Per-peer random capacity rand(10, 30) (thesis Table 4.1, node_capacity).
    capacity_min: int = 10
    capacity_max: int = 30
    # Growth-only 2d-tree never deeper than this (DESIGN.md; overflow is counted).
    max_depth: int = 20
    # RndLeafProbe random level in [0, sub_probe_max_level] (thesis §3.3, Program 3.2).
    sub_probe_max_level: int = 10
    # RndRegionProbe minlevel / maxlevel / p (thesis §3.4.1, Program 3.3; maxlevel 10, §4.3.3).
    pub_min_level: int = 2
    pub_max_level: int = 10
    pub_p: float = 0.5
    # Range widening r against endless splits (thesis §3.3), per qualified attribute.
    widening: tuple[tuple[str, float], ...] = ()
    # Cut-off line y = x + c per qualified attribute (thesis §3.5); h drawn in [h_lo*c, c).
    cutoff: tuple[tuple[str, float], ...] = ()
    h_low_fraction: float = 0.5
    # A fixed h per qualified attribute instead of the subscriber's random choice (for traces
    # that aim events at segment boundaries).
    cutoff_h: tuple[tuple[str, float], ...] = ()
    # Delivery of probes and of events (thesis §3.4.2, §3.4.3; LBDD seed 003).
    delivery: DeliveryStrategy = "unicast"
    # Replication of stored subscriptions to k leaf-set neighbours (thesis §3.6).
    replication: int = 2
    # LeafNodeUpdateMessage faults (thesis §3.2.2 "may be sent by UDP"): extra delay, loss.
    leaf_update_delay_ms: float = 0.0
    leaf_update_loss: float = 0.0
    # Local coarsening of LeafNodeRoutingTable records (thesis §3.2.2): max records kept.
    lnrt_max_records: int | None = None
    # A joining peer is not ready for this long (thesis §3.6).
    join_ready_ms: float = 500.0
    # Mean inter-arrival times (thesis Table 4.1: t_sub 2000 ms, t_pub 1000 ms).
    sub_interarrival_ms: float = 2000.0
    pub_interarrival_ms: float = 1000.0
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    def widening_of(self, qattr: str) -> float:
        return dict(self.widening).get(qattr, 0.0)

    def cutoff_of(self, qattr: str) -> float | None:
        return dict(self.cutoff).get(qattr)
