"""Wall time and peak memory of `pubsub-spec simulate` on the thesis' workload (Table 4.1:
1000 nodes, 5 subscriptions per node, 10,000 events). Targets for the reference: under 10
minutes and under 4 GB on a 2-core machine. Run: python -m benchmarks.bench_thesis_simulate
[--quick]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time


def measure(args: list[str]) -> tuple[float, float, str, int]:
    """Run one simulate in a child process; return seconds, peak RSS in MiB, last line, code."""
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pubsub_spec.cli", "simulate", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    secs = time.monotonic() - start
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    lines = proc.stdout.strip().splitlines() or [proc.stderr.strip()]
    return secs, peak_mib, lines[-1], proc.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--quick", action="store_true", help="a tenth of the events")
    p.add_argument("--delivery", default="unicast")
    a = p.parse_args()
    events = 1000 if a.quick else 10000
    args = ["--nodes", "1000", "--subs-per-node", "5", "--events", str(events), "--seed", "1"]
    args += ["--delivery", a.delivery]
    secs, mib, last, code = measure(args)
    print(f"workload: Table 4.1, {events} events, delivery {a.delivery}")
    print(f"wall time: {secs:.1f} s (target < 600 s: {'met' if secs < 600 else 'MISSED'})")
    print(f"peak memory: {mib:.0f} MiB (target < 4096 MiB: {'met' if mib < 4096 else 'MISSED'})")
    print(last)
    return code


if __name__ == "__main__":
    sys.exit(main())
