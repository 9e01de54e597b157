"""The thesis system's registry entry (reference/registry.py): features, message types,
delivery strategies as conformance built-ins, and the codec of its trace-header section."""

from __future__ import annotations

from dataclasses import replace

from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.system import FEATURES, OPTIONAL_FEATURES, SystemInfo, Variant
from pubsub_spec.reference.thesis.config import (
    DELIVERY_STRATEGIES,
    DeliveryStrategy,
    ThesisCodec,
    config_of,
    with_config,
)
from pubsub_spec.reference.thesis.messages import MESSAGE_TYPES
from pubsub_spec.reference.thesis.system import TwoDTreeSystem

# The built-in names of the delivery strategies (kept from the first conformance release).
BUILTIN_OF: dict[DeliveryStrategy, str] = {
    "unicast": "reference",
    "multicast": "reference-multicast",
    "lbdd": "reference-lbdd",
}
_DOC: dict[DeliveryStrategy, str] = {
    "unicast": "probes and deliveries point to point (§3.4.1, §3.4.3)",
    "multicast": "prefix-grouped application-layer multicast (§3.4.2, Program 3.4)",
    "lbdd": "an LBDD dissemination tree among the matched subscribers (LBDD)",
}


def with_delivery(trace: Trace, delivery: DeliveryStrategy) -> Trace:
    return with_config(trace, replace(config_of(trace), delivery=delivery))


def _make(delivery: DeliveryStrategy) -> Variant:
    def make(trace: Trace) -> TwoDTreeSystem:
        return TwoDTreeSystem.for_trace(with_delivery(trace, delivery))

    return Variant(BUILTIN_OF[delivery], _DOC[delivery], make)


THESIS = SystemInfo(
    name="thesis",
    paper="Li, UBC MSc thesis 2008; LBDD delivery from Li Kai et al., J. Southeast Univ. 2014",
    summary="a distributed 2d-tree over Pastry: RndLeafProbe, RndRegionProbe, "
    "LeafNodeRoutingTable, cut-off remapping, leaf-set replication",
    features=frozenset(FEATURES) - OPTIONAL_FEATURES,  # advertisements are no-ops to it
    message_types=MESSAGE_TYPES,
    variants=tuple(_make(d) for d in DELIVERY_STRATEGIES),
    default_variant="reference",
    config=ThesisCodec(),
)
