"""Kyra, its two baselines and the thesis' 2d-tree system on the same workloads (docs/kyra.md,
"Benchmark").

The paper's evaluation (§IV-V) is lost; what survives are claims (C1-C5, docs/kyra.md
"Benchmark"):
C1 Kyra's network efficiency is close to filter-based routing (Siena);
C2 it "significantly reduces" storage, processing and traffic load;
C3 it balances routing load;
C4 it is independent of data characteristics;
C5 multicast groups are "highly sensitive" to the data distribution, poor when uniform.
They are printed beside the figures as *directions* (what the claim predicts, and whether the
run goes that way); nothing is asserted.

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

Run: python -m benchmarks.bench_kyra [--quick] [--nodes N --subs S --events E --seed K]
Not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pubsub_spec.reference.common.model import Event, Predicate, Subscription
from pubsub_spec.reference.common.ops import Op, Publish, Subscribe, Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.kyra.base import BrokerMetrics, BrokerSystem
from pubsub_spec.reference.kyra.config import KyraConfig
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.run import compare, run_trace
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.thesis.system import TwoDTreeSystem
from pubsub_spec.reference.thesis.workload import thesis_schema, thesis_trace

SYSTEM_NAMES = ("kyra", "siena", "mcgroups", "thesis")
EVENT_KINDS = {
    "kyra": ("EventToZone", "EventRoute", "Notify"),
    "siena": ("EventRoute",),
    "mcgroups": ("EventToGroup", "EventMulticast"),
    "thesis": ("ProbePubMulticast", "ProbePub", "EventDelivery"),
}
CLUSTERS = 8  # clustered placement: 8 Gaussian clusters of standard deviation 0.05


@dataclass(frozen=True)
class Row:
    system: str
    records_mean: float
    records_max: int
    match_ops: float | None  # per event; None where the system does not count them
    msgs: float  # event-side messages per event
    bytes: float
    uninterested: float | None
    hops_per_send: float
    latency_mean: float
    latency_p95: float
    load_sent: float  # max/mean event messages sent per server
    load_recv: float | None  # max/mean events received per server (brokers)
    agree: bool
    seconds: float


def uniform_trace(nodes: int, subs_per_node: float, events: int, seed: int) -> Trace:
    """The uniform workload on the thesis schema (Table 4.2): each attribute is present with
    probability 1/2 in a subscription (at least one), with a range centred uniformly in the
    domain and a width uniform in [0, 1/4] of it; events carry every attribute, uniform."""
    schema = thesis_schema()
    ops: list[Op] = []
    n_subs = round(nodes * subs_per_node)
    for i in range(n_subs):
        rng = random.Random(f"{seed}:uniform-sub:{i}")
        who = f"n{rng.randrange(nodes)}"
        present = [a for a in schema.attributes if rng.random() < 0.5] or [
            rng.choice(schema.attributes)
        ]
        preds = []
        for a in present:
            width = a.max - a.min
            centre = rng.uniform(a.min, a.max)
            half = rng.uniform(0.0, 0.25) * width / 2
            lo = round(max(a.min, centre - half), 3)
            hi = round(min(a.max, centre + half), 3)
            preds.append(Predicate(a.name, lo, max(lo, hi)))
        ops.append(Subscribe(i + 1, Subscription(f"s{i}", who, schema.name, tuple(preds))))
    for j in range(events):
        rng = random.Random(f"{seed}:uniform-event:{j}")
        who = f"n{rng.randrange(nodes)}"
        vals = tuple((a.name, round(rng.uniform(a.min, a.max), 3)) for a in schema.attributes)
        ops.append(Publish(n_subs + j + 1, Event(f"e{j}", who, schema.name, vals)))
    return Trace(
        (schema,),
        tuple(ops),
        initial_nodes=nodes,
        matching="strict",
        seed=seed,
        generator="uniform-bench",
        trace_id=f"uniform-{nodes}x{subs_per_node}x{events}-s{seed}",
    )


def make_of(system: str) -> Callable[[Trace], System[Any]]:
    """The system's default built-in (`reference` for the thesis)."""
    return SYSTEMS[system].variants[0].make


