"""Tam's registry entries (reference/registry.py): `tam` (over Scribe, §3.3) and `tam-basic`
(the home-node scheme of §3.2), each with one conformance built-in of the same name, their
message types and the codec of their trace-header section. Features (decision T10): strict
matching, several schemas, churn (Scribe repair and key handover, T12); not lenient matching:
a partial publication misses the subscribers of an index it does not cover (§3.6)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.system import CHURN, MULTI_SCHEMA, STRICT, SystemInfo, Variant
from pubsub_spec.reference.tam.config import (
    BASIC_SECTION,
    SECTION,
    IndexPolicy,
    TamCodec,
    config_of,
)
from pubsub_spec.reference.tam.messages import BASIC_TYPES, SCRIBE_TYPES
from pubsub_spec.reference.tam.system import TamBasicSystem, TamSystem

FEATURES = frozenset({STRICT, MULTI_SCHEMA, CHURN})
PAPER = "Tam, Azimi, Jacobsen, DBISP2P 2003, LNCS 2944"


def make_tam(trace: Trace) -> TamSystem:
    return TamSystem.for_trace(trace)


def _with_policy(policy: IndexPolicy) -> Callable[[Trace], TamSystem]:
    """`tam` with the index-selection policy the paper compares (§3.3, §4; decision T9): the
    trace's `tam` section, if any, with `index_policy` replaced."""

    def make(trace: Trace) -> TamSystem:
        config = replace(config_of(trace, SECTION), index_policy=policy)
        return TamSystem.for_trace(trace.with_section(SECTION, config))

    return make


def make_tam_basic(trace: Trace) -> TamBasicSystem:
    return TamBasicSystem.for_trace(trace)


TAM = SystemInfo(
    name=SECTION,
    paper=PAPER,
    summary="schema indices hashed to keys, one Scribe multicast tree per key; exact matching "
    "and false-positive filtering at the subscribers",
    features=FEATURES,
    message_types=SCRIBE_TYPES,
    variants=(
        Variant("tam", "index keys as Scribe groups over Pastry (§3.3)", make_tam),
        Variant(
            "tam-fewest-keys",
            "tam, each subscription on the index that needs the fewest keys",
            _with_policy("fewest-keys"),
        ),
        Variant("tam-all", "tam, each subscription on every index it covers", _with_policy("all")),
    ),
    default_variant="tam",
    config=TamCodec(SECTION),
)

TAM_BASIC = SystemInfo(
    name=BASIC_SECTION,
    paper=PAPER,
    summary="schema indices hashed to keys; subscriptions stored and matched at the key's "
    "home node, which notifies the subscribers",
    features=FEATURES,
    message_types=BASIC_TYPES,
    variants=(Variant("tam-basic", "the basic home-node scheme (§3.2)", make_tam_basic),),
    default_variant="tam-basic",
    config=TamCodec(BASIC_SECTION),
)
