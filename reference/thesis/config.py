"""The thesis system's configuration: its simulation parameters (Table 4.1, §4.1.1) and knobs,
and their codec as the trace header's `thesis` section (conformance/FORMAT.md).

Every field has the thesis value where the thesis gives one; the others are decisions recorded
in docs/thesis.md ("Parameters"). The op timing (t_sub, t_pub) is system-neutral and lives in
`reference.common.ops.Timing`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Schema
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.system import ConfigCodec

DeliveryStrategy = Literal["unicast", "multicast", "lbdd"]
# The first release's `delivery` values, one per conformance built-in (info.py): each chose the
# probe routing and the event delivery together (multicast and lbdd probed by multicast).
DELIVERY_STRATEGIES: tuple[DeliveryStrategy, ...] = ("unicast", "multicast", "lbdd")
# Probe routing (thesis §3.4.1 point to point, §3.4.2 prefix-grouped multicast) and event
# delivery (§3.4.3 point to point or grouped like §3.4.2; LBDD, Li Kai et al.), chosen separately.
ProbeRouting = Literal["unicast", "multicast"]
PROBE_ROUTINGS: tuple[ProbeRouting, ...] = ("unicast", "multicast")
EventDelivery = Literal["unicast", "grouped", "lbdd"]
EVENT_DELIVERIES: tuple[EventDelivery, ...] = ("unicast", "grouped", "lbdd")
DeliveryValue = Literal["unicast", "multicast", "grouped", "lbdd"]
# What the header's `delivery` accepts: the event deliveries and the legacy "multicast".
DELIVERY_VALUES: tuple[DeliveryValue, ...] = ("unicast", "multicast", "grouped", "lbdd")
# The documented default of the cut-off c (thesis §3.5 gives no value): a fraction of each
# attribute's domain width, used by `--preset thesis` and by `--cutoff on` (docs/thesis.md,
# "Chapter 4 figures", D-CUTOFF).
DEFAULT_CUTOFF_FRACTION = 0.1


@dataclass(frozen=True)
class ThesisConfig:
    # Pastry (thesis §4.1.1): 160-bit ids, routing base 2^4, leaf set of 16.
    id_bits: int = 160
    digit_bits: int = 4
    leaf_set_size: int = 16
    # Network model: mean RTT of the King data set, 180 ms (thesis §4.1.1, Table 4.5).
    mean_rtt_ms: float = 180.0
    # Per-peer random capacity rand(10, 30) (thesis Table 4.1, node_capacity).
    capacity_min: int = 10
    capacity_max: int = 30
    # Growth-only 2d-tree never deeper than this (docs/design.md#core; overflow is counted).
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
    # Event delivery (thesis §3.4.3; LBDD): unicast | grouped | lbdd, or the legacy
    # "multicast" (= probe multicast + delivery grouped), read as it was first written.
    delivery: DeliveryValue = "unicast"
    # Probe routing (thesis §3.4.1 / §3.4.2); None: as the legacy `delivery` implied it
    # (unicast probes with unicast delivery, multicast probes otherwise).
    probe: ProbeRouting | None = None
    # Replication of stored subscriptions to k leaf-set neighbours (thesis §3.6).
    replication: int = 2
    # LeafNodeUpdateMessage faults (thesis §3.2.2 "may be sent by UDP"): extra delay, loss.
    leaf_update_delay_ms: float = 0.0
    leaf_update_loss: float = 0.0
    # Local coarsening of LeafNodeRoutingTable records (thesis §3.2.2): max records kept.
    lnrt_max_records: int | None = None
    # A joining peer is not ready for this long (thesis §3.6).
    join_ready_ms: float = 500.0
    # Pastry proximity neighbour selection (thesis §2.1.2: table entries "chosen according to a
    # close proximity metric"; the latency model's one-way delay), off by default (D-DHT): the
    # closest of a seeded sample of `proximity_candidates` prefix-sharing peers (0: all).
    proximity_routing: bool = False
    proximity_candidates: int = 16
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    def widening_of(self, qattr: str) -> float:
        return dict(self.widening).get(qattr, 0.0)

    def cutoff_of(self, qattr: str) -> float | None:
        return dict(self.cutoff).get(qattr)

    @property
    def probe_routing(self) -> ProbeRouting:
        """How RndRegionProbe's probes leave the publisher (§3.4.1 or §3.4.2)."""
        if self.probe is not None:
            return self.probe
        return "unicast" if self.delivery == "unicast" else "multicast"

    @property
    def event_delivery(self) -> EventDelivery:
        """How matched events reach subscribers (§3.4.3; legacy "multicast" is grouped)."""
        return "grouped" if self.delivery == "multicast" else self.delivery


def default_cutoff(
    schemas: Sequence[Schema], fraction: float = DEFAULT_CUTOFF_FRACTION
) -> tuple[tuple[str, float], ...]:
    """c = fraction x domain width on every attribute (decision D-CUTOFF, docs/thesis.md)."""
    return tuple(
        (f"{s.name}/{a.name}", fraction * float(a.max - a.min))
        for s in schemas
        for a in s.attributes
        if a.max > a.min
    )


