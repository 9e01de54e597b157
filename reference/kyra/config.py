"""Configuration of Kyra and its baselines (the paper's parameter values are lost, decision
K-D8) and its codec as a trace-header section (`kyra`, `siena`, `mcgroups`, one each, same
fields; a system reads only its own section)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Attribute, Schema
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.system import ConfigCodec


@dataclass(frozen=True)
class KyraConfig:
    # Network model shared with the thesis system (thesis §4.1.1: mean RTT 180 ms).
    mean_rtt_ms: float = 180.0
    # Fig. 5's maxNumServers and maxDistance (one-way ms); values lost, decision K-D8.
    max_clique_size: int = 5
    max_clique_ms: float = 60.0
    # T routing trees; 0 means T = max_i k_i as §III.A recommends.
    trees: int = 0
    # The partition attribute per schema (K-D1): "schema/attr" entries; default the first.
    partition_attr: tuple[str, ...] = ()
    # Zones (Kyra §III.B "continuous zones with balanced load"): "balanced" cuts where each part
    # holds an equal share of the subscriptions' load (decision K-D17), "equal-width" by width
    # (K-D2); `zone_dims` attributes are cut (K-D18: the partition attribute, then the schema's
    # other attributes in order; at most the schema's count).
    zones: str = "balanced"
    zone_dims: int = 1
    # Multicast groups (K-D10): cells of the partition attribute, groups, K-Means rounds.
    mc_cells: int = 16
    mc_groups: int = 4
    mc_kmeans_rounds: int = 20
    # Server placement (benchmark; decision K-D15, docs/kyra.md): 0 means
    # uniform in the unit square (the latency model's); k > 0 means k Gaussian clusters of
    # standard deviation `placement_spread` (decision K-D15, `base.ClusteredLatency`).
    placement_clusters: int = 0
    placement_spread: float = 0.05

    def partition_attribute(self, schema: Schema) -> Attribute:
        for q in self.partition_attr:
            s, _, a = q.partition("/")
            if s == schema.name:
                return schema.attribute(a)
        return schema.attributes[0]

    def cut_attributes(self, schema: Schema) -> tuple[Attribute, ...]:
        """The attributes the zones cut (K-D18): the partition attribute first."""
        first = self.partition_attribute(schema)
        rest = [a for a in schema.attributes if a.name != first.name]
        return (first, *rest)[: self.zone_dims]


def config_of(trace: Trace, section: str) -> KyraConfig:
    return trace.section(section, KyraConfig) or KyraConfig()


_POSITIVE_INT = ("max_clique_size", "mc_cells", "mc_groups", "mc_kmeans_rounds", "zone_dims")
ZONE_MODES = ("balanced", "equal-width")


class KyraCodec(ConfigCodec):
    def __init__(self, section: str) -> None:
        self.section = section

    def default(self) -> KyraConfig:
        return KyraConfig()

    def parse(self, obj: Mapping[str, Any], where: str, schemas: Sequence[Schema]) -> KyraConfig:
        prefix = f"config.systems.{self.section}"
        known = {f.name: f for f in dataclasses.fields(KyraConfig)}
        kwargs: dict[str, Any] = {}
        for key, value in obj.items():
            fld = f"{prefix}.{key}"
            if key not in known:
                raise InputError(where, fld, "unknown config field")
            if key == "partition_attr":
                quals = {f"{s.name}/{a.name}" for s in schemas for a in s.attributes}
                if not isinstance(value, list) or not all(v in quals for v in value):
                    raise InputError(where, fld, "expected a list of 'schema/attr'")
                kwargs[key] = tuple(value)
                continue
            if key == "zones":
                if value not in ZONE_MODES:
                    raise InputError(where, fld, f"expected one of {', '.join(ZONE_MODES)}")
                kwargs[key] = value
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(where, fld, f"expected a number, got {value!r}")
            if isinstance(known[key].default, int) and not isinstance(value, int):
                raise InputError(where, fld, f"expected an integer, got {value!r}")
            if value < 0 or (key in _POSITIVE_INT and value < 1):
                raise InputError(where, fld, f"out of range: {value!r}")
            kwargs[key] = float(value) if isinstance(known[key].default, float) else value
        return KyraConfig(**kwargs)

    def to_json(self, section: object) -> dict[str, Any]:
        assert isinstance(section, KyraConfig)
        default = KyraConfig()
        out: dict[str, Any] = {}
        for f in dataclasses.fields(KyraConfig):
            v = getattr(section, f.name)
            if v != getattr(default, f.name):
                out[f.name] = list(v) if isinstance(v, tuple) else v
        return out
