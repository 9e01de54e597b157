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
tables. Not a test. The experiments live in pubsub_spec/figures_tam_shapes.py, so that
`pubsub-spec figures --only messages,hit-rate,keys,rendezvous,routes` runs the same code and
draws them (with a verdict per figure, on the page docs/figures/tam.md).

Run: python -m benchmarks.bench_tam [--quick] [--nodes N --subs S --events E --seeds K]
"""

from __future__ import annotations

import argparse
import time

# the experiments live in the package (pubsub_spec/figures_tam_shapes.py); the names are
# re-exported for this module's users
from pubsub_spec.figures_tam_shapes import (
    EVENT_KINDS,
    QUICK_SHAPES,
    SUB_KINDS,
    SYSTEM_OF,
    Row,
    Shapes,
    ShapeSizes,
    default_shapes,
    make_of,
    measure,
    measure_shapes,
    print_shapes,
    with_tam,
)

__all__ = [
    "EVENT_KINDS",
    "QUICK_SHAPES",
    "SUB_KINDS",
    "SYSTEM_OF",
    "Row",
    "ShapeSizes",
    "Shapes",
    "default_shapes",
    "make_of",
    "measure",
    "measure_shapes",
    "print_shapes",
    "with_tam",
]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="100 nodes, 3 subs/node, 300 events")
    p.add_argument("--nodes", type=int, default=300)
    p.add_argument("--subs", type=float, default=5.0)
    p.add_argument("--events", type=int, default=1000)
    p.add_argument("--seeds", type=int, default=2)
    a = p.parse_args()
    sizes = QUICK_SHAPES if a.quick else default_shapes(a.nodes, a.subs, a.events, a.seeds)
    t0 = time.perf_counter()
    print(
        f"# bench_tam: nodes {sizes.nodes}, subs/node {sizes.subs:g}, events {sizes.events}, "
        f"seeds {sizes.seeds}"
    )
    print_shapes(measure_shapes(sizes))
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
