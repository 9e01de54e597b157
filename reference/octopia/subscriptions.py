"""Subscription broadcast and subgrouping (OctopiA §VI).

A subscription from B(y, j) is broadcast over the aLinks of its cluster C_j only (§VI, [3]);
every broker of C_j stores (s, lastHop). The subscriptions are thereby partitioned by their
subscriber's cluster: *subscription subgrouping*. A broker of C_j that holds, in its SRT, a
secondary-context advertisement that overlaps s with its SCB OFF sets the SCB and sends
CIB_SET(adv id, s) to the advertisement's host (A5); the host sets CIB j and does not store s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from pubsub_spec.reference.common.model import Subscription
from pubsub_spec.reference.octopia.advertisements import Advertisement, overlaps
from pubsub_spec.reference.octopia.scot import Broker


def subgroups(
    subs: Iterable[Subscription], cluster_of: Callable[[Subscription], int], m: int
) -> tuple[tuple[Subscription, ...], ...]:
    """The disjoint subgroups, one per cluster (§VI): subgroup j is broadcast in C_j only."""
    groups: list[list[Subscription]] = [[] for _ in range(m)]
    for s in subs:
        groups[cluster_of(s)].append(s)
    return tuple(tuple(g) for g in groups)


@dataclass
class SrtEntry:
    """An SRT entry (§I-II; A4): at the host, the advertisement context (host_ci, stc_mask);
    at a secondary broker, the subscription context (host_ci, scb). last_hop is None at the
    host (the publisher is local), else the host broker."""

    adv: Advertisement
    host_ci: int
    last_hop: Broker | None
    stc_mask: int = 0
    scb: bool = False


def cib_set_targets(me: Broker, sub: Subscription, srt: Mapping[str, SrtEntry]) -> list[SrtEntry]:
    """The secondary-context entries on which `sub`, arriving at `me`, sets the SCB and sends a
    CIB_SET (§VI step (ii)): overlapping, from another cluster, SCB OFF."""
    return [
        e
        for _, e in sorted(srt.items())
        if e.last_hop is not None and e.host_ci != me[1] and not e.scb and overlaps(e.adv, sub)
    ]
