"""The registry entries of OctopiA (SNR, IDR) and of the TID baseline (reference/registry.py):
features, message types, one conformance built-in each, and their trace-header sections."""

from __future__ import annotations

from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.config import OctopiaCodec
from pubsub_spec.reference.octopia.messages import OCTOPIA_MESSAGE_TYPES, TID_MESSAGE_TYPES
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.octopia.tid import TidSystem
from pubsub_spec.reference.sim.system import (
    ADVERTISEMENTS,
    CHURN,
    LENIENT,
    MULTI_SCHEMA,
    STRICT,
    SystemInfo,
    Variant,
)

# Churn is client churn (A18): a leave/fail ends the client's subscriptions and advertisements;
# brokers never fail. Lenient: the PRT matching is matches(sub, ev, mode) itself and the
# implicit advertisements constrain only attributes every event carries (A7, O-IMPLICIT).
# Advertisements: the trace's advertise/unadvertise ops drive scotAFP (§V) and TID flooding
# ([20]) through `apply_other` (decision O-EXPLICIT, docs/octopia.md).
OCTOPIA_FEATURES = frozenset({STRICT, LENIENT, MULTI_SCHEMA, CHURN, ADVERTISEMENTS})
PAPER = "Shafique, OctopiA (arXiv:1604.06853)"


def _make_octopia(section: str, routing: str) -> Variant:
    def make(trace: Trace) -> OctopiaSystem:
        return OctopiaSystem.for_trace(trace, section, routing)

    doc = {
        "snr": "Static Notification Routing (§VII-A)",
        "idr": "Inter-cluster Dynamic Routing with the congestion element (§VII-B, Eq. 10)",
    }[routing]
    return Variant(section, doc, make)


def _make_tid(trace: Trace) -> TidSystem:
    return TidSystem.for_trace(trace, "tid")


OCTOPIA_SNR = SystemInfo(
    name="octopia-snr",
    paper=PAPER,
    summary="SCOT overlay, CIV, scotAFP, subscription subgrouping, SNR",
    features=OCTOPIA_FEATURES,
    message_types=OCTOPIA_MESSAGE_TYPES,
    variants=(_make_octopia("octopia-snr", "snr"),),
    default_variant="octopia-snr",
    config=OctopiaCodec("octopia-snr"),
)
OCTOPIA_IDR = SystemInfo(
    name="octopia-idr",
    paper=PAPER,
    summary="SCOT overlay, CIV, scotAFP, subscription subgrouping, IDR (CIV-N detours)",
    features=OCTOPIA_FEATURES,
    message_types=OCTOPIA_MESSAGE_TYPES,
    variants=(_make_octopia("octopia-idr", "idr"),),
    default_variant="octopia-idr",
    config=OctopiaCodec("octopia-idr"),
)
TID = SystemInfo(
    name="tid",
    paper="Li, Muthusamy, Jacobsen, Middleware '08 ([20] of OctopiA), as used in its §VIII",
    summary="PADRES TID routing: advertisement flooding with TIDs on the unclustered SCOT",
    features=OCTOPIA_FEATURES,
    message_types=TID_MESSAGE_TYPES,
    variants=(Variant("tid", "static TID-based routing ([20])", _make_tid),),
    default_variant="tid",
    config=OctopiaCodec("tid"),
)
INFOS = (OCTOPIA_SNR, OCTOPIA_IDR, TID)
