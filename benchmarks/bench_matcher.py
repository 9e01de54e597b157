"""The project's matchers on a workload of REIN's shape, beside REIN's figures.

Workload (generated here, seeded; the shape of REIN's generator, Qian et al., "REIN: a fast event
matching approach for content-based publish/subscribe systems", INFOCOM 2014): 20 integer
attributes on [0, 10^6), subscriptions of 10 distinct attributes each with an interval predicate
of width half the domain (lo uniform on [0, 500000), hi = lo + 500000), complete events (a value
for every attribute, uniform), 200 events.

Matchers:
- `bucket`: the engine of `oracle-indexed` (conformance/variants/bucket_matcher.py), built from
  predicate columns (`add_columns`), no object per subscription;
- `bitset`: the engine it replaced (`BitsetMatcher`, conformance/variants/indexed_matcher.py),
  fed Subscription objects (their making is not timed); by default only up to 10^5
  subscriptions (`--bitset-max`): at 10^6 it needs minutes and gigabytes;
- the brute-force check: every event against every predicate with numpy, the set of matched
  subscriptions compared with each matcher's (so every match count agrees); and the reference
  oracle (reference/common/matching.py `matches`) on the first `--oracle-events` events up to
  10^5 subscriptions.

Per event: the time of `match(event)` (the ids of the matched subscriptions), the least over
`--repeat` passes over the 200 events. Build: from the columns to a built index. Memory: the peak
of tracemalloc (numpy's allocations are traced) during the build, and the bytes the matcher keeps
(its arrays; the id strings are the caller's), beside a flat array of the predicates
(int32 subscription, int32 attribute, float64 lo and hi: 24 bytes a predicate).

REIN's figures: Qian et al., REIN; the figures measured separately on an idle 2-core machine with
g++ -O2, as stated in docs (docs/matcher.md). REIN is never built here.

`--conformance N`: also the CPU time per op of `oracle-indexed` as `conform --ops` runs it (the
fingerprint path) on N traces of each generator's `large` profile, on both engines, and of
`reference-array`; their fingerprints must agree.

Run: python -m benchmarks.bench_matcher [--quick] [--sizes 10000,100000,1000000] [--conformance N]
Exit 1 if a matcher disagrees with brute force, or a target is missed by CPU time (the process's
own time: on a loaded machine the wall time counts other processes' turns too; both are printed,
and the verdicts for both).
"""

from __future__ import annotations

import argparse
import gc
import os
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pubsub_spec.conformance.variants.bucket_matcher import BucketMatcher
from pubsub_spec.conformance.variants.indexed_matcher import BitsetMatcher
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Attribute, Event, Predicate, Schema, Subscription

ATTRS, DOMAIN, PER_SUB, WIDTH, EVENTS = 20, 1_000_000, 10, 500_000, 200
FLAT_BYTES = 24  # a predicate in a flat array: int32 sub, int32 attribute, float64 lo, hi
# REIN (Qian et al.): ms/event and insert time in s, measured separately (docs/matcher.md)
REIN = {10_000: (0.115, 0.004), 100_000: (0.91, 0.033), 1_000_000: (9.9, 0.36)}
SCHEMA = Schema("rein", tuple(Attribute(f"a{k}", "int", 0, DOMAIN - 1) for k in range(ATTRS)))


@dataclass
class Workload:
    ids: list[str]
    sub: Any  # per predicate: subscription number, attribute number, lo, hi
    attr: Any
    lo: Any
    hi: Any
    values: Any  # (events, attributes)
    events: list[Event]


def workload(n: int, seed: int, events: int = EVENTS) -> Workload:
    rng = np.random.default_rng([seed, n])
    attr = np.argsort(rng.random((n, ATTRS)), axis=1)[:, :PER_SUB].astype(np.int32).ravel()
    sub = np.repeat(np.arange(n, dtype=np.int32), PER_SUB)
    lo = rng.integers(0, DOMAIN - WIDTH, size=n * PER_SUB).astype(np.float64)
    hi = lo + WIDTH
    values = rng.integers(0, DOMAIN, size=(events, ATTRS))
    evs = [
        Event(f"e{i}", "p", "rein", tuple((f"a{k}", int(v)) for k, v in enumerate(row)))
        for i, row in enumerate(values.tolist())
    ]
    return Workload([f"s{i}" for i in range(n)], sub, attr, lo, hi, values, evs)


def subscriptions(w: Workload) -> list[Subscription]:
    n = len(w.ids)
    attr = w.attr.reshape(n, PER_SUB).tolist()
    lo = w.lo.reshape(n, PER_SUB).astype(np.int64).tolist()
    return [
        Subscription(
            w.ids[i], "n", "rein",
            tuple(Predicate(f"a{k}", b, b + WIDTH) for k, b in zip(attr[i], lo[i], strict=True)),
        )
        for i in range(n)
    ]  # fmt: skip


