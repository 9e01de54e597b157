"""The registry entries (reference/registry.py) of Kyra and its two baselines (Cao & Singh,
INFOCOM 2004)."""

from __future__ import annotations

from pubsub_spec.reference.kyra.config import KyraCodec
from pubsub_spec.reference.kyra.mcgroups import McGroupsSystem
from pubsub_spec.reference.kyra.messages import KYRA_TYPES, MCGROUPS_TYPES, SIENA_TYPES
from pubsub_spec.reference.kyra.siena import SienaSystem
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.sim.system import LENIENT, MULTI_SCHEMA, STRICT, SystemInfo, Variant

PAPER = (
    "Cao & Singh, Efficient Event Routing in Content-based Pub-Sub Service Networks, "
    "INFOCOM 2004"
)
# Static server networks (K-D13 phase 1): no churn.
_FEATURES = frozenset({STRICT, LENIENT, MULTI_SCHEMA})

KYRA = SystemInfo(
    name="kyra",
    paper=PAPER,
    summary="server cliques by complete-linkage HAC, local zones and T global tree zones, "
    "subscription movement to proxies, filter-based routing on MST routing trees",
    features=_FEATURES,
    message_types=KYRA_TYPES,
    variants=(Variant("kyra", "Kyra (§II.C, §III)", KyraSystem),),
    default_variant="kyra",
    config=KyraCodec("kyra"),
)
SIENA = SystemInfo(
    name="siena",
    paper=PAPER + "; Siena [7] as described in its §II.A",
    summary="filter-based routing: subscriptions broadcast over one acyclic server tree "
    "(latency MST), events forwarded toward matching directions",
    features=_FEATURES,
    message_types=SIENA_TYPES,
    variants=(Variant("siena", "filter-based routing (§II.A)", SienaSystem),),
    default_variant="siena",
    config=KyraCodec("siena"),
)
MCGROUPS = SystemInfo(
    name="mcgroups",
    paper=PAPER + "; multicast groups [25] as described in its §II.B",
    summary="offline Forgy K-Means event-space groups, one MST multicast tree per group",
    features=_FEATURES,
    message_types=MCGROUPS_TYPES,
    variants=(Variant("mcgroups", "multicast groups (§II.B)", McGroupsSystem),),
    default_variant="mcgroups",
    config=KyraCodec("mcgroups"),
)
INFOS: tuple[SystemInfo, ...] = (KYRA, SIENA, MCGROUPS)
