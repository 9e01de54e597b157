"""Speed-up of the indexed matcher over brute-force matching (reference/matching.py), measured
in one run: 100,000 subscriptions of the thesis' workload installed, then the same events
matched by both (target: >= 50x).

Run: python -m benchmarks.bench_matcher [--subs N] [--events N]
"""

from __future__ import annotations

import argparse
import time

from conformance.variants.indexed_matcher import IndexedMatcher
from reference.matching import matches
from reference.ops import Publish, Subscribe
from reference.workload import thesis_trace


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--subs", type=int, default=100_000)
    p.add_argument("--events", type=int, default=200)
    a = p.parse_args()
    trace = thesis_trace(1000, a.subs / 1000, a.events, seed=1)
    subs = [op.sub for op in trace.ops if isinstance(op, Subscribe)]
    events = [op.event for op in trace.ops if isinstance(op, Publish)]
    matcher = IndexedMatcher(trace.schemas[0], "strict")
    t0 = time.perf_counter()
    for s in subs:
        matcher.add(s)
    build = time.perf_counter() - t0
    t0 = time.perf_counter()
    slow = [[s.id for s in subs if matches(s, e, "strict")] for e in events]
    t1 = time.perf_counter()
    fast = [matcher.match(e) for e in events]
    t2 = time.perf_counter()
    assert slow == fast, "the indexed matcher disagrees with brute force"
    ratio = (t1 - t0) / (t2 - t1)
    print(f"{len(subs)} subscriptions, {len(events)} events, {sum(map(len, slow))} matches")
    print(
        f"brute force: {(t1 - t0) / len(events) * 1000:.2f} ms/event; indexed: "
        f"{(t2 - t1) / len(events) * 1000:.3f} ms/event (index built in {build:.2f} s)"
    )
    print(f"speed-up: {ratio:.1f}x (target >= 50x: {'met' if ratio >= 50 else 'MISSED'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
