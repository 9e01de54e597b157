"""Kyra, its two baselines and the thesis' 2d-tree system on the same workloads (docs/kyra.md,
"Benchmark").

The paper's evaluation (§IV-V) is lost; what survives are its claims (Abstract, §I, §II.B-C),
checked one by one against criteria fixed before the run (docs/kyra.md, "Claims, one by one").
Ratios are Kyra/Siena unless said; "both workloads" means the Zipf and uniform workloads on
uniform placement (the baseline runs), and a claim is *reproduced* only if its criterion holds
on both:

C1  "network efficiency close to that of the filter-based approach" (Abstract, §I): Kyra's
    event bytes per event <= 1.10 and its mean delivery latency <= 1.10 of Siena's.
C2a "significantly reduces the storage ... load": table records per server (mean) <= 0.75.
C2b "... processing ...": matching operations per event <= 0.75.
C2c "... and network traffic loads": event messages per event <= 0.75.
C2d the same claim for subscription traffic: Kyra's SubMove + SubPropagate messages <= 0.75
    of Siena's SubPropagate, and bytes <= 0.75.
C3  "Kyra also balances routing load": Kyra's events received per server, max/mean, <=
    Siena's.
C4  "the effectiveness of Kyra is independent of data characteristics" (§I): the Kyra/Siena
    ratios of event messages and of records each change by at most 10% between the workloads.
C5a "filter-based event routing should achieve better network efficiency than the
    multicast-based approach" (§II.C): multicast groups' event messages per event >= 1.10 of
    Siena's.
C5b multicast efficiency is "highly sensitive to ... distributions ... of events and
    subscriptions", poor when uniform (§I, §II.B): on the narrow workloads (every subscription
    constrained on the partition attribute), 64 cells and 16 groups, the share of uninterested
    servers among the servers an event reaches is >= 1.25 times as high on the uniform workload
    as on the skewed one; the group count must let it show: a server is in at most half of the
    groups on average on the skewed workload (printed; with the default 4 groups over 16 cells
    and the thesis workload a server is in 3.9 of 4 and the multicast is a broadcast).

A claim whose criterion fails is *explained* when a named experiment removes one cause and the
criterion then holds, and *refuted* otherwise (with the measured reason):
E-narrow   every subscription constrained on the partition attribute (C2a, C2d: a subscription
           with no predicate there spans every zone: a fragment at every clique member and an
           entry on every tree);
E-events   as E-cliques, and the zones balanced by the events' keys instead of the
           subscriptions (C3 on skewed events: the tree whose zone holds the popular values
           carries most events);
E-cliques  every clique of exactly T = 5 members (servers in name order, five by five: HAC's
           limits leave cliques of 2-5), so that each clique's zones are the tree zones (C3: a
           member of a smaller clique has a zone spanning several tree zones, joins several
           trees and receives their events).

Workloads: the thesis' Zipf workload (`reference.thesis.workload.thesis_trace`) and a uniform
one on the same schema (`uniform_trace` below); server placements uniform (the project's latency
model) and clustered (`placement_clusters`, decision K-D15 in docs/kyra.md), the latter for the
three broker systems only (the thesis system's config has no placement).

Figures per system and run (docs/kyra.md "Benchmark"):
- records: routing-table records per server, mean (max) (Kyra/Siena: filter entries over all
  tables; mcgroups: group memberships; thesis: stored points + LeafNodeRoutingTable records
  per peer);
- match ops: filters and subscriptions tested per event (not counted by the thesis system);
- msgs, bytes: event-side messages and bytes per event (every hop; the thesis counts overlay
  hops, its Pastry routes included);
- uninterested: servers reached by an event that matched nothing there, per event (brokers);
- hops/send: network hops per event message sent (1 for the brokers; Pastry route length);
- latency: delivery latency mean / p95 (ms) from the publication;
- load: max/mean over servers of event messages sent, and (brokers) of events received.

- sub msgs, sub bytes: subscription-side messages and bytes in all (Kyra: SubMove +
  SubPropagate; Siena: SubPropagate; mcgroups: GroupJoin);
- waste: uninterested servers over servers reached by an event (brokers).

Run: python -m benchmarks.bench_kyra [--quick] [--nodes N --subs S --events E --seed K]
Not a test.
"""

from __future__ import annotations

import argparse

# the experiments live in the package, so that `pubsub-spec figures` runs the same code
# (pubsub_spec/figures_kyra.py); the names are re-exported for this module's users
from pubsub_spec.claims_rows import ClaimRow
from pubsub_spec.figures_kyra import (
    EventBalancedKyra,
    Row,
    Runs,
    claims,
    experiments,
    measure,
    narrow_trace,
    print_claims,
    print_table,
    uniform_trace,
    zone_modes,
)

__all__ = [
    "ClaimRow",
    "EventBalancedKyra",
    "Row",
    "Runs",
    "claims",
    "experiments",
    "measure",
    "narrow_trace",
    "print_claims",
    "print_table",
    "uniform_trace",
    "zone_modes",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="60 servers, 3 subs each, 200 events")
    ap.add_argument("--nodes", type=int, default=200)
    ap.add_argument("--subs", type=float, default=5.0)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-clustered", action="store_true", help="skip the clustered placements")
    ap.add_argument("--zones-only", action="store_true", help="only the zone modes (E-zones)")
    args = ap.parse_args()
    if args.quick:
        args.nodes, args.subs, args.events = 60, 3.0, 200
    size = (args.nodes, args.subs, args.events, args.seed)
    if args.zones_only:
        zone_modes(size)
        return
    print_claims(claims(experiments(size, not args.no_clustered)))
    zone_modes(size)


if __name__ == "__main__":
    main()
