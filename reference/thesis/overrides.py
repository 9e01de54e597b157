"""The thesis system's configuration as a user adjusts it on top of a trace (`pubsub-spec
simulate`'s flags): the preset, the probe routing and event delivery, the cut-off, range widening,
depth, replication, LeafUpdate faults and proximity routing, applied to the trace's `thesis`
section (config.py). The command line only parses the flags into `Overrides`; `configured` is
the one place that decides what they mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import Schema
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.thesis.config import (
    DeliveryValue,
    ProbeRouting,
    ThesisConfig,
    config_of,
    default_cutoff,
    thesis_preset,
    with_config,
)


@dataclass(frozen=True)
class Overrides:
    """What to change in a trace's thesis section. None (or 0 for `widening`, "" or None for
    `cutoff`) keeps the trace's value; depth, replication and the LeafUpdate faults are always
    set (their defaults are ThesisConfig's)."""

    preset: str | None = None  # "thesis": thesis_preset, before the other overrides
    probe: ProbeRouting | None = None
    delivery: DeliveryValue | None = None
    proximity_routing: bool | None = None
    proximity_candidates: int | None = None
    widening: float = 0.0  # range widening r on every attribute (thesis §3.3)
    cutoff: str | None = None  # parse_cutoff's spec (thesis §3.5)
    max_depth: int = ThesisConfig.max_depth
    replication: int = ThesisConfig.replication
    leaf_update_loss: float = 0.0
    leaf_update_delay_ms: float = 0.0


def parse_cutoff(spec: str, schemas: Sequence[Schema], where: str) -> tuple[tuple[str, float], ...]:
    """The cut-off c per qualified attribute (thesis §3.5) from `spec`: 'on' (the default c of
    decision D-CUTOFF, docs/thesis.md), 'off', one fraction of every domain's width ('0.2'), or
    'Attr1=1000,Attr2=500' (names qualified 'schema/attr' or not). Errors name `where` and the
    field `cutoff.<name>`."""
    out: list[tuple[str, float]] = []
    quals = {f"{s.name}/{a.name}": a for s in schemas for a in s.attributes}
    if spec == "on":  # decision D-CUTOFF (docs/thesis.md)
        return default_cutoff(schemas)
    if spec == "off":
        return ()
    try:
        frac = float(spec)
    except ValueError:
        frac = None
    if frac is not None:
        if not 0 < frac <= 1:
            raise InputError(where, "cutoff", f"fraction must be in (0, 1], got {spec}")
        return tuple((q, frac * float(a.max - a.min)) for q, a in sorted(quals.items()))
    for part in spec.split(","):
        name, _, value = part.partition("=")
        q = name if "/" in name else next((k for k in quals if k.endswith("/" + name)), name)
        if q not in quals:
            raise InputError(where, f"cutoff.{name}", f"unknown attribute {name!r}")
        try:
            c = float(value)
        except ValueError:
            raise InputError(where, f"cutoff.{name}", f"not a number: {value!r}") from None
        if not 0 < c < math.inf:  # thesis §3.5: the cut-off line y = x + c, c > 0 (finite)
            raise InputError(where, f"cutoff.{name}", f"c must be a finite number > 0, got {value}")
        out.append((q, c))
    return tuple(out)


def configured(trace: Trace, o: Overrides, where: str = "overrides") -> Trace:
    """`trace` with its thesis section changed as `o` says (`where` names the source of a bad
    cut-off in the error)."""
    base = config_of(trace)
    if o.preset == "thesis":
        base = thesis_preset(trace.schemas, base)
    if o.probe is not None:
        base = replace(base, probe=o.probe)
    if o.delivery is not None:
        base = replace(base, delivery=o.delivery)
    if o.proximity_routing is not None:
        base = replace(base, proximity_routing=o.proximity_routing)
    if o.proximity_candidates is not None:
        base = replace(base, proximity_candidates=o.proximity_candidates)
    widening = (
        tuple((f"{s.name}/{a.name}", o.widening) for s in trace.schemas for a in s.attributes)
        if o.widening
        else base.widening
    )
    config = replace(
        base,
        max_depth=o.max_depth,
        replication=o.replication,
        leaf_update_loss=o.leaf_update_loss,
        leaf_update_delay_ms=o.leaf_update_delay_ms,
        widening=widening,
        cutoff=parse_cutoff(o.cutoff, trace.schemas, where) if o.cutoff else base.cutoff,
    )
    return with_config(trace, config)
