"""The fault kit's catch rate on the default `pubsub-spec conform` trace set: every
realistic fault of conformance/examples/faultkit.py run against every trace of the set, with the
verdict, whether it was caught for the right reason, how many traces fail, and the size of the
smallest failing trace (delta debugging, conformance/shrink.py). Prints figures; asserts nothing.

Run: python -m benchmarks.bench_conformance_faults [--count 3] [--profile small] [--budget 60]
"""

from __future__ import annotations

import argparse
import time

from pubsub_spec.conformance.faults import catch_rate, default_traces, median_shrunk, run_kit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=3, help="traces per generator (conform: 3)")
    ap.add_argument("--profile", default="small")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=int, default=60, help="shrink attempts per fault")
    args = ap.parse_args()
    start = time.monotonic()
    traces = default_traces(args.seed, args.count, args.profile)
    results = run_kit(traces, shrink_budget=args.budget)
    print(f"default trace set: {len(traces)} traces ({args.profile}, {args.count} per generator)")
    print(f"{'fault':<20}{'verdict':<12}{'right reason':<14}{'failing':>8}{'shrunk ops':>12}")
    for r in results:
        shrunk = "-" if r.shrunk_ops is None else str(r.shrunk_ops)
        print(f"{r.fault:<20}{r.verdict:<12}{'yes' if r.right_reason else 'NO':<14}"
              f"{r.failing:>8}{shrunk:>12}")  # fmt: skip
    med = median_shrunk(results)
    print(
        f"catch rate {catch_rate(results):.0%} ({len(results)} faults); median shrunk trace "
        f"{'-' if med is None else f'{med:g} ops'}; {time.monotonic() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
