"""Tam, Azimi and Jacobsen (DBISP2P 2003) measured: the shapes of the paper's figures and a
side-by-side table with the thesis' 2d-tree system on the same workload.

Our copy of the paper has lost every digit, so the paper's numbers cannot be compared; what is
compared is the shape of each curve (docs/tam.md, "Benchmark"):

1. messages against the number of subscribers (fixed network) and against the network size
   (fixed subscriptions per node), for `tam` (Scribe) and `tam-basic` (home nodes), §5;
2. the hit rate by index-selection policy (`first`, `fewest-keys`, `all`), §3.6, §5;
3. keys per range subscription against the number of intervals per attribute, §3.5;
4. the load at rendezvous nodes: subscriptions stored per home (`tam-basic`), tree sizes and
   per-peer messages (`tam`), §3.2, §3.3;
5. Pastry route lengths against log16 N (the overlay both systems share);
6. on the thesis workload (`thesis_trace`, same seeds): the 2d-tree (`reference`) against `tam`
   and `tam-basic`: messages and bytes per subscription and per event, delivery latency,
   per-node load (max / mean messages sent), hit rate / false positives, agreement with the
   oracle.

Every run is a `reference.sim.run.run_trace` of a seeded trace; the same seeds give the same
tables. Not a test.

Run: python -m benchmarks.bench_tam [--quick] [--nodes N --subs S --events E --seeds K]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import expected_deliveries
from pubsub_spec.reference.overlay.pastry import PastryRing, sha1_id
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.run import RunResult, compare, run_trace
from pubsub_spec.reference.sim.system import System
from pubsub_spec.reference.tam.config import BASIC_SECTION, SECTION, IndexPolicy, TamConfig
from pubsub_spec.reference.tam.system import TamBasicSystem, TamMetrics, TamSystem
from pubsub_spec.reference.thesis.metrics import TreeMetrics
from pubsub_spec.reference.thesis.workload import thesis_trace

# message types by what causes them (docs/tam.md "Benchmark"): subscription-side (installation
# and tree or index maintenance) and event-side (routing and delivery of publications)
SUB_KINDS = {
    "reference": ("ProbeSub", "InsertSub", "LeafUpdate", "TransferSub"),
    "tam": ("ScribeJoin", "ScribeLeave"),
    "tam-basic": ("TamSubscribe", "TamUnsubscribe", "TamTransfer"),
}
EVENT_KINDS = {
    "reference": ("ProbePubMulticast", "ProbePub", "EventDelivery"),
    "tam": ("ScribePublish", "ScribeMulticast"),
    "tam-basic": ("TamPublish", "TamNotify"),
}
SYSTEM_OF = {"reference": "thesis", "tam": "tam", "tam-basic": "tam-basic"}


@dataclass(frozen=True)
class Row:
    """One run's figures."""

    system: str
    subs: int
    events: int
    peers: int
    sub_msgs: int
    sub_bytes: int
    event_msgs: int
    event_bytes: int
    latency_ms: float
    latency_p95_ms: float
    load_max: int
    load_mean: float
    hit_rate: float | None  # Tam's hit rate (T13); the 2d-tree: deliveries / notifications
    false_positives: int
    agree: bool
    seconds: float


def make_of(builtin: str) -> Callable[[Trace], System[Any]]:
    """The factory of a conformance built-in (`reference`, `tam`, `tam-basic`)."""
    for v in SYSTEMS[SYSTEM_OF[builtin]].variants:
        if v.builtin == builtin:
            return v.make
    raise KeyError(builtin)


def with_tam(trace: Trace, config: TamConfig) -> Trace:
    return trace.with_section(SECTION, config).with_section(BASIC_SECTION, config)


def measure(builtin: str, trace: Trace, oracle: bool = True) -> tuple[Row, RunResult[Any]]:
    t0 = time.perf_counter()
    res = run_trace(trace, make_of(builtin))
    secs = time.perf_counter() - t0
    m = res.metrics
    peers = res.system.peer_count()
    per_peer: Counter[str] = Counter()
    for (peer, _kind), n in m.peer_messages.items():
        per_peer[peer] += n
    lat = sorted(m.delivery_latency_ms)
    delivered = len(res.deliveries)
    if isinstance(m, TamMetrics):
        hit: float | None = m.hit_rate
        fp = m.misses
    elif isinstance(m, TreeMetrics):
        fp = m.false_positives
        hit = delivered / (delivered + fp) if delivered + fp else 1.0
    else:
        hit, fp = None, 0
    agree = compare(expected_deliveries(trace), res.deliveries).agree if oracle else True
    subs = sum(1 for op in trace.ops if type(op).__name__ == "Subscribe")
    events = sum(1 for op in trace.ops if type(op).__name__ == "Publish")
    row = Row(
        builtin,
        subs,
        events,
        peers,
        sum(m.messages[k] for k in SUB_KINDS[builtin]),
        sum(m.bytes[k] for k in SUB_KINDS[builtin]),
        sum(m.messages[k] for k in EVENT_KINDS[builtin]),
        sum(m.bytes[k] for k in EVENT_KINDS[builtin]),
        statistics.fmean(lat) if lat else 0.0,
        lat[int(0.95 * (len(lat) - 1))] if lat else 0.0,
        max(per_peer.values(), default=0),
        sum(per_peer.values()) / max(1, peers),
        hit,
        fp,
        agree,
        secs,
    )
    return row, res