def _ratio(values: list[int]) -> float:
    mean = sum(values) / len(values) if values else 0.0
    return max(values) / mean if mean else 0.0


def records_of(sys: System[Any]) -> dict[str, int]:
    if isinstance(sys, BrokerSystem):
        return sys.table_records()
    assert isinstance(sys, TwoDTreeSystem)
    return {
        p.name: sum(
            len(n.points) + (len(n.lnrt) if n.lnrt is not None else 0) for n in p.nodes.values()
        )
        for p in sys.peers.values()
    }


def measure(system: str, trace: Trace, expected: list[Any]) -> Row:
    t0 = time.perf_counter()
    res = run_trace(trace, make_of(system))
    secs = time.perf_counter() - t0
    m, sys = res.metrics, res.system
    events = max(1, sum(1 for op in trace.ops if isinstance(op, Publish)))
    kinds = EVENT_KINDS[system]
    recs = records_of(sys)
    peers = sorted(recs)
    sent: Counter[str] = Counter()
    for (peer, kind), n in m.peer_messages.items():
        if kind in kinds:
            sent[peer] += n
    lat = sorted(m.delivery_latency_ms)
    sends = sum(m.sends[k] for k in kinds)
    msgs = sum(m.messages[k] for k in kinds)
    return Row(
        system,
        statistics.fmean(recs.values()) if recs else 0.0,
        max(recs.values(), default=0),
        sum(m.match_ops.values()) / events if isinstance(m, BrokerMetrics) else None,
        msgs / events,
        sum(m.bytes[k] for k in kinds) / events,
        sum(m.uninterested.values()) / events if isinstance(m, BrokerMetrics) else None,
        msgs / sends if sends else 0.0,
        statistics.fmean(lat) if lat else 0.0,
        lat[int(0.95 * (len(lat) - 1))] if lat else 0.0,
        _ratio([sent[p] for p in peers]),
        _ratio([m.events_received[p] for p in peers]) if isinstance(m, BrokerMetrics) else None,
        compare(expected, res.deliveries).agree,
        secs,
    )


def _opt(v: float | None, fmt: str) -> str:
    return "-" if v is None else format(v, fmt)


def print_table(rows: list[Row]) -> None:
    print(
        "| system | records/server mean (max) | match ops/event | msgs/event | bytes/event "
        "| uninterested/event | hops/send | latency ms mean / p95 | load sent max/mean "
        "| load recv max/mean | oracle | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r.system} | {r.records_mean:,.1f} ({r.records_max:,}) "
            f"| {_opt(r.match_ops, ',.0f')} "
            f"| {r.msgs:.1f} | {r.bytes:,.0f} | {_opt(r.uninterested, '.1f')} "
            f"| {r.hops_per_send:.2f} | {r.latency_mean:.0f} / {r.latency_p95:.0f} "
            f"| {r.load_sent:.2f} | {_opt(r.load_recv, '.2f')} "
            f"| {'agree' if r.agree else 'DISAGREE'} | {r.seconds:.1f} |"
        )


def _dir(ok: bool, flat: bool = False) -> str:
    """The direction of a run against a claim; `flat` when the ratio is within 10% of 1 and
    the claim predicts a change (too small to read a direction in)."""
    if flat:
        return "flat (within 10%)"
    return "as claimed" if ok else "against the claim"


def _flat(ratio: float) -> bool:
    return 0.9 <= ratio <= 1.1


