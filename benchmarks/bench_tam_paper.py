"""Tam, Azimi and Jacobsen (DBISP2P 2003), §5, claim by claim: the paper's evaluation rerun on
its own workload (Table 2, reference/tam/workload.py, decision T16) with the `tam` system
(content-based pub/sub over Scribe), each claim judged against a criterion stated here, before
the run (docs/tam.md, "The paper's evaluation, claim by claim").

The paper's copy has lost its digits, so the criteria are the claims' shapes (a hit rate set by
the index, a quadratic growth, an increase smaller than expected, ...), each with a tolerance:

- H  (§5, "to enforce a hit rate of ..."): the four indices of T16 give hit rates within
  +-2 percentage points of 100, 50, 33.3 and 25 %.
- Q  (§5, "message traffic ... grows approximately quadratically with the number of
  subscriptions and publications"): the log-log slope of total messages against n lies in
  [1.6, 2.2] once n/K >= 10 (K: distinct keys of the index); below that, with Table 2's
  K = 12,000, the slope is near 1 (the explanation: a publication reaches ~n/K members).
- L  (§5, "we expect a hit rate of 50 % means a node receives twice the publication messages
  ... the observed increase is smaller"): for each lower hit rate h, 1 < msgs(h)/msgs(100 %) <
  1/h at the largest n.
- S  (§5, "the low hit rate curve shows a relatively steep traffic increase"): the slope of the
  25 % curve exceeds the 100 % curve's by at least 0.1.
- N  (§5, Fig. 2: the system "scales" with the number of nodes): the log-log slope of total
  messages against the number of nodes, n fixed, is below 0.5.
- R1 (§5, Fig. 3, one range: a predicate `price op c` with op uniform over <, =, >): mean
  digests per drawn subscription = V_price / 3 within 5 %.
- R2 (§5, Fig. 3: the observed increase is below the expected one, credited to the multicast
  trees): 1 < msgs(1 range)/msgs(0 ranges) < V_price/3 and 1 < msgs(2)/msgs(1) < V_volume/3.

Run: python -m benchmarks.bench_tam_paper [--quick]
Every run is a seeded `run_trace` of the `tam` built-in; the same arguments print the same
tables. Not a test (tests/test_tam_workload.py pins the workload)."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

# the experiments live in the package, so that `pubsub-spec figures` runs the same code
# (pubsub_spec/figures_tam.py); the names are re-exported for this module's users
from pubsub_spec.figures_tam import (
    QUICK,
    SMALL_VALUES,
    Measured,
    Run,
    Sizes,
    full_sizes,
    judge,
    measure_all,
    run_tam,
    slope,
    verdict,
)

__all__ = [
    "QUICK",
    "SMALL_VALUES",
    "Measured",
    "Run",
    "Sizes",
    "full_sizes",
    "judge",
    "measure_all",
    "run_tam",
    "slope",
    "verdict",
]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller sizes (a smoke run)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nodes", type=int, default=1000)
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    sizes = QUICK if a.quick else full_sizes(a.nodes)
    claims = judge(measure_all(sizes, a.seed), not a.quick)
    print("\n## Claims\n")
    print("| claim | criterion (stated before the run) | ours | verdict |")
    print("|---|---|---|---|")
    for c in claims:
        print(f"| {' | '.join(c)} |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
