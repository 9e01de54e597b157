"""Branch coverage of the protocol handlers by the step vectors (docs/steps.md, "Coverage").

Replays every committed step vector through the reference's handlers under coverage.py in
branch mode and prints, per system, the branches of its handler functions (the functions each
`StepSystem.coverage` names) taken by the vectors, per function and in total, with the lines
of the branches not taken. Exit status 1 when a system is below the goal (95 %).

    .venv/bin/python scripts/step_coverage.py [--only thesis ...] [--goal 95]
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Sequence
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parent.parent
GOAL = 95.0
# Branch lines that are not protocol rules, left out of the count: the reports of protocol
# observations (reference/sim/observe.py: taken one way by the harness, which observes, the
# other way by every run without an observer) and memo caches of pure functions.
NOT_RULES = ("self.observer is not None", "if area is None:", "if tree is None:",
             "if self._zones_of is not records",
             "self.host.observer is not None", "self._observer is not None",
             "if self._observer is None:")  # fmt: skip


def _functions(path: Path, names: Sequence[str]) -> dict[str, tuple[int, int]]:
    """The line range of each named function (methods included) of the module; a name
    `Class.method` names the method of that class (where several classes define it)."""
    tree = ast.parse(path.read_text())
    out: dict[str, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in names:
            out[node.name] = (node.lineno, node.end_lineno or node.lineno)
        if isinstance(node, ast.ClassDef):
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f"{node.name}.{f.name}" in names:
                    out[f"{node.name}.{f.name}"] = (f.lineno, f.end_lineno or f.lineno)
    missing = sorted(set(names) - set(out))
    if missing:
        raise SystemExit(f"{path}: no function(s) {', '.join(missing)}")
    return out


def _not_rule(line: str) -> bool:
    return any(p in line for p in NOT_RULES)


def measure(only: Sequence[str] = ()) -> dict[str, dict[str, tuple[int, int, list[str]]]]:
    """Per system, per function: (branches taken, branches, the untaken ones as 'line->line')."""
    from pubsub_spec.conformance.steps import systems
    from pubsub_spec.conformance.steps.vectors import load

    chosen = {n: s for n, s in systems().items() if not only or n in only}
    files = sorted({ROOT / f for s in chosen.values() for f, _ in s.coverage})
    cov = coverage.Coverage(branch=True, include=[str(f) for f in files], data_file=None)
    vectors = load(only=tuple(chosen))
    cov.start()
    try:
        for v in vectors:
            chosen[v.system].apply(v.pre, v.input)
    finally:
        cov.stop()
    out: dict[str, dict[str, tuple[int, int, list[str]]]] = {}
    for name, system in chosen.items():
        per: dict[str, tuple[int, int, list[str]]] = {}
        for rel, funcs in system.coverage:
            path = ROOT / rel
            analysis = cov._analyze(str(path))
            source = path.read_text().splitlines()
            stats = analysis.branch_stats()  # line -> (exits, exits taken)
            missing = analysis.missing_branch_arcs()  # line -> exits not taken
            for func, (lo, hi) in sorted(_functions(path, funcs).items()):
                lines = [n for n in stats if lo <= n <= hi and not _not_rule(source[n - 1])]
                taken = sum(stats[n][1] for n in lines)
                total = sum(stats[n][0] for n in lines)
                missed = [f"{n}->{d}" for n in sorted(lines) for d in missing.get(n, [])]
                per[f"{Path(rel).name}:{func}"] = (taken, total, missed)
        out[name] = per
    return out


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
