"""Branch coverage of the protocol handlers by the step vectors (docs/steps.md, "Coverage").

Replays every committed step vector through the reference's handlers under coverage.py in
branch mode and prints, per system, the branches of its handler functions (the functions each
`StepSystem.coverage` names) taken by the vectors, per function and in total, with the lines
of the branches not taken. Exit status 1 when a system is below the goal (95 %).

    .venv/bin/python scripts/step_coverage.py [--only thesis ...] [--goal 95]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pubsub_spec.conformance.steps.branches import GOAL, measure


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="*", default=(), help="systems (default: all)")
    p.add_argument("--goal", type=float, default=GOAL, help="percent per system (default 95)")
    p.add_argument("-v", "--verbose", action="store_true", help="every function")
    a = p.parse_args(argv)
    below = []
    for name, per in measure(a.only).items():
        taken = sum(t for t, _, _ in per.values())
        total = sum(n for _, n, _ in per.values())
        pct = 100.0 * taken / total if total else 100.0
        print(f"{name}: {taken}/{total} branches of {len(per)} handler functions = {pct:.1f} %")
        for func, (t, n, missed) in per.items():
            if a.verbose or missed:
                gap = f"  not taken: {', '.join(missed)}" if missed else ""
                print(f"  {func:<40} {t:>3}/{n:<3}{gap}")
        if pct < a.goal:
            below.append(name)
    if below:
        print(f"below the goal of {a.goal:.0f} %: {', '.join(below)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
