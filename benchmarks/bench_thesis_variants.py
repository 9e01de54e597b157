"""Speed-up of the optimised variants over the reference, both measured in one run:

1. the array-based simulator (`reference-array`, conformance/variants/thesis_array_sim.py) against
the
   reference simulator on the Table 4.1 workload: 1000 nodes, 5 subscriptions per node, 10,000
   events (target >= 10x); both runs must deliver the same set;
2. the indexed matcher (`oracle-indexed`, conformance/variants/indexed_matcher.py)
   against brute-force matching (reference/common/matching.py) at 100,000 subscriptions
   (target >= 50x); both must return the same subscriptions for every event.

Run: python -m benchmarks.bench_thesis_variants [--quick] [--only simulator|matcher]
(--quick: a tenth of the events and of the subscriptions; the targets are for the full sizes.)
"""

from __future__ import annotations

import argparse
import time

from pubsub_spec.conformance.variants.indexed_matcher import IndexedMatcher
from pubsub_spec.conformance.variants.thesis_array_sim import run_array_sim
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.ops import Publish, Subscribe
from pubsub_spec.reference.thesis.run import run_trace
from pubsub_spec.reference.thesis.workload import thesis_trace


def _verdict(ratio: float, target: float) -> str:
    return f"target >= {target:.0f}x: {'met' if ratio >= target else 'MISSED'}"


def bench_simulator(nodes: int, subs_per_node: float, events: int) -> float:
    trace = thesis_trace(nodes, subs_per_node, events, seed=1)
    t0 = time.perf_counter()
    ref = run_trace(trace)
    t1 = time.perf_counter()
    arr = run_array_sim(trace)
    t2 = time.perf_counter()
    same = sorted(ref.deliveries) == sorted(arr.deliveries)
    ratio = (t1 - t0) / (t2 - t1)
    print(f"simulator: {nodes} nodes, {subs_per_node:g} subscriptions per node, {events} events")
    print(f"  reference:   {t1 - t0:8.2f} s  ({len(ref.deliveries)} deliveries)")
    print(f"  array-based: {t2 - t1:8.2f} s  ({len(arr.deliveries)} deliveries)")
    print(f"  same deliveries: {'yes' if same else 'NO'}")
    print(f"  speed-up: {ratio:.1f}x ({_verdict(ratio, 10)})")
    if not same:
        raise SystemExit("the array-based simulator disagrees with the reference")
    return ratio


def bench_matcher(n_subs: int, n_events: int) -> float:
    trace = thesis_trace(1000, n_subs / 1000, n_events, seed=1)
    subs = [op.sub for op in trace.ops if isinstance(op, Subscribe)]
    events = [op.event for op in trace.ops if isinstance(op, Publish)]
    matcher = IndexedMatcher(trace.schemas[0], "strict")
    t0 = time.perf_counter()
    for s in subs:
        matcher.add(s)
    matcher.build()
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = [[s.id for s in subs if matches(s, e, "strict")] for e in events]
    t1 = time.perf_counter()
    fast = [matcher.match(e) for e in events]
    t2 = time.perf_counter()
    if slow != fast:
        raise SystemExit("the indexed matcher disagrees with brute force")
    ratio = (t1 - t0) / (t2 - t1)
    per = 1000 / len(events)
    print(f"matcher: {len(subs)} subscriptions, {len(events)} events, "
          f"{sum(map(len, slow))} matches")  # fmt: skip
    print(f"  brute force: {(t1 - t0) * per:8.3f} ms/event")
    print(f"  indexed:     {(t2 - t1) * per:8.3f} ms/event (index built in {build:.2f} s)")
    print(f"  speed-up: {ratio:.1f}x ({_verdict(ratio, 50)})")
    return ratio


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", choices=["simulator", "matcher"])
    a = p.parse_args()
    scale = 10 if a.quick else 1
    met = True
    if a.only in (None, "simulator"):
        met &= bench_simulator(1000, 5, 10_000 // scale) >= 10
    if a.only in (None, "matcher"):
        met &= bench_matcher(100_000 // scale, 200) >= 50
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