def print_claims(runs: dict[tuple[str, str], dict[str, Row]]) -> None:
    """C1-C5 (docs/kyra.md, "Benchmark") as directions: the ratio measured and whether it goes
    the claim's way."""
    print("\n## Claims C1-C5 as directions (not asserted)\n")
    print("| run | claim | measure | value | direction |")
    print("|---|---|---|---|---|")
    for (wl, pl), rows in runs.items():
        k, s, g = rows["kyra"], rows["siena"], rows["mcgroups"]
        run = f"{wl}/{pl}"
        lat = k.latency_mean / s.latency_mean if s.latency_mean else 0.0
        print(
            f"| {run} | C1 network efficiency close to Siena | Kyra/Siena latency | "
            f"{lat:.2f} | {_dir(0.67 <= lat <= 1.5)} |"
        )
        for name, kv, sv in (
            ("storage: table records", k.records_mean, s.records_mean),
            ("processing: match ops", k.match_ops or 0.0, s.match_ops or 0.0),
            ("traffic: event msgs", k.msgs, s.msgs),
        ):
            ratio = kv / sv if sv else 0.0
            print(
                f"| {run} | C2 reduces {name.split(':')[0]} | Kyra/Siena {name.split(': ')[1]} "
                f"| {ratio:.2f} | {_dir(ratio < 1.0, _flat(ratio))} |"
            )
        print(
            f"| {run} | C3 balances routing load | recv max/mean Kyra vs Siena | "
            f"{_opt(k.load_recv, '.2f')} vs {_opt(s.load_recv, '.2f')} | "
            f"{_dir((k.load_recv or 0.0) <= (s.load_recv or 0.0))} |"
        )
        print(
            f"| {run} | C5 multicast wastes (uninterested) | mcgroups/Kyra uninterested | "
            f"{(g.uninterested or 0.0) / max(1e-9, k.uninterested or 0.0):.2f} | "
            f"{_dir((g.uninterested or 0.0) > (k.uninterested or 0.0))} |"
        )
    for pl in sorted({pl for _, pl in runs}):
        if ("zipf", pl) in runs and ("uniform", pl) in runs:
            z, u = runs[("zipf", pl)], runs[("uniform", pl)]
            kr = u["kyra"].msgs / z["kyra"].msgs if z["kyra"].msgs else 0.0
            sr = u["siena"].msgs / z["siena"].msgs if z["siena"].msgs else 0.0
            gr = (u["mcgroups"].uninterested or 0.0) / max(1e-9, z["mcgroups"].uninterested or 0.0)
            print(
                f"| {pl} | C4 Kyra independent of data | Kyra msgs uniform/zipf (Siena) | "
                f"{kr:.2f} ({sr:.2f}) | {_dir(abs(kr - 1.0) <= abs(sr - 1.0) + 0.25)} |"
            )
            print(
                f"| {pl} | C5 multicast poor when uniform | mcgroups uninterested "
                f"uniform/zipf | {gr:.2f} | {_dir(gr > 1.0, _flat(gr))} |"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="60 servers, 3 subs each, 200 events")
    ap.add_argument("--nodes", type=int, default=200)
    ap.add_argument("--subs", type=float, default=5.0)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.quick:
        args.nodes, args.subs, args.events = 60, 3.0, 200
    workloads: dict[str, Callable[[int, float, int, int], Trace]] = {
        "zipf": thesis_trace,
        "uniform": uniform_trace,
    }
    runs: dict[tuple[str, str], dict[str, Row]] = {}
    for wl, gen in workloads.items():
        base = gen(args.nodes, args.subs, args.events, args.seed)
        expected = expected_deliveries(base)
        for pl in ("uniform", "clustered"):
            cfg = KyraConfig(placement_clusters=CLUSTERS if pl == "clustered" else 0)
            trace = base
            for section in ("kyra", "siena", "mcgroups"):
                trace = trace.with_section(section, cfg)
            print(
                f"\n## {wl} workload, {pl} placement: {args.nodes} servers, "
                f"{args.subs:g} subs each, {args.events} events, seed {args.seed}\n"
            )
            names = SYSTEM_NAMES if pl == "uniform" else SYSTEM_NAMES[:3]
            rows = {n: measure(n, trace, expected) for n in names}
            print_table(list(rows.values()))
            runs[(wl, pl)] = rows
    print_claims(runs)


if __name__ == "__main__":
    main()
