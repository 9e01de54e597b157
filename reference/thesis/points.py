"""The stored points of a subscription (thesis §3.3, Program 3.2 line 8; §3.3 range widening;
§3.5 cut-off remapping): a pure function of (run seed, subscription, sequence number).

The subscriber "randomly chooses an attribute out of the attributes specified" (§3.3) and, for a
range wider than the cut-off, "h is randomly, locally selected" (§3.5). Both choices come from a
generator of their own, `random.Random(f"{seed}:points:{sub id}:{seq}")`, not from the system's
shared generator, so a subscription's points do not depend on how unrelated messages
interleave (decision D-POINTS in docs/thesis.md): the array-based variant
(conformance/variants/thesis_array_sim.py) computes the very same points without simulating
messages.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from pubsub_spec.reference.common.model import (
    Attribute,
    Number,
    Predicate,
    Subscription,
    qualified,
)
from pubsub_spec.reference.thesis.config import ThesisConfig
from pubsub_spec.reference.thesis.cutoff import Segment, choose_h, segments
from pubsub_spec.reference.thesis.space import Square
from pubsub_spec.reference.thesis.tree import StoredPoint


def points_rng(seed: int, sub_id: str, seq: int) -> random.Random:
    return random.Random(f"{seed}:points:{sub_id}:{seq}")


def point_segments(
    sub: Subscription,
    seq: int,
    seed: int,
    config: ThesisConfig,
    attrs: dict[str, Attribute],
) -> tuple[str, Number, Number, list[Segment]]:
    """The base attribute of the subscription's stored points, its range on it (widened) and
    the segments of that range (cut off): `stored_points` without the stored subscription and
    the zone paths, for a caller that keeps neither (the array-based variant)."""
    # "randomly chooses an attribute out of the attributes specified" (§3.3, line 8); a choice
    # among one needs no generator: made below only if h is drawn, with this draw replayed
    names = sorted(p.attribute for p in sub.predicates)
    rng = points_rng(seed, sub.id, seq) if len(names) != 1 else None
    base = rng.choice(names) if rng is not None else names[0]
    q = qualified(sub.schema, base)
    attr = attrs[q]
    pred = sub.predicate(base)
    assert pred is not None
    lo, hi = pred.lo, pred.hi
    r = config.widening_of(q)
    if r:
        # range widening [v1 - r, v2 + r] against endless splits (§3.3), kept in the domain
        lo, hi = max(attr.min, lo - r), min(attr.max, hi + r)
        if attr.type == "int":
            lo, hi = math.floor(lo), math.ceil(hi)
    c = config.cutoff_of(q)
    h: int | float = 0
    if c is not None and Fraction(hi) - Fraction(lo) > Fraction(c):
        fixed = dict(config.cutoff_h).get(q)
        if fixed is not None:
            h = fixed
        else:
            if rng is None:
                rng = points_rng(seed, sub.id, seq)
                rng.choice(names)  # the draw of the choice above, so that h is the same
            h = choose_h(c, attr.type, rng, config.h_low_fraction)
    return base, lo, hi, segments(lo, hi, c, h)


def stored_points(
    sub: Subscription,
    seq: int,
    seed: int,
    config: ThesisConfig,
    attrs: dict[str, Attribute],
    squares: dict[str, Square],
) -> tuple[StoredPoint, ...]:
    base, lo, hi, segs = point_segments(sub, seq, seed, config, attrs)
    stored = Subscription(  # dataclasses.replace(sub, predicates=...), at a third of the cost
        sub.id,
        sub.subscriber,
        sub.schema,
        tuple(Predicate(p.attribute, lo, hi) if p.attribute == base else p for p in sub.predicates),
    )
    square = squares[qualified(sub.schema, base)]
    return tuple(
        StoredPoint(stored, base, seg, square.point_path(seg.lo, seg.hi), seq)  # §3.5
        for seg in segs
    )