def thesis_preset(schemas: Sequence[Schema], base: ThesisConfig | None = None) -> ThesisConfig:
    """The thesis' own evaluation setting (Ch. 4): probes by prefix-grouped multicast (§3.4.2,
    Fig. 4.5 "multicast model"), events delivered point to point (§3.4.3: "we simply send the
    event to the subscriber directly"), and the load-balancing cut-off line on every attribute
    (§3.5, Fig. 4.7 "load balancing") with the default c (D-CUTOFF)."""
    cutoff = default_cutoff(schemas)
    return dataclasses.replace(
        base or ThesisConfig(), probe="multicast", delivery="unicast", cutoff=cutoff
    )


PRESETS = ("thesis",)


SECTION = "thesis"
TUPLE_FIELDS = ("widening", "cutoff", "cutoff_h")
# Numeric fields that are probabilities / must be >= 1; the others must be >= 0.
_PROBABILITIES = ("pub_p", "h_low_fraction", "leaf_update_loss")
_AT_LEAST_ONE = ("id_bits", "digit_bits", "capacity_min", "lnrt_max_records")


def config_of(trace: Trace) -> ThesisConfig:
    """The trace's `thesis` section, or the defaults."""
    return trace.section(SECTION, ThesisConfig) or ThesisConfig()


def with_config(trace: Trace, config: ThesisConfig) -> Trace:
    return trace.with_section(SECTION, config)


class ThesisCodec(ConfigCodec):
    def default(self) -> ThesisConfig:
        return ThesisConfig()

    def parse(self, obj: Mapping[str, Any], where: str, schemas: Sequence[Schema]) -> ThesisConfig:
        return parse_config(obj, where, schemas, prefix="config.systems.thesis")

    def to_json(self, section: object) -> dict[str, Any]:
        assert isinstance(section, ThesisConfig)
        out: dict[str, Any] = {}
        default = ThesisConfig()
        for f in dataclasses.fields(ThesisConfig):
            if f.name == "extra":
                continue
            value = getattr(section, f.name)
            if value != getattr(default, f.name):
                out[f.name] = dict(value) if f.name in TUPLE_FIELDS else value
        return out


def parse_config(
    obj: Mapping[str, Any], where: str, schemas: Sequence[Schema], prefix: str
) -> ThesisConfig:
    """The section's fields, each checked against its type and domain; errors name
    `prefix.field` (`config.field` in a v1 header, where the section was the config itself)."""
    known = {f.name: f for f in dataclasses.fields(ThesisConfig) if f.name != "extra"}
    qualified = {f"{s.name}/{a.name}" for s in schemas for a in s.attributes}
    kwargs: dict[str, Any] = {}
    for key, value in obj.items():
        fld = f"{prefix}.{key}"
        if key not in known:
            raise InputError(where, fld, "unknown config field")
        if key in TUPLE_FIELDS:
            if not isinstance(value, dict):
                raise InputError(where, fld, "expected an object 'schema/attr' -> number")
            for q, v in value.items():
                if q not in qualified:
                    raise InputError(where, f"{fld}.{q}", "not a qualified attribute schema/attr")
                if isinstance(v, bool) or not isinstance(v, int | float):
                    raise InputError(where, f"{fld}.{q}", f"expected a number, got {v!r}")
                if v < 0 or (v == 0 and key != "widening"):
                    raise InputError(where, f"{fld}.{q}", f"must be positive, got {v!r}")
            kwargs[key] = tuple((k, float(v)) for k, v in value.items())
            continue
        if key == "probe":
            if value not in PROBE_ROUTINGS:
                raise InputError(where, fld, f"expected one of {', '.join(PROBE_ROUTINGS)}")
            kwargs[key] = value
            continue
        default = known[key].default
        if default is None:  # optional int fields (lnrt_max_records)
            ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
        elif isinstance(default, bool) or isinstance(value, bool):
            ok = isinstance(value, bool) and isinstance(default, bool)
        elif isinstance(default, float):
            ok = isinstance(value, int | float)
        else:
            ok = isinstance(value, type(default))
        if not ok:
            raise InputError(where, fld, f"bad value {value!r}")
        if key == "delivery" and value not in DELIVERY_VALUES:
            raise InputError(where, fld, f"expected one of {', '.join(DELIVERY_VALUES)}")
        if isinstance(value, int | float) and not isinstance(value, bool):
            low = 1 if key in _AT_LEAST_ONE else 0
            if value < low or (key in _PROBABILITIES and value > 1):
                bound = "in [0, 1]" if key in _PROBABILITIES else f">= {low}"
                raise InputError(where, fld, f"must be {bound}, got {value!r}")
        kwargs[key] = float(value) if isinstance(default, float) else value
    config = ThesisConfig(**kwargs)
    if config.capacity_max < config.capacity_min:
        raise InputError(where, f"{prefix}.capacity_max", "must be >= capacity_min")
    if config.pub_max_level < config.pub_min_level:
        raise InputError(where, f"{prefix}.pub_max_level", "must be >= pub_min_level")
    cut = dict(config.cutoff)
    for q, h in config.cutoff_h:
        # thesis §3.5: the subscriber's segment length h is below the cut-off c
        if q not in cut or not h < cut[q]:
            raise InputError(where, f"{prefix}.cutoff_h.{q}", "needs a cutoff c on q with h < c")
    return config