def _hit(h: float | None) -> str:
    return "-" if h is None else f"{h:.1%}"


# -- 6. side by side -----------------------------------------------------------------------------
def side_by_side(nodes: int, subs: float, events: int, seeds: Sequence[int]) -> None:
    print(f"\n## Side by side: thesis_trace({nodes}, {subs:g}, {events}, s), s in {list(seeds)}")
    print("(means over the seeds; messages are overlay hops, bytes counted at each hop's sender)\n")
    print(
        "| system | msgs/sub | bytes/sub | msgs/event | bytes/event | latency ms (mean / p95) "
        "| load max / mean msgs per peer | hit rate | false positives | oracle | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for builtin in ("reference", "tam", "tam-basic"):
        rows = [measure(builtin, thesis_trace(nodes, subs, events, s))[0] for s in seeds]

        def mean(f: Callable[[Row], float], rows: list[Row] = rows) -> float:
            return statistics.fmean(f(r) for r in rows)

        hits = [r.hit_rate for r in rows if r.hit_rate is not None]
        print(
            f"| {builtin} | {mean(lambda r: r.sub_msgs / r.subs):.1f} "
            f"| {mean(lambda r: r.sub_bytes / r.subs):,.0f} "
            f"| {mean(lambda r: r.event_msgs / r.events):.1f} "
            f"| {mean(lambda r: r.event_bytes / r.events):,.0f} "
            f"| {mean(lambda r: r.latency_ms):.0f} / {mean(lambda r: r.latency_p95_ms):.0f} "
            f"| {mean(lambda r: r.load_max):,.0f} / {mean(lambda r: r.load_mean):,.0f} "
            f"| {_hit(statistics.fmean(hits) if hits else None)} "
            f"| {mean(lambda r: r.false_positives / r.events):.1f}/event "
            f"| {'agree' if all(r.agree for r in rows) else 'DISAGREE'} "
            f"| {mean(lambda r: r.seconds):.1f} |"
        )


# -- 1. messages vs subscribers and vs network size ----------------------------------------------
def scaling(nodes: int, subs: float, events: int, seed: int) -> None:
    print(f"\n## Messages vs subscriptions ({nodes} nodes, {events} events, seed {seed})\n")
    print(
        "| subs/node | subs | tam sub msgs | tam event msgs | basic sub msgs "
        "| basic event msgs |"
    )
    print("|---|---|---|---|---|---|")
    for spn in (1.0, subs / 2, subs, 2 * subs):
        tr = thesis_trace(nodes, spn, events, seed)
        t, _ = measure("tam", tr, oracle=False)
        b, _ = measure("tam-basic", tr, oracle=False)
        print(
            f"| {spn:g} | {t.subs} | {t.sub_msgs:,} | {t.event_msgs:,} | {b.sub_msgs:,} "
            f"| {b.event_msgs:,} |"
        )
    print(f"\n## Messages vs network size ({subs:g} subs/node, {events} events, seed {seed})\n")
    print(
        "| nodes | tam sub msgs / sub | tam event msgs / event | basic sub msgs / sub "
        "| basic event msgs / event |"
    )
    print("|---|---|---|---|---|")
    for n in (nodes // 4, nodes // 2, nodes, 2 * nodes):
        tr = thesis_trace(n, subs, events, seed)
        t, _ = measure("tam", tr, oracle=False)
        b, _ = measure("tam-basic", tr, oracle=False)
        print(
            f"| {n} | {t.sub_msgs / t.subs:.2f} | {t.event_msgs / t.events:.1f} "
            f"| {b.sub_msgs / b.subs:.2f} | {b.event_msgs / b.events:.1f} |"
        )


# -- 2. hit rate by index policy; 3. keys per range subscription ---------------------------------
def policies(nodes: int, subs: float, events: int, seed: int) -> None:
    print(f"\n## Hit rate by index policy (thesis_trace({nodes}, {subs:g}, {events}, {seed}))\n")
    print("| policy | hit rate | misses (false positives) | keys/sub | msgs/event | oracle |")
    print("|---|---|---|---|---|---|")
    base = thesis_trace(nodes, subs, events, seed)
    pol: IndexPolicy
    for pol in ("first", "fewest-keys", "all"):
        row, res = measure("tam", with_tam(base, TamConfig(index_policy=pol)))
        m = res.metrics
        assert isinstance(m, TamMetrics)
        print(
            f"| {pol} | {_hit(row.hit_rate)} | {m.misses:,} "
            f"| {statistics.fmean(m.keys_per_sub):.2f} | {row.event_msgs / row.events:.1f} "
            f"| {'agree' if row.agree else 'DISAGREE'} |"
        )
    print("\n## Keys per range subscription vs intervals per attribute (policy first)\n")
    print("| intervals | keys/sub mean | max | hit rate | sub msgs / sub | groups |")
    print("|---|---|---|---|---|---|")
    for k in (4, 16, 64):
        cfg = TamConfig(default_intervals=k)
        row, res = measure("tam", with_tam(base, cfg), oracle=False)
        m = res.metrics
        assert isinstance(m, TamMetrics) and isinstance(res.system, TamSystem)
        print(
            f"| {k} | {statistics.fmean(m.keys_per_sub):.2f} | {max(m.keys_per_sub)} "
            f"| {_hit(row.hit_rate)} | {row.sub_msgs / row.subs:.2f} "
            f"| {len(res.system.scribe.groups)} |"
        )


# -- 4. load at rendezvous nodes -----------------------------------------------------------------
def rendezvous(nodes: int, subs: float, events: int, seed: int) -> None:
    print(f"\n## Load at rendezvous nodes (thesis_trace({nodes}, {subs:g}, {events}, {seed}))\n")
    tr = thesis_trace(nodes, subs, events, seed)
    _, rb = measure("tam-basic", tr, oracle=False)
    basic = rb.system
    assert isinstance(basic, TamBasicSystem)
    loads = sorted(
        (sum(len(v) for v in at.values()) for at in basic.store.values()), reverse=True
    )
    loads = [x for x in loads if x]
    _, rt = measure("tam", tr, oracle=False)
    tam = rt.system
    assert isinstance(tam, TamSystem)
    sizes = sorted((len(g) for g in tam.scribe.groups.values()), reverse=True)
    print(
        f"- tam-basic: {len(loads)} of {nodes} peers are homes; subscriptions stored per home: "
        f"max {loads[0] if loads else 0}, mean {statistics.fmean(loads) if loads else 0:.1f}, "
        f"top 5 {loads[:5]}"
    )
    print(
        f"- tam: {len(sizes)} groups; tree sizes max {sizes[0] if sizes else 0}, "
        f"mean {statistics.fmean(sizes) if sizes else 0:.1f}, top 5 {sizes[:5]}"
    )
    for name, res in (("tam-basic", rb), ("tam", rt)):
        per: Counter[str] = Counter()
        for (peer, _k), n in res.metrics.peer_messages.items():
            per[peer] += n
        top = sorted(per.values(), reverse=True)
        avg = sum(top) / nodes
        print(
            f"- {name}: messages sent per peer max {top[0] if top else 0:,}, mean {avg:,.0f}, "
            f"max/mean {top[0] / avg if avg else 0:.1f}"
        )


# -- 5. route lengths ----------------------------------------------------------------------------
def routes(sizes: Sequence[int], pairs: int, seed: int) -> None:
    print("\n## Pastry route lengths (hops to the key's home) vs log16 N\n")
    print("| N | mean hops | max | log16 N |")
    print("|---|---|---|---|")
    for n in sizes:
        ring = PastryRing()
        for i in range(n):
            ring.add(sha1_id(f"n{i}"))
        rng = random.Random(f"{seed}:routes:{n}")
        ids = ring.ids
        lens = [len(ring.route(rng.choice(ids), rng.getrandbits(160))) for _ in range(pairs)]
        print(f"| {n} | {statistics.fmean(lens):.2f} | {max(lens)} | {math.log(n, 16):.2f} |")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="100 nodes, 3 subs/node, 300 events")
    p.add_argument("--nodes", type=int, default=300)
    p.add_argument("--subs", type=float, default=5.0)
    p.add_argument("--events", type=int, default=1000)
    p.add_argument("--seeds", type=int, default=2)
    a = p.parse_args()
    nodes, subs, events, seeds = a.nodes, a.subs, a.events, a.seeds
    if a.quick:
        nodes, subs, events, seeds = 100, 3.0, 300, 1
    t0 = time.perf_counter()
    print(f"# bench_tam: nodes {nodes}, subs/node {subs:g}, events {events}, seeds {seeds}")
    side_by_side(nodes, subs, events, range(1, seeds + 1))
    scaling(nodes, subs, events // 2, 1)
    policies(nodes, subs, events, 1)
    rendezvous(nodes, subs, events, 1)
    routes((100, 1000, 10000) if not a.quick else (100, 1000), 2000, 1)
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
