"""The thesis' synthetic workload (§4.1.2, Tables 4.1–4.3): Zipf-distributed values and range
sizes over the schema of Table 4.2.

Generation is a pure function of (seed, kind, index): every subscription and event has its own
generator `substream(seed, kind, index)` (reference/sim/seeds.py), so a trace is identical
however its generation is partitioned (Spark). Decisions where the thesis is unclear
(docs/trace-format.md, "Workload"): sub-range rank 1 is the lowest sub-range of the domain; a
range's size is `rank / 100 * size_bound * width` with the rank Zipf-distributed over 100 size
classes; the range is centred on a value drawn like an event value and clipped to the domain;
values are rounded to 3 decimals; a subscription with no attribute present gets one attribute
chosen uniformly.
"""

from __future__ import annotations

import bisect
import functools
import math
import random
from dataclasses import dataclass

from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    MatchMode,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace
from pubsub_spec.reference.sim.seeds import substream
from pubsub_spec.reference.thesis.config import SECTION, ThesisConfig

SIZE_CLASSES = 100


def thesis_schema(name: str = "thesis") -> Schema:
    """Table 4.2: four float attributes."""
    return Schema(
        name,
        (
            Attribute("Attr1", "float", 0.0, 10000.0),
            Attribute("Attr2", "float", -10000.0, 10000.0),
            Attribute("Attr3", "float", 0.0, 3000.0),
            Attribute("Attr4", "float", 0.0, 200.0),
        ),
    )


@dataclass(frozen=True)
class AttributeProfile:
    """One row of Table 4.3. `rank_order`: which sub-range has Zipf rank k; None (the default,
    docs/trace-format.md "Workload") puts rank 1 at the lowest sub-range, rank 2 next, ...; a
    seed puts the ranks on a permutation of the sub-ranges drawn from it (the G3 experiment of
    docs/thesis.md: the same skew, not piled at one end of the domain)."""

    present_prob: float
    subrange_skew: float
    subrange_size: float
    size_skew: float
    size_bound: float
    rank_order: int | None = None


# Table 4.3 (the OCR is garbled; read column by column).
THESIS_PROFILES: dict[str, AttributeProfile] = {
    "Attr1": AttributeProfile(0.5, 0.6, 100.0, 0.8, 0.50),
    "Attr2": AttributeProfile(0.5, 0.5, 20.0, 0.6, 0.40),
    "Attr3": AttributeProfile(0.5, 0.4, 10.0, 0.5, 0.30),
    "Attr4": AttributeProfile(0.5, 0.3, 1.0, 0.4, 0.20),
}


@functools.cache
def _zipf_cdf(n: int, s: float) -> tuple[float, ...]:
    """H_{k,s} / H_{N,s} for k = 1..N (thesis §4.1.2)."""
    acc, out = 0.0, []
    for k in range(1, n + 1):
        acc += 1.0 / k**s
        out.append(acc)
    return tuple(x / acc for x in out)


def zipf_rank(rng: random.Random, n: int, s: float) -> int:
    """A rank in 1..n with P(rank <= k) = H_{k,s} / H_{n,s}."""
    return min(n, bisect.bisect_left(_zipf_cdf(n, s), rng.random()) + 1)


@functools.cache
def _subranges_by_rank(n: int, seed: int | None) -> tuple[int, ...]:
    """The sub-range index of each Zipf rank 1..n (`AttributeProfile.rank_order`)."""
    order = list(range(n))
    if seed is not None:
        random.Random(f"rank-order:{seed}:{n}").shuffle(order)
    return tuple(order)


def _value(rng: random.Random, a: Attribute, prof: AttributeProfile) -> float:
    """A sub-range by Zipf rank, then a uniform value in it (thesis §4.1.2)."""
    n = max(1, math.ceil((a.max - a.min) / prof.subrange_size))
    k = zipf_rank(rng, n, prof.subrange_skew)
    lo = a.min + _subranges_by_rank(n, prof.rank_order)[k - 1] * prof.subrange_size
    hi = min(a.max, lo + prof.subrange_size)
    return min(max(round(rng.uniform(lo, hi), 3), a.min), a.max)


def zipf_event(
    seed: int,
    index: int,
    schema: Schema,
    profiles: dict[str, AttributeProfile],
    publisher: str,
    event_id: str,
) -> Event:
    rng = substream(seed, "event", index)
    vals = tuple((a.name, _value(rng, a, profiles[a.name])) for a in schema.attributes)
    return Event(event_id, publisher, schema.name, vals)


def zipf_subscription(
    seed: int,
    index: int,
    schema: Schema,
    profiles: dict[str, AttributeProfile],
    subscriber: str,
    sub_id: str,
) -> Subscription:
    rng = substream(seed, "sub", index)
    present = [a for a in schema.attributes if rng.random() < profiles[a.name].present_prob]
    if not present:
        present = [rng.choice(schema.attributes)]
    preds = []
    for a in present:
        prof = profiles[a.name]
        centre = _value(rng, a, prof)
        size = zipf_rank(rng, SIZE_CLASSES, prof.size_skew) / SIZE_CLASSES
        half = size * prof.size_bound * (a.max - a.min) / 2
        lo = round(max(a.min, centre - half), 3)
        hi = round(min(a.max, centre + half), 3)
        preds.append(Predicate(a.name, lo, max(lo, hi)))
    return Subscription(sub_id, subscriber, schema.name, tuple(preds))


def thesis_trace(
    nodes: int,
    subs_per_node: float,
    events: int,
    seed: int,
    config: ThesisConfig | None = None,
    matching: MatchMode = "strict",
    profiles: dict[str, AttributeProfile] = THESIS_PROFILES,
) -> Trace:
    """The three stages of §4.1.1: nodes join, subscriptions are installed, events published
    (`profiles`: Table 4.3 by default)."""
    schema = thesis_schema()
    ops: list[Op] = []
    n_subs = round(nodes * subs_per_node)
    for i in range(n_subs):
        # a subscriber drawn uniformly from the nodes alive (thesis §4.1.1), per index
        who = f"n{substream(seed, 'subscriber', i).randrange(nodes)}"
        ops.append(
            Subscribe(i + 1, zipf_subscription(seed, i, schema, profiles, who, f"s{i}"))
        )
    for j in range(events):
        # the publisher of each event is selected at random from all nodes (thesis §4.1.1)
        who = f"n{substream(seed, 'publisher', j).randrange(nodes)}"
        ev = zipf_event(seed, j, schema, profiles, who, f"e{j}")
        ops.append(Publish(n_subs + j + 1, ev))
    return Trace(
        (schema,),
        tuple(ops),
        initial_nodes=nodes,
        matching=matching,
        seed=seed,
        sections=((SECTION, config),) if config is not None else (),
        generator="zipf-thesis",
        trace_id=f"thesis-{nodes}x{subs_per_node}x{events}-s{seed}"
        + ("" if profiles is THESIS_PROFILES else "-profiles"),
    )
