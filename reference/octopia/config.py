"""OctopiA's and TID's configuration and its codec as a trace-header section (one section per
system name: `octopia-snr`, `octopia-idr`, `tid`; conformance/FORMAT.md v2).

Defaults: the evaluation topology of §VIII (Fig. 10, decision A12: caterpillar 14 x K5, 70
brokers), Eq. 10 with θ = 10 and ω = 50 ms (§VIII, A1), the project's latency model. The
per-link output-queue service time is ours (decision O-QUEUE, docs/octopia.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Schema
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.scot import AcyclicFactor, Broker, fig10_factor
from pubsub_spec.reference.sim.system import ConfigCodec

OverloadRule = Literal["product", "both"]
OVERLOAD_RULES: tuple[OverloadRule, ...] = ("product", "both")
FIG10_EDGES: tuple[tuple[str, str], ...] = fig10_factor().edges


@dataclass(frozen=True)
class OctopiaConfig:
    # G_A as a tree's edges and m = |V(K_m)| (§III-B; Fig. 10, A12).
    acyclic_edges: tuple[tuple[str, str], ...] = FIG10_EDGES
    m: int = 5
    # The project's latency model (reference/sim/latency.py); same mean as the thesis system.
    mean_rtt_ms: float = 180.0
    # Transmission time of one notification on a link's output queue (O-QUEUE).
    link_service_ms: float = 1.0
    # Eq. 10 [R]: overloaded iff CE·q > θ, LST refreshed every ω (§VII-B, §VIII, A1).
    theta: float = 10.0
    window_ms: float = 50.0
    overload_rule: OverloadRule = "product"
    # Forced overload (for testing IDR): each (directed link, decision) is overloaded with
    # this probability from a seeded generator; forced_links always are.
    forced_overload: float = 0.0
    forced_links: tuple[tuple[str, int, str, int], ...] = ()
    # Client -> broker (x, i); other clients are placed by a seeded choice (§VIII "randomly").
    attach: tuple[tuple[str, str, int], ...] = ()
    # Decision O-IMPLICIT (reference/octopia/advertisements.py).
    implicit_advertisements: bool = True
    # Decision O-PROC (docs/octopia.md): each broker is one FIFO server; an arriving IM waits
    # for it, then takes processing_ms plus matching_ms_per_entry per entry of the table it
    # is matched against (§VIII: "matching delay", larger with larger SRTs and PRTs). 0: off.
    processing_ms: float = 0.0
    matching_ms_per_entry: float = 0.0
    # TID dynamic routing ([20], OctopiA §II): an overloaded next hop (Eq. 10) is replaced by
    # the lastHop of another TID bound to the same subscription (decision O-TID-DYN). TID only.
    tid_dynamic: bool = False

    def factor(self) -> AcyclicFactor:
        return AcyclicFactor.from_edges(self.acyclic_edges)

    def attach_map(self) -> dict[str, Broker]:
        return {c: (x, i) for c, x, i in self.attach}


def config_of(trace: Trace, section: str) -> OctopiaConfig:
    return trace.section(section, OctopiaConfig) or OctopiaConfig()


def with_config(trace: Trace, section: str, config: OctopiaConfig) -> Trace:
    return trace.with_section(section, config)


class OctopiaCodec(ConfigCodec):
    def __init__(self, section: str) -> None:
        self.section = section

    def default(self) -> OctopiaConfig:
        return OctopiaConfig()

    def parse(self, obj: Mapping[str, Any], where: str, schemas: Sequence[Schema]) -> OctopiaConfig:
        return parse_config(obj, where, f"config.systems.{self.section}")

    def to_json(self, section: object) -> dict[str, Any]:
        assert isinstance(section, OctopiaConfig)
        out: dict[str, Any] = {}
        default = OctopiaConfig()
        for f in dataclasses.fields(OctopiaConfig):
            value = getattr(section, f.name)
            if value == getattr(default, f.name):
                continue
            if f.name == "attach":
                out[f.name] = {c: [x, i] for c, x, i in value}
            elif isinstance(value, tuple):
                out[f.name] = [list(v) for v in value]
            else:
                out[f.name] = value
        return out


def _num(value: object, where: str, fld: str, low: float, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(where, fld, f"expected a number, got {value!r}")
    if value < low or (high is not None and value > high):
        raise InputError(where, fld, f"must be in [{low}, {high or 'inf'}], got {value!r}")
    return float(value)


def parse_config(obj: Mapping[str, Any], where: str, prefix: str) -> OctopiaConfig:
    """Every field checked against its type and domain; errors name `prefix.field`."""
    known = {f.name for f in dataclasses.fields(OctopiaConfig)}
    kw: dict[str, Any] = {}
    for key, value in obj.items():
        fld = f"{prefix}.{key}"
        if key not in known:
            raise InputError(where, fld, "unknown config field")
        if key == "acyclic_edges":
            if not isinstance(value, list) or not all(
                isinstance(e, list) and len(e) == 2 and all(isinstance(v, str) for v in e)
                for e in value
            ):
                raise InputError(where, fld, "expected a list of [vertex, vertex] pairs")
            kw[key] = tuple((a, b) for a, b in value)
        elif key == "m":
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
                raise InputError(where, fld, f"expected an int in [1, 64], got {value!r}")
            kw[key] = value
        elif key in ("mean_rtt_ms",):
            kw[key] = _num(value, where, fld, 10.0 + 1e-9)
        elif key in ("link_service_ms", "theta", "processing_ms", "matching_ms_per_entry"):
            kw[key] = _num(value, where, fld, 0.0)
        elif key == "window_ms":
            kw[key] = _num(value, where, fld, 1e-9)
        elif key == "forced_overload":
            kw[key] = _num(value, where, fld, 0.0, 1.0)
        elif key == "overload_rule":
            if value not in OVERLOAD_RULES:
                raise InputError(where, fld, f"expected one of {', '.join(OVERLOAD_RULES)}")
            kw[key] = value
        elif key in ("implicit_advertisements", "tid_dynamic"):
            if not isinstance(value, bool):
                raise InputError(where, fld, f"expected true or false, got {value!r}")
            kw[key] = value
        elif key == "forced_links":
            ok = isinstance(value, list) and all(
                isinstance(e, list)
                and len(e) == 4
                and isinstance(e[0], str)
                and isinstance(e[2], str)
                and all(isinstance(e[k], int) and not isinstance(e[k], bool) for k in (1, 3))
                for e in value
            )
            if not ok:
                raise InputError(where, fld, "expected a list of [x, i, y, j] links")
            kw[key] = tuple((a, i, b, j) for a, i, b, j in value)
        else:  # attach
            if not isinstance(value, dict) or not all(
                isinstance(v, list)
                and len(v) == 2
                and isinstance(v[0], str)
                and isinstance(v[1], int)
                and not isinstance(v[1], bool)
                for v in value.values()
            ):
                raise InputError(where, fld, "expected an object client -> [x, i]")
            kw[key] = tuple((c, v[0], v[1]) for c, v in value.items())
    config = OctopiaConfig(**kw)
    problem = config.factor().problem()
    if problem is not None:
        raise InputError(where, f"{prefix}.acyclic_edges", problem)
    vertices = set(config.factor().vertices)
    for c, x, i in config.attach:
        if x not in vertices or not 0 <= i < config.m:
            raise InputError(where, f"{prefix}.attach.{c}", f"no broker B({x},{i})")
    for x, i, y, j in config.forced_links:
        if {x, y} - vertices or not (0 <= i < config.m and 0 <= j < config.m):
            raise InputError(where, f"{prefix}.forced_links", f"no link B({x},{i})-B({y},{j})")
    return config
