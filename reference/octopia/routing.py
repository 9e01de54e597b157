"""Notification routing: SNR (§VII-A) and IDR with the congestion element (§VII-B, Eq. 10).

Both are pure functions of a broker's targets: the aLink targets (PRT lastHops of matching
subscriptions, RPF with downstream replication, never back to the sender) and the target
iLinks (the STCs at the host, or the flagged clusters of a CIV-N), keyed by cluster index.
They return the copies to send, each plain (civ 0) or a CIV-N.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pubsub_spec.reference.octopia.civ import civ_of
from pubsub_spec.reference.octopia.config import OverloadRule
from pubsub_spec.reference.octopia.scot import Broker


@dataclass(frozen=True)
class Copy:
    to: Broker
    civ: int = 0


# -- the congestion element (§VII-B, Eq. 10 [R]) -------------------------------------------
@dataclass(frozen=True)
class LinkStatus:
    """An LST row: CE = ΔI/ΔO over the last complete window ω and q, the queue length at the
    window's end (§VII-B; A2: ΔO = 0 gives CE = inf if ΔI > 0, else 1)."""

    ce: float
    q: int

    def load(self) -> float:
        return 0.0 if self.q == 0 else self.ce * self.q

    def overloaded(self, theta: float, rule: OverloadRule = "product") -> bool:
        """Eq. 10 [R]: CE·q > θ; A1's alternative reading CE > 1 ∧ q > θ behind `rule`."""
        if rule == "both":
            return self.ce > 1.0 and self.q > theta
        return self.load() > theta

    def rank(self) -> tuple[float, float]:
        """A9: least overloaded = least CE·q, then least CE (then CI, by the caller)."""
        return (self.load(), self.ce)


FREE = LinkStatus(1.0, 0)  # "congestion-free: CE = 1 and q = 0" (§VII-B)


def congestion_element(d_in: int, d_out: int) -> float:
    if d_out == 0:
        return math.inf if d_in > 0 else 1.0  # A2
    return d_in / d_out


@dataclass
class OutputQueue:
    """A FIFO output queue of one directed link: each notification takes `service_ms` to
    leave (decision O-QUEUE). The log of (enqueued, departed) times feeds the LST."""

    service_ms: float
    free_at: float = 0.0
    log: deque[tuple[float, float]] = field(default_factory=deque)
    # q as each notification found it on arrival, summed (the mean q the benchmark prints)
    q_seen: int = 0
    enqueued: int = 0

    def enqueue(self, now: float) -> float:
        """Enqueue at `now`; returns the departure time."""
        if self.free_at > now and self.service_ms > 0:
            self.q_seen += math.ceil((self.free_at - now) / self.service_ms - 1e-9)
        self.enqueued += 1
        departure = max(now, self.free_at) + self.service_ms
        self.free_at = departure
        self.log.append((now, departure))
        return departure

    def status(self, now: float, window: float) -> LinkStatus:
        """The LST row as refreshed at the last window boundary t1 = ⌊now/ω⌋ω (§VII-B: "the
        values are updated after each interval"), over [t1 - ω, t1)."""
        t1 = math.floor(now / window) * window
        t0 = t1 - window
        while self.log and self.log[0][1] < t0:
            self.log.popleft()  # both times are monotone in a FIFO queue
        d_in = d_out = q = 0
        for enq, dep in self.log:
            if t0 <= enq < t1:
                d_in += 1
            if t0 <= dep < t1:
                d_out += 1
            if enq < t1 < dep:
                q += 1
        return LinkStatus(congestion_element(d_in, d_out), q)


# -- SNR (§VII-A) --------------------------------------------------------------------------
def snr_copies(alinks: Sequence[Broker], ilinks: Mapping[int, Broker]) -> list[Copy]:
    """One copy per target aLink (RPF) and one per target iLink (the host's STCs, no content
    check) (§VII-A)."""
    return [Copy(b) for b in alinks] + [Copy(ilinks[j]) for j in sorted(ilinks)]


# -- IDR (§VII-B) --------------------------------------------------------------------------
@dataclass(frozen=True)
class IdrDecision:
    case: str  # "none" (no target iLink), "free" (o = 0), "i", "ii", "iv"
    copies: tuple[Copy, ...]


def idr_copies(
    alinks: Sequence[Broker],
    ilinks: Mapping[int, Broker],
    overloaded: Callable[[Broker], bool],
    rank: Callable[[Broker], tuple[float, float]],
) -> IdrDecision:
    """IDR at one broker (§VII-B). o = overloaded target iLinks, t = target iLinks:
    (i) 0 < o < t: no copy on the overloaded iLinks; their CIBs ride, as a CIV-N, the copy on
        the least-loaded unoverloaded target iLink (A9);
    (ii)/(iii) o = t, some target aLink unoverloaded: the CIV-N (all target CIBs) rides the
        least-loaded such aLink (its copy is sent anyway: RPF);
    (iv) o = t, none: the CIV-N goes on the least-overloaded target iLink, whose own bit is
        cleared (A10); with no other bit it is a plain copy.
    aLink copies always follow RPF (A8: "only one copy" concerns iLink copies)."""
    t = len(ilinks)
    if t == 0:
        return IdrDecision("none", tuple(Copy(b) for b in alinks))
    over = {j for j in sorted(ilinks) if overloaded(ilinks[j])}
    if not over:
        return IdrDecision("free", tuple(snr_copies(alinks, ilinks)))

    def key(j: int) -> tuple[float, float, int]:
        return (*rank(ilinks[j]), j)

    plain = [Copy(b) for b in alinks]
    if len(over) < t:  # (i)
        free = [j for j in sorted(ilinks) if j not in over]
        chosen = min(free, key=key)
        rest = [Copy(ilinks[j]) for j in free if j != chosen]
        return IdrDecision("i", (*plain, *rest, Copy(ilinks[chosen], civ_of(over))))
    free_a = [b for b in alinks if not overloaded(b)]
    if free_a:  # (ii)/(iii)
        via = min(free_a, key=lambda b: (*rank(b), b[1], b[0]))
        civ = civ_of(set(ilinks))
        return IdrDecision("ii", tuple(Copy(b, civ if b == via else 0) for b in alinks))
    chosen = min(ilinks, key=key)  # (iv)
    return IdrDecision("iv", (*plain, Copy(ilinks[chosen], civ_of(set(ilinks) - {chosen}))))
