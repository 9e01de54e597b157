"""Branch coverage of the protocol handlers by the step vectors (docs/steps.md, "Coverage"):
`measure` replays every committed step vector through the reference's handlers under
coverage.py in branch mode and counts, per system, the branches of its handler functions (the
functions each `StepSystem.coverage` names) that the vectors take. Printed by
scripts/step_coverage.py; asserted by tests/test_steps.py."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

# The package root: `reference/...` below it is the reference (a symlink in a checkout).
ROOT = Path(str(resources.files("pubsub_spec")))
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
        raise LookupError(f"{path}: no function(s) {', '.join(missing)}")
    return out


def _not_rule(line: str) -> bool:
    return any(p in line for p in NOT_RULES)


def measure(only: Sequence[str] = ()) -> dict[str, dict[str, tuple[int, int, list[str]]]]:
    """Per system, per function: (branches taken, branches, the untaken ones as 'line->line')."""
    import coverage  # a development dependency (pyproject.toml, dev)

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
