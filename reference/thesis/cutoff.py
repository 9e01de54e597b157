"""Cut-off-line load balancing with remapped points (thesis §3.5, Fig. 3.4).

A point (l, u) with u - l > c lies in the hot area above the cut-off line y = x + c; it is
replaced by the points (l, l+h), (l+h, l+2h), ..., (l+kh, u) with h < c chosen by the subscriber.
Read with closed intervals, an event value on a segment boundary lies in two segments and is
delivered twice, contrary to the thesis' claim (erratum E3): segments are half-open [a, a+h)
except the last, which is closed, and a stored point carries its closure (docs/design.md#core).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

from pubsub_spec.reference.common.model import AttrType, Number


@dataclass(frozen=True)
class Segment:
    """Segment i of a (possibly remapped) range: [lo, hi) or, if closed, [lo, hi]."""

    index: int
    lo: Number
    hi: Number
    closed: bool

    def contains(self, v: Number) -> bool:
        return self.lo <= v and (v <= self.hi if self.closed else v < self.hi)


def choose_h(c: Number, attr_type: AttrType, rng: random.Random, low_fraction: float) -> Number:
    """h < c, drawn locally by the subscriber (thesis §3.5: "h is randomly, locally selected")."""
    if attr_type == "int":
        ci = int(c)
        if ci < 2:
            raise ValueError(f"cut-off c={c} too small for an int attribute (need c >= 2)")
        return rng.randint(max(1, int(ci * low_fraction)), ci - 1)
    fc = float(c)
    h = fc * (low_fraction + (1.0 - low_fraction) * rng.random())
    return h if h < fc else fc * low_fraction


def segments(lo: Number, hi: Number, c: Number | None, h: Number) -> list[Segment]:
    """The stored points of the range [lo, hi]: one closed segment if hi - lo <= c, else the
    remapped half-open segments with a closed last one (thesis §3.5, decision D-SEG)."""
    if c is None or Fraction(hi) - Fraction(lo) <= Fraction(c):
        return [Segment(0, lo, hi, True)]
    bounds: list[Number] = [lo]
    i = 1
    while True:
        nxt = lo + i * h
        if nxt >= hi:
            break
        if nxt <= bounds[-1]:
            raise ValueError(f"h={h} too small to remap [{lo}, {hi}] exactly")
        bounds.append(nxt)
        i += 1
    out = [Segment(j, bounds[j], bounds[j + 1], False) for j in range(len(bounds) - 1)]
    out.append(Segment(len(bounds) - 1, bounds[-1], hi, True))
    return out