def brute_force(w: Workload) -> list[Any]:
    """Per event, the numbers of the matched subscriptions: every predicate compared."""
    n = len(w.ids)
    out = []
    for row in w.values:
        v = row[w.attr].astype(np.float64)
        failed = np.zeros(n, bool)
        failed[w.sub[(w.lo > v) | (w.hi < v)]] = True
        out.append(np.flatnonzero(~failed))
    return out


@dataclass
class Measured:
    name: str
    ms_event: float  # wall
    ms_event_cpu: float  # CPU time of this process
    build_s: float
    build_cpu: float
    peak: int  # bytes, tracemalloc
    kept: int | None  # bytes of the matcher's arrays, if it can tell
    ok: bool


def timed_events(match: Callable[[Event], list[str]], events: list[Event], repeat: int) -> tuple[
    float, float, list[list[str]]
]:  # fmt: skip
    """ms/event, wall and CPU, each the least over `repeat` passes; the last pass's matches."""
    best, best_cpu, got = float("inf"), float("inf"), []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        got = [match(e) for e in events]
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best * 1000 / len(events), best_cpu * 1000 / len(events), got


def timed(make: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall and CPU seconds of make(), and what it made."""
    t0, c0 = time.perf_counter(), time.process_time()
    obj = make()
    return time.perf_counter() - t0, time.process_time() - c0, obj


def traced_peak(make: Callable[[], Any]) -> tuple[int, Any]:
    gc.collect()
    tracemalloc.start()
    try:
        obj = make()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, obj


def run_bucket(w: Workload, truth: list[Any], repeat: int) -> Measured:
    def make() -> BucketMatcher:
        m = BucketMatcher(SCHEMA, "strict")
        m.add_columns(w.ids, w.sub, w.attr, w.lo, w.hi)
        m.build()
        return m

    build, build_cpu, m = timed(make)
    ms, ms_cpu, got = timed_events(m.match, w.events, repeat)
    ok = all(g == [w.ids[i] for i in t.tolist()] for g, t in zip(got, truth, strict=True))
    kept = m.nbytes()
    del m
    peak, m = traced_peak(make)
    del m
    return Measured("bucket (oracle-indexed)", ms, ms_cpu, build, build_cpu, peak, kept, ok)


def run_bitset(w: Workload, truth: list[Any], repeat: int) -> Measured:
    subs = subscriptions(w)

    def make() -> BitsetMatcher:
        m = BitsetMatcher(SCHEMA, "strict")
        for s in subs:
            m.add(s)
        m.build()
        return m

    build, build_cpu, m = timed(make)
    ms, ms_cpu, got = timed_events(m.match, w.events, repeat)
    ok = all(g == [w.ids[i] for i in t.tolist()] for g, t in zip(got, truth, strict=True))
    del m
    peak, m = traced_peak(make)
    del m
    return Measured("bitset (replaced)", ms, ms_cpu, build, build_cpu, peak, None, ok)


def oracle_agrees(w: Workload, truth: list[Any], events: int) -> bool:
    subs = subscriptions(w)
    for e, t in zip(w.events[:events], truth, strict=False):
        if [s.id for s in subs if matches(s, e, "strict")] != [w.ids[i] for i in t.tolist()]:
            return False
    return True


def mib(b: int) -> str:
    return f"{b / 2**20:.0f} MiB"


def bench(n: int, seed: int, repeat: int, bitset_max: int, oracle_events: int) -> tuple[
    bool, list[str]
]:  # fmt: skip
    """Agreement, and the table rows of size n."""
    w = workload(n, seed)
    t0 = time.perf_counter()
    truth = brute_force(w)
    brute_ms = (time.perf_counter() - t0) * 1000 / len(w.events)
    counts = [t.size for t in truth]
    flat = w.sub.size * FLAT_BYTES
    print(f"\n{n} subscriptions ({w.sub.size} predicates; flat array {mib(flat)}), "
          f"{len(w.events)} events, {sum(counts)} matches "
          f"(per event {min(counts)}..{max(counts)})", flush=True)  # fmt: skip
    print(f"  brute force (numpy, every predicate): {brute_ms:.2f} ms/event")
    good = True
    if oracle_events and n <= 100_000:
        same = oracle_agrees(w, truth, oracle_events)
        good &= same
        print(f"  reference oracle (matching.matches) on the first {oracle_events} events: "
              f"{'agrees' if same else 'DISAGREES'}")  # fmt: skip
    rows = [run_bucket(w, truth, repeat)]
    if n <= bitset_max:
        rows.append(run_bitset(w, truth, repeat))
    else:
        print(f"  bitset (replaced): not run above {bitset_max} subscriptions (--bitset-max)")
    rein = REIN.get(n, (float("nan"), float("nan")))
    table = []
    for r in rows:
        good &= r.ok
        print(f"  {r.name}: brute-force check {'agrees' if r.ok else 'DISAGREES'} on every event")
        kept = f"{mib(r.kept)} ({r.kept / flat:.2f}x)" if r.kept is not None else "-"
        table.append(
            f"| {n} | {r.name} | {rein[0]:.3f} | {r.ms_event:.3f} ({r.ms_event_cpu:.3f}) | "
            f"{r.ms_event / rein[0]:.2f}x ({r.ms_event_cpu / rein[0]:.2f}x) | {rein[1]:.3f} | "
            f"{r.build_s:.3f} ({r.build_cpu:.3f}) | "
            f"{r.build_s / rein[1]:.1f}x ({r.build_cpu / rein[1]:.1f}x) | "
            f"{mib(r.peak)} ({r.peak / flat:.2f}x) | {kept} |"
        )
    b = rows[0]
    if n in REIN:
        for what, ms, build in (("wall", b.ms_event, b.build_s), ("CPU", b.ms_event_cpu,
                                                                   b.build_cpu)):  # fmt: skip
            met = (ms <= rein[0], build <= 5 * rein[1], b.peak <= 2 * flat)
            print(f"  bucket targets by {what} time: ms/event <= REIN: "
                  f"{'met' if met[0] else 'MISSED'}; build <= 5x REIN: "
                  f"{'met' if met[1] else 'MISSED'}; peak memory <= 2x flat: "
                  f"{'met' if met[2] else 'MISSED'}")  # fmt: skip
            if what == "CPU":
                good &= all(met)
    return good, table


def bench_conformance(traces_per_generator: int, seed: int) -> bool:
    """CPU ms per op of `oracle-indexed` (its fingerprint path, as `conform --ops` runs it) on
    the `large` profile's traces of every generator, on the bucket and the bitset engine."""
    from pubsub_spec.conformance.fingerprint import FingerprintSink
    from pubsub_spec.conformance.generators import GENERATORS
    from pubsub_spec.conformance.variants.indexed_matcher import MIN_INDEX, _run
    from pubsub_spec.conformance.variants.thesis_array_sim import array_sim_fingerprint

    traces = [g(seed, i, "large") for g in GENERATORS.values() for i in range(traces_per_generator)]
    ops = sum(len(t.ops) for t in traces)
    got = {}
    for name, engine in (("bucket", BucketMatcher), ("bitset", BitsetMatcher)):
        c0 = time.process_time()
        prints = []
        for t in traces:
            sink = FingerprintSink()
            _run(t, sink, MIN_INDEX, engine)
            prints.append(sink.result())
        got[name] = prints
        print(f"  oracle-indexed on {name}: {(time.process_time() - c0) * 1000 / ops:.4f} CPU "
              f"ms/op ({len(traces)} traces of the large profile, {ops} ops)")  # fmt: skip
    same = got["bucket"] == got["bitset"]
    print(f"  same fingerprints on every trace: {'yes' if same else 'NO'}")
    c0 = time.process_time()
    arr = [array_sim_fingerprint(t) for t in traces]
    print(f"  reference-array (the array simulator, on the bucket engine): "
          f"{(time.process_time() - c0) * 1000 / ops:.4f} CPU ms/op")  # fmt: skip
    agree = arr == got["bucket"]
    print(f"  reference-array's fingerprints equal the oracle's: {'yes' if agree else 'NO'}")
    return same and agree


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument("--quick", action="store_true", help="10^4 subscriptions only")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--bitset-max", type=int, default=100_000)
    p.add_argument("--oracle-events", type=int, default=10)
    p.add_argument("--conformance", type=int, default=0, metavar="N",
                   help="also oracle-indexed per op on N traces of each generator (large)")
    a = p.parse_args(argv)
    sizes = [10_000] if a.quick else [int(s) for s in a.sizes.split(",")]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; REIN: Qian et al., "
          "REIN; the figures measured separately on an idle 2-core machine with g++ -O2, as "
          "stated in docs (docs/matcher.md)")  # fmt: skip
    t0 = time.perf_counter()
    warm = BucketMatcher(SCHEMA, "strict")
    warm.add_columns(["w"], [0], [0], [0.0], [1.0])  # a bulk load: the build kernel
    warm.add_columns(["x"], [0], [1], [0.0], [1.0])  # the tail, then a rebuild
    warm.match(Event("e", "p", "rein", (("a0", 0),)))
    warm.build()
    warm.match(Event("e", "p", "rein", (("a0", 0),)))
    print(f"JIT (numba, cache=True): kernels ready in {time.perf_counter() - t0:.2f} s", flush=True)
    good = True
    table = [
        "| subscriptions | matcher | REIN ms/event | ms/event wall (CPU) | ratio wall (CPU) | "
        "REIN build s | build s wall (CPU) | ratio wall (CPU) | peak memory (x flat) | "
        "kept (x flat) |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n in sizes:
        ok, rows = bench(n, a.seed, a.repeat, a.bitset_max, a.oracle_events)
        good &= ok
        table += rows
    if a.conformance:
        print("\nconform --ops traces:")
        good &= bench_conformance(a.conformance, a.seed)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end; wall and (CPU) times; ms/event the "
          f"least over {a.repeat} passes; memory by tracemalloc\n")  # fmt: skip
    print("\n".join(table))
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
